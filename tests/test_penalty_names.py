"""How a `penalty` names its action (language.md §7.4): one instance as `show` names it
(``LEFT-ARC(2,1)``), or a whole family by its plain name (``LEFT-ARC``: every instance).
Checked in the interpreter's fast oracle and in the generated kernel source."""

from __future__ import annotations

import pytest

from tsdsl import ir
from tsdsl.interp import Interpreter
from tsdsl.kernels.codegen import generate
from tsdsl.lang import load_system_text
from tsdsl.oracle import FastOracle, find_oracle

# arc-hybrid widened to distance 2 (the trial's hybrid-d2.ts): LEFT-ARC(2,1) and LEFT-ARC(3,1)
HD2 = """system hd2
root right
capacity 3
distance 2
start 1
periphery capacity
LEFT-ARC  = ← {P: right}
RIGHT-ARC = → {P: left}
SHIFT     = +
oracle p
reachable h -> d if ((h in O or h in U) and (d in O or d in U) and not has_head(d))
loss = unreachable bound lower
"""


def _penalties(penalty: str) -> dict[str, int]:
    """The penalty of every legal action with O = [w1 w2 w3] (both LEFT-ARCs legal)."""
    it = Interpreter(load_system_text(HD2 + penalty + "\n", "hd2.ts"))
    fast = FastOracle(it, find_oracle(it.system), (0, 3, 1, 3))
    c = it.initial(4)
    it.apply(c, "SHIFT")
    it.apply(c, "SHIFT")
    assert {"LEFT-ARC(2,1)", "LEFT-ARC(3,1)"} <= set(it.legal(c))
    costs = fast.costs(c)
    out = {a: fast.penalty(c, a) for a in it.legal(c)}
    for a, p in out.items():  # a penalised action is never of cost 0
        assert not p or costs[a] >= 1
    return out


def test_an_indexed_penalty_names_one_instance():
    assert _penalties("penalty LEFT-ARC(2,1) if true") == {
        "LEFT-ARC(2,1)": 1, "LEFT-ARC(3,1)": 0, "RIGHT-ARC(3,1)": 0, "RIGHT-ARC(3,2)": 0, "SHIFT": 0}


def test_a_family_penalty_covers_every_instance_with_the_shared_variables():
    # o1 (the head, b0) is bound by every LEFT-ARC instance; w3 has no head yet
    assert _penalties("penalty LEFT-ARC if not has_head(o1)") == {
        "LEFT-ARC(2,1)": 1, "LEFT-ARC(3,1)": 1, "RIGHT-ARC(3,1)": 0, "RIGHT-ARC(3,2)": 0, "SHIFT": 0}
    assert _penalties("penalty LEFT-ARC if has_head(o1)")["LEFT-ARC(3,1)"] == 0


@pytest.mark.parametrize("written, instances", [("LEFT-ARC(3,1)", {"LEFT-ARC(3,1)"}),
                                                ("LEFT-ARC", {"LEFT-ARC(2,1)", "LEFT-ARC(3,1)"}),
                                                ("SHIFT", {"SHIFT"})])
def test_the_ir_keeps_the_name_and_the_kernel_penalises_the_named_instances(written, instances):
    system = load_system_text(HD2 + f"penalty {written} if true\n", "hd2.ts")
    assert [name for name, _ in system.oracles[0].penalties] == [written]
    assert {a.name for a in system.actions if ir.penalty_applies(written, a)} == instances
    source = generate(system).source
    # one penalty function per penalised unit (a fixed action set: one unit per instance)
    assert source.count("cdef inline bint pen_0_") == len(instances)


def test_the_compiled_kernel_agrees_with_the_interpreter(tmp_path):
    """Costs with a family penalty and an instance penalty, kernel against fast oracle, along
    random derivations (the kernel is built once into a scratch cache)."""
    import random

    from tsdsl.kernels import compile_system

    system = load_system_text(HD2 + "penalty LEFT-ARC if not has_head(o1)\n"
                              "penalty RIGHT-ARC(3,2) if gold_head(o2) == o3\n", "hd2.ts")
    ks = compile_system(system, cache_dir=tmp_path / "cache", fallback=False)
    it = Interpreter(system)
    rng = random.Random(7)
    penalised = 0
    for gold in [(0, 1, 2, 3, 4), (2, 0, 2, 5, 2), (3, 3, 0, 3), (0, 3, 1, 3, 4, 5)]:
        for _ in range(5):
            c, k = it.initial(len(gold)), ks.initial(len(gold))
            ks.attach_gold(k, list(gold))
            fast = FastOracle(it, find_oracle(system), gold)
            while not it.is_terminal(c) and it.legal(c):
                assert ks.costs_dict(k) == fast.costs(c)
                penalised += sum(fast.penalty(c, a) for a in it.legal(c))
                a = rng.choice(it.legal(c))
                it.apply(c, a)
                ks.apply(k, a, None)
    assert penalised > 0
