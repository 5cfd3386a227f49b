"""Action families as IR data: affine numbers, instantiation per sentence length.

``tests/data/families.json`` holds fingerprints of the actions that the capacity-inf
systems had for n = 1..12 tokens before families became data (when lowering expanded them
with a closure); instantiating the families must give exactly those actions."""

import hashlib
import json

import pytest

from tsdsl import ir, load_system

from conftest import REPO, SYSTEMS

FINGERPRINTS = json.loads((REPO / "tests" / "data" / "families.json").read_text())


def canonical(a: ir.Action) -> list:
    """Everything about an action but its source span, as JSON-ready data."""
    cases = []
    for c in a.cases:
        cases.append([[[m.list, ir.items_text(m.items)] for m in c.match], ir.pred_text(c.guard),
                      ir.pred_text(c.implicit),
                      [[op.head, op.dep, op.labeled, op.overwrite, op.break_cycle] for op in c.arcs],
                      [ir.items_text(r) for r in c.result], [[s.flag, s.var, ir.pred_text(s.value)] for s in c.sets]])
    return [a.name, a.cls, a.family, list(a.indexes), cases]


def fingerprint(actions) -> str:
    return hashlib.sha256(json.dumps([canonical(a) for a in actions], sort_keys=True).encode()).hexdigest()[:16]


@pytest.mark.parametrize("key", sorted(FINGERPRINTS))
def test_instances_are_those_of_before(key):
    spec, rest = key.split(" ", 1)
    overrides, n = rest.rsplit(" ", 1)
    overrides, n = json.loads(overrides), int(n)
    system = load_system(SYSTEMS / spec, overrides or None)
    assert system.unbounded and system.families
    assert fingerprint(system.actions_for(n)) == FINGERPRINTS[key]


def test_the_ir_holds_no_closure():
    system = load_system(SYSTEMS / "easy-first.ts")
    hash(system)  # plain frozen data all the way down

    def walk(x):
        assert not callable(x) or isinstance(x, type), x
        if isinstance(x, tuple):
            for y in x:
                walk(y)
        elif hasattr(x, "__dataclass_fields__"):
            for f in x.__dataclass_fields__:
                walk(getattr(x, f))

    walk(system)


def test_family_template_numbers_are_affine():
    system = load_system(SYSTEMS / "easy-first-nonproj.ts", {"D": 3})
    left = next(f for f in system.families if f.template.name == "LEFT-ARC")
    assert left.indexes == ("i0", "i1")
    blocks = [it for m in left.template.cases[0].match for it in m.items if isinstance(it, ir.Block)]
    assert [str(b.length) for b in blocks] == ["(i0 - i1 - 1)", "(i1 - 1)"]
    assert left.index_tuples(4) == [(2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (4, 3)]
    assert (6, 2) not in left.index_tuples(6)  # i - j <= D


def test_affine_arithmetic_and_text():
    i, j = ir.Affine.of("i0"), ir.Affine.of("i1")
    e = i - j - 1
    assert e.at({"i0": 5, "i1": 2}) == 2 and str(e) == "(i0 - i1 - 1)"
    assert str(2 - i) == "(-i0 + 2)" and (2 - i).at({"i0": 7}) == -5
    assert str(i + i) == "2 * i0" and str(i - i) == "0" and str(ir.Affine(-3)) == "(-3)"
    assert 1 + j == j + 1 and eval(str(e), {"i0": 9, "i1": 4}) == 4
