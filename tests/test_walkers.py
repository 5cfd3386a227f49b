"""The IR's walkers: every kind has one method in every walker, and a walker that misses a
kind cannot be defined."""

import importlib
import pkgutil
import typing

import pytest

import tsdsl
from tsdsl import ir


def _all_modules():
    """Import every tsdsl module, so that every walker subclass is defined."""
    for info in pkgutil.walk_packages(tsdsl.__path__, "tsdsl."):
        try:
            importlib.import_module(info.name)
        except ImportError as e:  # pragma: no cover - optional dependency missing
            pytest.skip(f"{info.name}: {e}")


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_kind_lists_are_the_unions():
    assert set(ir.PRED_KINDS) == set(typing.get_args(ir.Pred))
    assert set(ir.TERM_KINDS) == set(typing.get_args(ir.Term))
    assert set(ir.ITEM_KINDS) == set(typing.get_args(ir.Item))
    assert len({ir.visit_method(k) for k in ir.PRED_KINDS + ir.TERM_KINDS + ir.ITEM_KINDS + ir.EFFECT_KINDS}) \
        == len(ir.PRED_KINDS + ir.TERM_KINDS + ir.ITEM_KINDS + ir.EFFECT_KINDS)


def test_every_walker_in_the_package_handles_every_kind():
    _all_modules()
    walkers = [w for w in _subclasses(ir.Walker) if w.__module__.startswith("tsdsl")]
    concrete = [w for w in walkers if not w.partial]
    assert len(concrete) >= 4, walkers  # text, json, interpreter closures, three-valued evaluation …
    for w in concrete:
        assert w.walks and w.missing() == [], f"{w.__module__}.{w.__qualname__} lacks {w.missing()}"


def test_a_walker_that_misses_a_kind_is_refused():
    methods = {ir.visit_method(k): (lambda self, p: None) for k in ir.PRED_KINDS}
    del methods["visit_connected"]
    with pytest.raises(TypeError, match="visit_connected"):
        type("Forgetful", (ir.PredWalker,), methods)
    type("Complete", (ir.PredWalker,), dict(methods, visit_connected=lambda self, p: None))


def test_visit_refuses_what_is_not_a_node():
    with pytest.raises(TypeError, match="not an IR node"):
        ir.walk._TEXT.visit("has_head(s)")


def test_text_and_json_of_every_predicate_kind():
    t = ir.TFunc("max", ir.TPos(ir.TVar("s")), ir.TGold(ir.TFirst("B")))
    preds = [ir.HasHead("s"), ir.IsRoot("s"), ir.TokenFlag("f", "s"), ir.GlobalFlag("g"), ir.Path("a", "b"),
             ir.ArcExists("a", "b"), ir.Length("S", ">=", 2), ir.Cmp("<", t, ir.TLen("S")),
             ir.InList(ir.TLast("S"), "B"), ir.Connected("a", "b"), ir.Not(ir.Any_((ir.TRUE, ir.Const(False))))]
    assert {type(p) for p in preds} | {ir.All, ir.Any_, ir.Const} == set(ir.PRED_KINDS)
    text = ir.pred_text(ir.All(tuple(preds)))
    assert text == ("has_head(s) and is_root(s) and f[s] and g and a ->* b and a -> b and len(S) >= 2 and "
                    "max(pos(s), gold_head(first(B))) < len(S) and last(S) in B and connected(a, b) and "
                    "not (true or false)")
    assert ir.pred_json(ir.Not(ir.Length("S", "==", 1))) == ["not", ["len", "S", "==", 1]]
    assert ir.term_text(ir.TFunc("-", ir.TVar("i"), ir.TInt(1))) == "i - 1"
