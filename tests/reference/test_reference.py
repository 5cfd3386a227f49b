"""Example tests of the reference transition systems themselves.

Hand-checked traces (SLP Figs. 18.7 and 18.9 on "Book the flight through Houston"),
legal-action sets at chosen configurations, and exhaustive small-n checks of the
class of structures each system derives (counts from the literature).
"""
import random

import pytest

from . import REFERENCES

# "Book the flight through Houston": book=1 the=2 flight=3 through=4 houston=5
BOOK, THE, FLIGHT, THROUGH, HOUSTON = 1, 2, 3, 4, 5
BOOK_TREE = {(BOOK, FLIGHT), (FLIGHT, THE), (FLIGHT, HOUSTON), (HOUSTON, THROUGH)}


def run(system, n, actions):
    c = system.initial(n)
    trace = [c]
    for a in actions:
        assert a in system.legal(c), (a, system.snapshot(c), system.legal(c))
        c = system.apply(c, a)
        trace.append(c)
    return c, trace


def lists(system, c):
    return system.snapshot(c)["lists"]


# --------------------------------------------------------------------------
# SLP traces
# --------------------------------------------------------------------------

def test_slp_fig_18_7_arc_standard():
    s = REFERENCES["arc-standard-slp"]()
    acts = ["SHIFT", "SHIFT", "SHIFT", "LEFT-ARC", "SHIFT", "SHIFT", "LEFT-ARC",
            "RIGHT-ARC", "RIGHT-ARC", "RIGHT-ARC"]
    c, trace = run(s, 5, acts)
    # Step 4 as printed in the text: [root, book, flight] [through, Houston] (the <- flight)
    assert lists(s, trace[4]) == {"sigma": (0, BOOK, FLIGHT), "beta": (THROUGH, HOUSTON)}
    assert s.snapshot(trace[4])["arcs"] == {(FLIGHT, THE)}
    # the arcs in the order the figure adds them
    added = [set(s.snapshot(b)["arcs"] - s.snapshot(a)["arcs"]) for a, b in zip(trace, trace[1:])]
    assert added == [set(), set(), set(), {(FLIGHT, THE)}, set(), set(), {(HOUSTON, THROUGH)},
                     {(FLIGHT, HOUSTON)}, {(BOOK, FLIGHT)}, {(0, BOOK)}]
    assert s.terminal(c) and s.legal(c) == set()
    assert s.snapshot(c) == {"lists": {"sigma": (0,), "beta": ()},
                             "arcs": frozenset(BOOK_TREE | {(0, BOOK)}),
                             "token_flags": {}, "global_flags": {}}


FIG_18_9 = [  # (action, stack after, buffer after, arc added)
    ("RIGHT-ARC", (0, 1), (2, 3, 4, 5), (0, BOOK)),
    ("SHIFT", (0, 1, 2), (3, 4, 5), None),
    ("LEFT-ARC", (0, 1), (3, 4, 5), (FLIGHT, THE)),
    ("RIGHT-ARC", (0, 1, 3), (4, 5), (BOOK, FLIGHT)),
    ("SHIFT", (0, 1, 3, 4), (5,), None),
    ("LEFT-ARC", (0, 1, 3), (5,), (HOUSTON, THROUGH)),
    ("RIGHT-ARC", (0, 1, 3, 5), (), (FLIGHT, HOUSTON)),
    ("REDUCE", (0, 1, 3), (), None),
    ("REDUCE", (0, 1), (), None),
    ("REDUCE", (0,), (), None),
]


def test_slp_fig_18_9_arc_eager_slp():
    s = REFERENCES["arc-eager-slp"]()
    c = s.initial(5)
    assert lists(s, c) == {"sigma": (0,), "beta": (1, 2, 3, 4, 5)}
    for action, stack, buf, arc in FIG_18_9:
        before = s.snapshot(c)["arcs"]
        c = s.apply(c, action)
        assert lists(s, c) == {"sigma": stack, "beta": buf}
        assert s.snapshot(c)["arcs"] - before == ({arc} if arc else set())
    assert s.terminal(c) and s.legal(c) == set()
    assert s.snapshot(c)["arcs"] == BOOK_TREE | {(0, BOOK)}


def test_fig_18_9_prefix_in_nivre_arc_eager_ends_at_empty_buffer():
    s = REFERENCES["arc-eager"]()
    c, _ = run(s, 5, [a for a, *_ in FIG_18_9[:7]])
    assert s.terminal(c) and s.legal(c) == set()   # Nivre 2003: empty buffer is terminal
    assert lists(s, c) == {"sigma": (0, 1, 3, 5), "beta": ()}
    s2 = REFERENCES["arc-eager-slp"]()
    c2, _ = run(s2, 5, [a for a, *_ in FIG_18_9[:7]])
    assert not s2.terminal(c2) and s2.legal(c2) == {"REDUCE"}


# --------------------------------------------------------------------------
# the same tree in the other projective systems
# --------------------------------------------------------------------------

def test_book_arc_standard_cp():
    s = REFERENCES["arc-standard"]()
    c = s.initial(5)
    assert lists(s, c) == {"O": (0, 1), "U": (2, 3, 4, 5)}   # O holds the first K=2 tokens
    c, trace = run(s, 5, ["SHIFT", "SHIFT", "LEFT-ARC", "SHIFT", "SHIFT", "LEFT-ARC",
                          "RIGHT-ARC", "RIGHT-ARC", "RIGHT-ARC"])
    assert lists(s, trace[3]) == {"O": (0, 1, 3), "U": (4, 5)}
    assert s.terminal(c) and lists(s, c) == {"O": (0,), "U": ()}
    assert s.snapshot(c)["arcs"] == BOOK_TREE | {(0, BOOK)}


def test_book_arc_eager_cp_root_right():
    s = REFERENCES["arc-eager-cp"]()
    c = s.initial(5)
    assert lists(s, c) == {"O": (1, 2), "U": (3, 4, 5, 6)}
    c, trace = run(s, 5, ["SHIFT", "LEFT-ARC", "RIGHT-ARC", "SHIFT", "LEFT-ARC",
                          "RIGHT-ARC", "REDUCE", "REDUCE", "LEFT-ARC"])
    assert lists(s, trace[3]) == {"O": (1, 3, 4), "U": (5, 6)}    # RIGHT-ARC = -> then +
    assert lists(s, trace[6]) == {"O": (1, 3, 5, 6), "U": ()}
    assert lists(s, trace[7]) == {"O": (1, 3, 6), "U": ()}         # REDUCE removes O[2]
    assert s.terminal(c) and lists(s, c) == {"O": (6,), "U": ()}
    assert s.snapshot(c)["arcs"] == BOOK_TREE | {(6, BOOK)}


def test_book_arc_hybrid():
    s = REFERENCES["arc-hybrid"]()
    c = s.initial(5)
    assert lists(s, c) == {"O": (1,), "U": (2, 3, 4, 5, 6)}       # start = 1
    assert s.legal(c) == {"SHIFT"}
    c = s.apply(c, "SHIFT")
    assert s.legal(c) == {"SHIFT", "LEFT-ARC"}                     # no RIGHT-ARC with |O| < K
    c, _ = run(s, 5, ["SHIFT", "SHIFT", "LEFT-ARC", "SHIFT", "SHIFT", "LEFT-ARC", "SHIFT"])
    assert lists(s, c) == {"O": (1, 3, 5, 6), "U": ()}
    c = s.apply(c, "RIGHT-ARC")                                    # O[3] -> O[2]: 3 -> 5
    assert lists(s, c) == {"O": (1, 3, 6), "U": ()}
    c = s.apply(s.apply(c, "RIGHT-ARC"), "LEFT-ARC")
    assert s.terminal(c) and s.snapshot(c)["arcs"] == BOOK_TREE | {(6, BOOK)}


def test_book_easy_first():
    s = REFERENCES["easy-first"]()
    c = s.initial(5)
    assert lists(s, c) == {"O": (1, 2, 3, 4, 5), "U": ()}
    assert s.legal(c) == {"%s(%d,%d)" % (a, i, i - 1)
                          for a in ("LEFT-ARC", "RIGHT-ARC") for i in range(2, 6)}
    c, _ = run(s, 5, ["LEFT-ARC(4,3)", "LEFT-ARC(2,1)", "RIGHT-ARC(2,1)", "RIGHT-ARC(2,1)"])
    assert s.terminal(c) and lists(s, c) == {"O": (1,), "U": ()}
    assert s.snapshot(c)["arcs"] == BOOK_TREE


def test_book_tree_constrained():
    s = REFERENCES["arc-eager-tree-constrained"]()
    c, _ = run(s, 5, ["SHIFT", "SHIFT", "LEFT-ARC", "RIGHT-ARC", "SHIFT", "LEFT-ARC",
                      "RIGHT-ARC"])
    snap = s.snapshot(c)
    assert snap["lists"] == {"sigma": (1, 3, 5), "beta": ()} and snap["global_flags"] == {"e": True}
    assert s.legal(c) == {"REDUCE"}
    c, _ = run(s, 5, ["SHIFT", "SHIFT", "LEFT-ARC", "RIGHT-ARC", "SHIFT", "LEFT-ARC",
                      "RIGHT-ARC", "REDUCE", "REDUCE"])
    assert s.terminal(c) and s.snapshot(c)["arcs"] == BOOK_TREE
    c, _ = run(s, 5, [])
    assert s.snapshot(c)["global_flags"] == {"e": False}


# --------------------------------------------------------------------------
# legal sets at specific configurations / specific behaviour
# --------------------------------------------------------------------------

def test_arc_eager_preconditions():
    s = REFERENCES["arc-eager"]()
    c, _ = run(s, 3, ["SHIFT"])                          # [0,1] [2,3]
    assert s.legal(c) == {"SHIFT", "LEFT-ARC", "RIGHT-ARC"}
    c = s.apply(c, "RIGHT-ARC")                          # 1 -> 2, [0,1,2] [3]
    assert s.legal(c) == {"SHIFT", "RIGHT-ARC", "REDUCE"}  # 2 has a head: no LEFT-ARC
    c = s.initial(2)
    assert s.legal(c) == {"SHIFT", "RIGHT-ARC"}          # root: no LEFT-ARC, no REDUCE


def test_arc_standard_slp_root_guard():
    s = REFERENCES["arc-standard-slp"]()
    c, _ = run(s, 2, ["SHIFT"])                          # [0,1] [2]
    assert s.legal(c) == {"SHIFT", "RIGHT-ARC"}          # LEFT-ARC would make the root a dependent
    c = s.apply(c, "SHIFT")
    assert s.legal(c) == {"LEFT-ARC", "RIGHT-ARC"}


def test_tree_constrained_unshift():
    s = REFERENCES["arc-eager-tree-constrained"]()
    c, _ = run(s, 3, ["SHIFT", "SHIFT"])
    assert s.snapshot(c)["global_flags"] == {"e": False}
    c = s.apply(c, "SHIFT")                              # [1,2,3] [] e=true
    assert s.snapshot(c)["global_flags"] == {"e": True}
    assert s.legal(c) == {"UNSHIFT"}                     # the only move, as in the paper
    c = s.apply(c, "UNSHIFT")
    assert lists(s, c) == {"sigma": (1, 2), "beta": (3,)}
    assert s.legal(c) == {"LEFT-ARC", "RIGHT-ARC"}       # SHIFT is forbidden once e is true
    c = s.apply(c, "RIGHT-ARC")                          # 2 -> 3
    assert s.legal(c) == {"REDUCE"}
    c, _ = run(s, 3, ["SHIFT", "SHIFT", "SHIFT", "UNSHIFT", "RIGHT-ARC", "REDUCE", "UNSHIFT",
                      "RIGHT-ARC", "REDUCE"])
    assert s.terminal(c) and s.snapshot(c)["arcs"] == {(2, 3), (1, 2)}


def test_tree_constrained_right_arc_sets_e():
    s = REFERENCES["arc-eager-tree-constrained"]()
    c, _ = run(s, 2, ["SHIFT", "RIGHT-ARC"])
    assert s.snapshot(c)["global_flags"] == {"e": True}
    assert s.legal(c) == {"REDUCE"}
    c = s.apply(c, "REDUCE")
    assert s.terminal(c) and s.legal(c) == set()


def test_nm_2013_clobber_and_reduce_insert():
    s = REFERENCES["arc-eager-nm-2013"]()
    c, _ = run(s, 3, ["SHIFT", "RIGHT-ARC"])             # [0,1,2] [3], 1 -> 2
    assert s.legal(c) == {"SHIFT", "LEFT-ARC", "RIGHT-ARC", "REDUCE"}
    d = s.apply(c, "LEFT-ARC")                           # 3 -> 2 replaces 1 -> 2
    assert s.snapshot(d)["arcs"] == {(3, 2)} and lists(s, d)["sigma"] == (0, 1)
    c, _ = run(s, 3, ["SHIFT", "SHIFT"])                 # [0,1,2] [3], nothing attached
    c = s.apply(c, "REDUCE")                             # inserts s1 -> s0 = 1 -> 2
    assert s.snapshot(c)["arcs"] == {(1, 2)} and lists(s, c)["sigma"] == (0, 1)
    c, _ = run(s, 1, ["SHIFT"])
    assert s.legal(c) == {"REDUCE"}                      # buffer empty, headless 1: 0 -> 1
    c = s.apply(c, "REDUCE")
    assert s.terminal(c) and s.snapshot(c)["arcs"] == {(0, 1)}


def test_unshift_system():
    s = REFERENCES["arc-eager-unshift"]()
    c = s.initial(3)
    assert s.legal(c) == {"SHIFT"}
    c = s.apply(c, "SHIFT")
    assert s.snapshot(c)["token_flags"] == {"shifted": {1}}
    assert s.legal(c) == {"SHIFT", "LEFT-ARC", "RIGHT-ARC", "UNSHIFT"}
    c = s.apply(c, "SHIFT")
    c = s.apply(c, "UNSHIFT")                            # 2 back to the buffer
    assert lists(s, c) == {"sigma": (1,), "beta": (2, 3)}
    assert s.legal(c) == {"LEFT-ARC", "RIGHT-ARC", "UNSHIFT"}  # 2 was shifted: no SHIFT
    c = s.apply(c, "RIGHT-ARC")                          # 1 -> 2, RIGHT-ARC does not set S
    assert s.snapshot(c)["token_flags"] == {"shifted": {1, 2}}
    c = s.apply(c, "LEFT-ARC")                           # 3 -> 2 overwrites 1 -> 2
    assert s.snapshot(c)["arcs"] == {(3, 2)}
    assert lists(s, c) == {"sigma": (1,), "beta": (3,)}
    c = s.apply(c, "LEFT-ARC")
    c = s.apply(c, "SHIFT")
    assert s.terminal(c) and s.snapshot(c)["arcs"] == {(3, 2), (3, 1)}


def test_unshift_dead_end():
    # Literal Table 1: after SHIFT, UNSHIFT of the only stack word nothing is legal.
    s = REFERENCES["arc-eager-unshift"]()
    c, _ = run(s, 2, ["SHIFT", "UNSHIFT"])
    assert s.legal(c) == set() and not s.terminal(c)


def test_covington_moves_and_guards():
    for name in ("covington", "covington-nm"):
        s = REFERENCES[name]()
        c, _ = run(s, 3, ["SHIFT", "SHIFT"])             # l1=[1,2] l2=[] B=[3]
        assert lists(s, c) == {"lambda1": (1, 2), "lambda2": (), "beta": (3,)}
        c = s.apply(c, "NO-ARC")
        assert lists(s, c) == {"lambda1": (1,), "lambda2": (2,), "beta": (3,)}
        c = s.apply(c, "RIGHT-ARC")                      # 1 -> 3
        assert lists(s, c) == {"lambda1": (), "lambda2": (1, 2), "beta": (3,)}
        assert s.legal(c) == {"SHIFT"}
        c = s.apply(c, "SHIFT")
        assert lists(s, c) == {"lambda1": (1, 2, 3), "lambda2": (), "beta": ()}
        assert s.terminal(c) and s.snapshot(c)["arcs"] == {(1, 3)}


def _covington_cycle_config(name):
    # n=3: 1 -> 2 and 2 -> 3 built, focus i=1, j=3
    s = REFERENCES[name]()
    c, _ = run(s, 3, ["SHIFT", "RIGHT-ARC", "SHIFT", "RIGHT-ARC"])
    assert lists(s, c) == {"lambda1": (1,), "lambda2": (2,), "beta": (3,)}
    assert s.snapshot(c)["arcs"] == {(1, 2), (2, 3)}
    return s, c


def test_covington_monotonic_guards():
    s, c = _covington_cycle_config("covington")
    # LEFT-ARC 3 -> 1 would close the cycle 1->2->3->1; RIGHT-ARC 1 -> 3: 3 has a head
    assert s.legal(c) == {"SHIFT", "NO-ARC"}


def test_covington_nonmonotonic_repairs():
    s, c = _covington_cycle_config("covington-nm")
    assert s.legal(c) == {"SHIFT", "NO-ARC", "LEFT-ARC", "RIGHT-ARC"}
    # LEFT-ARC 3 -> 1 closes a cycle: the arc into the head 3 (2 -> 3) is removed
    assert s.snapshot(s.apply(c, "LEFT-ARC"))["arcs"] == {(1, 2), (3, 1)}
    # RIGHT-ARC 1 -> 3 replaces the head of 3
    assert s.snapshot(s.apply(c, "RIGHT-ARC"))["arcs"] == {(1, 2), (1, 3)}


def test_covington_nm_reversal():
    s = REFERENCES["covington-nm"]()
    c, _ = run(s, 3, ["SHIFT", "LEFT-ARC", "SHIFT", "NO-ARC"])
    # 2 -> 1 built; focus i=1, j=3: LEFT-ARC 3 -> 1 replaces 2 -> 1
    assert s.snapshot(c)["arcs"] == {(2, 1)}
    assert s.snapshot(s.apply(c, "LEFT-ARC"))["arcs"] == {(3, 1)}
    # the monotonic system forbids it (1 already has a head)
    m = REFERENCES["covington"]()
    cm, _ = run(m, 3, ["SHIFT", "LEFT-ARC", "SHIFT", "NO-ARC"])
    assert m.legal(cm) == {"SHIFT", "NO-ARC", "RIGHT-ARC"}


def test_dag_arcs_do_not_reduce_and_are_guarded():
    s = REFERENCES["dag"]()
    c = s.initial(3)                                     # O=[1,2] U=[3,4]
    c = s.apply(c, "RIGHT-ARC")                          # 1 -> 2, nothing removed
    assert lists(s, c) == {"O": (1, 2), "U": (3, 4)}
    assert s.legal(c) == {"SHIFT"}     # arc exists / reverse would cycle / O[2] headless
    c = s.apply(c, "SHIFT")                              # O=[1,2,3]
    c = s.apply(c, "LEFT-ARC")                           # 3 -> 2: second head of 2
    assert s.snapshot(c)["arcs"] == {(1, 2), (3, 2)}
    assert s.legal(c) == {"SHIFT", "REDUCE"}
    c = s.apply(c, "REDUCE")                             # removes O[2] = 2
    assert lists(s, c) == {"O": (1, 3), "U": (4,)}
    assert s.legal(c) == {"SHIFT", "LEFT-ARC", "RIGHT-ARC"}


def test_dag_root_never_dependent():
    s = REFERENCES["dag"]()
    c = s.initial(1)                                     # O=[1,2(root)] U=[]
    assert s.legal(c) == {"LEFT-ARC"}


def test_attardi_names_and_instances():
    s1 = REFERENCES["attardi"](N=1, start=2)            # K=2, D=1: single instance
    assert s1.legal(s1.initial(3)) == {"RIGHT-ARC", "SHIFT"}
    assert lists(REFERENCES["attardi"](), REFERENCES["attardi"]().initial(2)) == {"O": (0,), "U": (1, 2)}
    s2 = REFERENCES["attardi"](start=3)                 # N=2: K=3, D=2, j == 1
    c = s2.initial(4)
    assert lists(s2, c) == {"O": (0, 1, 2), "U": (3, 4)}
    assert s2.legal(c) == {"LEFT-ARC(2,1)", "RIGHT-ARC(2,1)", "RIGHT-ARC(3,1)", "SHIFT"}
    d = s2.apply(c, "RIGHT-ARC(3,1)")                    # O[3]=0 -> O[1]=2, removes 2
    assert lists(s2, d) == {"O": (0, 1), "U": (3, 4)}
    c = s2.apply(c, "SHIFT")                             # O=[0,1,2,3]
    assert s2.legal(c) == {"LEFT-ARC(2,1)", "LEFT-ARC(3,1)", "RIGHT-ARC(2,1)",
                           "RIGHT-ARC(3,1)", "SHIFT"}
    c = s2.apply(c, "LEFT-ARC(3,1)")                     # 3 -> 1 (non-adjacent), removes 1
    assert lists(s2, c) == {"O": (0, 2, 3), "U": (4,)}
    s3 = REFERENCES["attardi"](N=3, start=4)
    assert lists(s3, s3.initial(5))["O"] == (0, 1, 2, 3)


def test_easy_first_bounded_capacity():
    s = REFERENCES["easy-first-bounded"](K=4)
    c = s.initial(6)
    assert lists(s, c) == {"O": (1, 2, 3, 4), "U": (5, 6)}
    assert s.legal(c) == {"SHIFT"} | {"%s(%d,%d)" % (a, i, i - 1)
                                      for a in ("LEFT-ARC", "RIGHT-ARC") for i in (2, 3, 4)}
    c = s.apply(c, "SHIFT")                              # |O| = 5 > K: O[5] is inactive
    assert "LEFT-ARC(5,4)" not in s.legal(c) and "LEFT-ARC(4,3)" in s.legal(c)
    s3 = REFERENCES["easy-first-bounded"]()
    assert lists(s3, s3.initial(6))["O"] == (1, 2, 3)


def test_easy_first_nonproj_distance():
    s = REFERENCES["easy-first-nonproj"](D=3)
    c = s.initial(4)
    assert s.legal(c) == {"%s(%d,%d)" % (a, i, j) for a in ("LEFT-ARC", "RIGHT-ARC")
                          for i in range(2, 5) for j in range(1, i)}
    c = s.apply(c, "RIGHT-ARC(4,1)")                     # 1 -> 4, removes 4
    assert lists(s, c)["O"] == (1, 2, 3) and s.snapshot(c)["arcs"] == {(1, 4)}


def test_n_zero_is_terminal_everywhere():
    for name, factory in REFERENCES.items():
        s = factory()
        c = s.initial(0)
        assert s.terminal(c) and s.legal(c) == set(), name


def test_apply_does_not_mutate():
    rng = random.Random(7)
    for name, factory in REFERENCES.items():
        s = factory()
        c = s.initial(6)
        for _ in range(40):
            acts = sorted(s.legal(c))
            if not acts:
                break
            before = s.snapshot(c)
            c2 = s.apply(c, rng.choice(acts))
            assert s.snapshot(c) == before, name
            c = c2


# --------------------------------------------------------------------------
# exhaustive small-n checks of the derivable structures
# --------------------------------------------------------------------------

def freeze(snap):
    return (tuple(sorted(snap["lists"].items())), snap["arcs"],
            tuple(sorted(snap["token_flags"].items())), tuple(sorted(snap["global_flags"].items())))


def outputs(s, n):
    """Arc sets of all reachable terminal configurations."""
    seen, out, todo = set(), set(), [s.initial(n)]
    while todo:
        c = todo.pop()
        key = freeze(s.snapshot(c))
        if key in seen:
            continue
        seen.add(key)
        if s.terminal(c):
            out.add(s.snapshot(c)["arcs"])
        todo.extend(s.apply(c, a) for a in s.legal(c))
    return out


def is_tree(arcs, nodes, root):
    """Every node except the root has exactly one head, and no cycles."""
    heads = {}
    for h, d in arcs:
        if d in heads or d == root:
            return False
        heads[d] = h
    if root is None:
        if len(nodes) - len(heads) != 1:
            return False
    elif set(heads) != set(nodes) - {root}:
        return False
    for d in heads:
        x, steps = d, 0
        while x in heads:
            x, steps = heads[x], steps + 1
            if steps > len(nodes):
                return False
    return True


def is_projective(arcs):
    children = {}
    for h, d in arcs:
        children.setdefault(h, set()).add(d)

    def desc(x):
        out, todo = set(), [x]
        while todo:
            for y in children.get(todo.pop(), ()):
                if y not in out:
                    out.add(y)
                    todo.append(y)
        return out
    return all(set(range(min(h, d) + 1, max(h, d))) <= desc(h) for h, d in arcs)


# projective trees under an artificial root at one end (A001764) and with a single
# root word (A006013); all rooted forests (n+1)^(n-1); all rooted trees n^(n-1).
PROJ_ROOTED = {1: 1, 2: 3, 3: 12, 4: 55, 5: 273}
PROJ_SINGLE = {1: 1, 2: 2, 3: 7, 4: 30, 5: 143}


@pytest.mark.parametrize("name,kw,root", [
    ("arc-standard-slp", {}, "left"), ("arc-eager-slp", {}, "left"),
    ("arc-standard", {}, "left"), ("arc-eager-cp", {}, "right"),
    ("arc-hybrid", {}, "right"), ("attardi", {"N": 1}, "left"),
    ("arc-eager-nm-2013", {}, "left"),
])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_projective_rooted_trees(name, kw, root, n):
    s = REFERENCES[name](**kw)
    r = 0 if root == "left" else n + 1
    nodes = set(range(1, n + 1)) | {r}
    out = outputs(s, n)
    assert all(is_tree(a, nodes, r) and is_projective(a) for a in out)
    assert len(out) == PROJ_ROOTED[n]


@pytest.mark.parametrize("name,kw", [
    ("easy-first", {}), ("easy-first-bounded", {}), ("easy-first-bounded", {"K": 4}),
    ("arc-eager-tree-constrained", {}),
])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_projective_single_root_trees(name, kw, n):
    s = REFERENCES[name](**kw)
    out = outputs(s, n)
    assert all(is_tree(a, set(range(1, n + 1)), None) and is_projective(a) for a in out)
    assert len(out) == PROJ_SINGLE[n]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_arc_eager_root_completion_gives_projective_trees(n):
    s = REFERENCES["arc-eager"]()
    nodes = set(range(n + 1))
    completed = set()
    for a in outputs(s, n):
        headless = set(range(1, n + 1)) - {d for _, d in a}
        t = a | {(0, w) for w in headless}
        assert is_tree(t, nodes, 0) and is_projective(t)
        completed.add(t)
    assert len(completed) == PROJ_ROOTED[n]


@pytest.mark.parametrize("name", ["covington", "covington-nm"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_covington_all_forests(name, n):
    out = outputs(REFERENCES[name](), n)
    nodes = set(range(n + 1))
    for a in out:   # a forest: attaching headless words to 0 gives a tree
        headless = set(range(1, n + 1)) - {d for _, d in a}
        assert is_tree(a | {(0, w) for w in headless}, nodes, 0)
    assert len(out) == (n + 1) ** (n - 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_easy_first_nonproj_unbounded_distance_gives_all_trees(n):
    out = outputs(REFERENCES["easy-first-nonproj"](D=max(1, n - 1)), n)
    assert all(is_tree(a, set(range(1, n + 1)), None) for a in out)
    assert len(out) == n ** (n - 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_easy_first_nonproj_d2_between_proj_and_all(n):
    out = outputs(REFERENCES["easy-first-nonproj"](D=2), n)
    assert all(is_tree(a, set(range(1, n + 1)), None) for a in out)
    assert PROJ_SINGLE[n] <= len(out) <= n ** (n - 1)
    assert sum(not is_projective(a) for a in out) == len(out) - PROJ_SINGLE[n]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_attardi_n2_superset_of_projective(n):
    out = outputs(REFERENCES["attardi"](N=2), n)
    nodes = set(range(n + 1))
    assert all(is_tree(a, nodes, 0) for a in out)
    assert sum(is_projective(a) for a in out) == PROJ_ROOTED[n]
    assert any(not is_projective(a) for a in out) == (n >= 3)


def test_attardi_n3_initial_window_loses_projective_trees():
    # Read literally, O starts with the first K = N+1 tokens.  With P=right every
    # arc involves O[1], so for N=3, n=3 (O = [0,1,2,3]) the word 3 cannot wait for
    # 2 to collect 1: 0->3, 3->2, 2->1 is not derivable, although Attardi's stack
    # system (which starts from the root alone, the project's reading) derives it.
    out = outputs(REFERENCES["attardi"](N=3, start=4), 3)
    assert all(is_tree(a, set(range(4)), 0) for a in out)
    assert frozenset({(0, 3), (3, 2), (2, 1)}) not in out
    assert sum(is_projective(a) for a in out) == PROJ_ROOTED[3] - 2
    full = outputs(REFERENCES["attardi"](N=3), 3)
    assert frozenset({(0, 3), (3, 2), (2, 1)}) in full
    assert sum(is_projective(a) for a in full) == PROJ_ROOTED[3]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_unshift_system_outputs_projective_trees(n):
    out = outputs(REFERENCES["arc-eager-unshift"](), n)
    assert all(is_tree(a, set(range(1, n + 1)), None) and is_projective(a) for a in out)
    assert len(out) == PROJ_SINGLE[n]   # same class as tree-constrained, more repair paths


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_dag_outputs(n):
    out = outputs(REFERENCES["dag"](), n)
    r = n + 1
    trees = set()
    for a in out:
        heads = {d for _, d in a}
        assert heads == set(range(1, n + 1)) and r not in heads   # every word has a head
        assert all(h != d for h, d in a)
        if is_tree(a, set(range(1, n + 2)), r):
            trees.add(a)
    # every projective tree is among the DAGs
    assert len({t for t in trees if is_projective(t)}) == PROJ_ROOTED[n]
