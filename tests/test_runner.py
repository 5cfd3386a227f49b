"""The interpreter and the compiled kernel offer the one declared runner API."""

import inspect

import pytest

from tsdsl import Interpreter, load_system
from tsdsl.runner import Runner

from conftest import SYSTEMS


def _protocol_methods():
    return [name for name, v in vars(Runner).items() if callable(v) and not name.startswith("_")]


def _same_signature(cls, name):
    want = inspect.signature(getattr(Runner, name))
    got = inspect.signature(getattr(cls, name))
    return [p.name for p in want.parameters.values()][1:] == [p.name for p in got.parameters.values()][1:] \
        or [p.kind for p in want.parameters.values()] == [p.kind for p in got.parameters.values()]


def test_protocol_lists_the_shared_methods():
    assert set(_protocol_methods()) == {"initial", "copy", "is_terminal", "legal", "is_legal", "apply", "output",
                                        "snapshot"}


def test_interpreter_is_a_runner():
    it = Interpreter(load_system(SYSTEMS / "arc-eager.ts"))
    assert isinstance(it, Runner)
    for name in _protocol_methods():
        assert _same_signature(Interpreter, name), name


def test_compiled_kernel_is_a_runner():
    kernels = pytest.importorskip("tsdsl.kernels")
    from tsdsl.kernels.compiled import CompiledSystem
    for name in _protocol_methods():
        assert _same_signature(CompiledSystem, name), name
    k = kernels.compile_system(SYSTEMS / "arc-eager.ts")
    assert isinstance(k, Runner)
    c = k.initial(3)
    k.apply(c, "SHIFT")
    assert k.legal(c) == Interpreter(k.system).legal(_replay(k.system, ["SHIFT"]))


def _replay(system, actions):
    it = Interpreter(system)
    c = it.initial(3)
    for a in actions:
        it.apply(c, a)
    return c
