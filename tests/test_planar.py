"""The proof of non-derivability read off the IR (tsdsl/verify/planar.py).

Its soundness on every tree of up to 5 words is checked against exhaustive exploration in
tests/test_verify_compiled.py; here, what it reads off the specs and the arc-set test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tsdsl import load_system
from tsdsl.verify.classes import crossing
from tsdsl.verify.planar import (anchored_list, arc_gap, blocked_core, nonderivable_by_crossing, noncrossing_order,
                                  takes_dependents)

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"


@pytest.mark.parametrize("stem, gap", [("arc-standard", 0), ("arc-eager", 0), ("arc-hybrid", 0), ("easy-first", 0),
                                       ("arc-eager-unshift", 0), ("attardi-2", 1), ("attardi-3", 2),
                                       ("arc-standard-swap", None), ("covington", None)])
def test_gap_read_off_the_actions(stem, gap):
    found = arc_gap(load_system(SYSTEMS / f"{stem}.ts"), 9)
    assert (found[1] if found else None) == gap


def test_a_spec_that_joins_distant_tokens_gets_no_proof(tmp_path):
    p = tmp_path / "far.ts"
    p.write_text(f'system far "arc-standard with an arc over the whole stack"\n  extends "{SYSTEMS}/arc-standard-slp.ts"\n'
                 "  FAR : (r|σ|j, β) => (r|σ, β)   arc r -> j\n", encoding="utf-8")
    system = load_system(p)
    assert noncrossing_order(system) is None
    assert nonderivable_by_crossing(system, (3, 4, 0, 3)) is None


def test_crossing_gold_arcs_are_not_derivable_by_arc_standard():
    system = load_system(SYSTEMS / "arc-standard.ts")
    why = nonderivable_by_crossing(system, (3, 4, 0, 3))
    assert why is not None and "cross" in why
    assert nonderivable_by_crossing(system, (2, 0, 2, 3)) is None


def test_root_arcs_of_the_end_rule_count_when_headless_words_never_leave(tmp_path):
    """With the root heuristic, 0 -> 2 comes from the end rule; word 2 never left the stack
    (tokens leave only with a head), so 3 -> 1 cannot span it.  A REDUCE without its
    has_head guard lets a headless word leave: then nothing is proved."""
    system = load_system(SYSTEMS / "arc-eager-root-heuristic.ts")
    assert system.attach_headless_to_root
    assert nonderivable_by_crossing(system, (3, 0, 2)) is not None
    p = tmp_path / "loose.ts"
    p.write_text(f'system loose "root heuristic, unguarded REDUCE"\n  extends "{SYSTEMS}/arc-eager-root-heuristic.ts"\n'
                 "  REDUCE    : (σ|s, β)   => (σ, β)\n", encoding="utf-8")
    assert nonderivable_by_crossing(load_system(p), (3, 0, 2)) is None


# A new user's bounded arc-swift (Qi & Manning 2017, k <= 2) with arc-eager's REDUCE and the root
# on the right: its arcs of reach 2 join t and b over s, which leaves with t (or alone).
SWIFT = """system swift2 "arc-swift, k <= 2, with REDUCE; root right"
  produces projective
  root     right
  lists    σ, β
  initial  ([], [1..n|root])
  terminal ([], [r]) if is_root(r)
  SHIFT       : (σ, b|β)     => (σ|b, β)     if not is_root(b)
  LEFT-ARC_1  : (σ|s, b|β)   => (σ, b|β)     arc b -> s
  LEFT-ARC_2  : (σ|t|s, b|β) => (σ, b|β)     arc b -> t  if has_head(s)
  RIGHT-ARC_1 : (σ|s, b|β)   => (σ|s|b, β)   arc s -> b
  RIGHT-ARC_2 : (σ|t|s, b|β) => (σ|t|b, β)   arc t -> b  if has_head(s)
  REDUCE      : (σ|s, β)     => (σ, β)       if has_head(s)
"""

# Two arcs built at once over each other (u < t < s < b), and s to b: the items between the ends
# of each leave with the case but are an end of another of its arcs, so they count: G = 1.
CROSS = """system cross_pair "arc-eager plus an action building two crossing arcs at once"
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal (σ, [])
  SHIFT     : (σ, b|β)       => (σ|b, β)
  LEFT-ARC  : (σ|s, b|β)     => (σ, b|β)     arc b -> s  if not is_root(s)
  RIGHT-ARC : (σ|s, b|β)     => (σ|s|b, β)   arc s -> b
  REDUCE    : (σ|s, β)       => (σ, β)       if has_head(s)
  CROSS     : (σ|u|t|s, b|β) => (σ, b|β)     arc b -> t  arc s -> u  arc b -> s  if not is_root(u)
"""


def spec(tmp_path, text: str):
    p = tmp_path / "spec.ts"
    p.write_text(text, encoding="utf-8")
    return load_system(p)


def test_items_leaving_with_the_arc_do_not_count_unless_they_are_arc_ends(tmp_path):
    """arc-swift's reach-2 arcs span a word that leaves in the same step: G = 0, so its crossing
    gold trees are decided by proof (they took 7 to 10 s each of search, undecided, before);
    two arcs built over each other in one step keep their gap."""
    swift = spec(tmp_path, SWIFT)
    assert arc_gap(swift, 9) == ((0, 1), 0)
    assert "cross" in nonderivable_by_crossing(swift, (3, 4, 0, 3))
    assert arc_gap(spec(tmp_path, CROSS), 9)[1] == 1


arcs = st.lists(st.tuples(st.integers(0, 9), st.integers(1, 9)).filter(lambda a: a[0] != a[1]), max_size=8)


@given(arcs)
def test_core_with_no_gap_is_crossing(xs):
    assert bool(blocked_core(xs, 0)) == crossing(xs)


@given(arcs, st.integers(0, 3))
def test_core_arcs_each_span_more_than_the_gap(xs, gap):
    core = blocked_core(xs, gap)
    ends = {t for a in core for t in a}
    for h, d in core:
        assert sum(1 for t in ends if min(h, d) < t < max(h, d)) > gap
    assert len(blocked_core(xs, gap + 1)) <= len(core)  # a wider gap proves less


def test_bottom_up_ancestors_decide_what_the_ends_alone_do_not():
    """Attardi N = 2 (arcs over at most one token, the dependent reduced): in heads
    (4, 0, 2, 3) the arc 4 -> 1 spans 2 and 3, ancestors of 4 whose arcs come after it, so
    it is never built; counting ends of other arcs alone proves nothing."""
    system = load_system(SYSTEMS / "attardi-2.ts")
    assert takes_dependents(system) and arc_gap(system)[1] == 1
    must = [(4, 1), (0, 2), (2, 3), (3, 4)]
    assert blocked_core(must, 1) == []
    assert (4, 1) in blocked_core(must, 1, bottom_up=True)
    why = nonderivable_by_crossing(system, (4, 0, 2, 3))
    assert why is not None and "bottom-up" in why
    assert not takes_dependents(load_system(SYSTEMS / "arc-eager.ts"))  # RIGHT-ARC pushes its dependent


@given(arcs, st.integers(0, 3))
def test_bottom_up_core_is_the_largest_blocked_set(xs, gap):
    """Each arc of the core is blocked within the core; adding the bottom-up rule only adds arcs."""
    core = blocked_core(xs, gap, bottom_up=True)
    plain = blocked_core(xs, gap)
    assert set(plain) <= set(core) or not xs
    heads = {h for h, _ in core}
    parent = {d: h for h, d in dict.fromkeys(xs)}
    ends = {t for a in core for t in a}
    for h, d in core:
        lo, hi = min(h, d), max(h, d)
        anc, x = set(), h
        for _ in range(len(parent)):
            if x not in parent:
                break
            x = parent[x]
            anc.add(x)
        assert d in heads or len({t for t in ends | anc if lo < t < hi}) > gap


@pytest.mark.parametrize("stem, anchor", [("attardi-2", 0), ("attardi-3", 0), ("arc-standard", 0),
                                          ("arc-eager", None), ("easy-first-nonproj", None),
                                          ("covington", None), ("arc-standard-swap", None)])
def test_anchor_read_off_the_actions(stem, anchor):
    """Attardi's and arc-standard's arcs end at the top of the stack, which no token leaves for
    the buffer; arc-eager's RIGHT-ARC ends in the buffer; easy-first has one list, whose arcs
    end anywhere in it; SWAP and Covington get no order to start with."""
    assert anchored_list(load_system(SYSTEMS / f"{stem}.ts"), 9) == anchor
