"""Suffix lists (tsdsl.ir.runs): the lists proved to hold the last tokens of the sentence in
order, checked along random derivations of every packaged spec and reading, and the
systems that push words back left out."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tsdsl.interp import Interpreter
from tsdsl.ir.runs import initial_token_lists, last_token, suffix_lists
from tsdsl.lang.load import load_system_text, packaged_systems

from strategies import legal_action_sequences

SPECS = [name for name, _ in packaged_systems(readings=True)]


@functools.lru_cache(maxsize=None)
def _interp(name: str) -> Interpreter:
    path = dict(packaged_systems(readings=True))[name]
    return Interpreter(load_system_text(path.read_text(encoding="utf-8"), str(path)))


def test_the_buffers_of_the_seed_systems():
    """What the rule proves on the seed specs: a buffer that only loses its first words is a
    suffix list; one that takes words back (SWAP, UNSHIFT) or starts without the root that
    follows it is not; capacity inf systems are left out."""
    found = {name: suffix_lists(_interp(name).system) for name in SPECS}
    assert found["covington-nm"] == found["covington"] == {"beta"}
    assert found["arc-eager"] == {"beta"} and found["arc-hybrid"] == {"U"}
    assert found["arc-standard-swap"] == found["arc-eager-unshift"] == frozenset()
    assert found["easy-first"] == found["easy-first-nonproj"] == frozenset()


@pytest.mark.parametrize("name", SPECS)
def test_initial_lists_as_the_kernel_lays_them_out(name):
    """The interpreter's initial lists are :func:`initial_token_lists`; the compiled kernel's
    ``st_start`` is generated separately, and must lay them out the same."""
    from tsdsl.kernels import compile_system

    interp = _interp(name)
    if interp.system.unbounded:
        pytest.skip("capacity inf: no suffix lists")
    kernel = compile_system(interp.system, fallback=False)
    names = [d.name for d in interp.system.lists]
    for n in range(0, 7):
        lists = kernel.snapshot(kernel.initial(n))["lists"]
        assert initial_token_lists(interp.system, n) == [list(lists[x]) for x in names]


@pytest.mark.parametrize("name", SPECS)
@settings(max_examples=25, deadline=None)
@given(data=st.data(), n=st.integers(1, 7))
def test_suffix_lists_hold_the_last_tokens_along_random_derivations(name, data, n):
    interp = _interp(name)
    proved = suffix_lists(interp.system)
    if not proved:
        return
    index = {d.name: k for k, d in enumerate(interp.system.lists)}
    c = interp.initial(n)
    last = last_token(interp.system, n)
    for action in [None] + data.draw(legal_action_sequences(interp, n)):
        if action is not None:
            interp.apply(c, action)
        for name_ in proved:
            tokens = list(c.lists[index[name_]])
            assert not tokens or tokens == list(range(tokens[0], last + 1)), (action, tokens)


PUSH_BACK = """
system push_back "a buffer that takes a word back"
  produces projective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal (σ, [])

  SHIFT     : (σ, b|β)   => (σ|b, β)
  LEFT-ARC  : (σ|s, b|β) => (σ, b|β)     arc b -> s
  RIGHT-ARC : (σ|s, b|β) => (σ, s|β)     arc s -> b
"""
ARC_EAGER_RIGHT = "  RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β)   arc s -> b"


def test_a_buffer_that_takes_a_word_back_is_not_a_suffix_list():
    """A case that moves another token into the buffer (arc-standard's RIGHT-ARC after Nivre
    2004 puts the stack's top back) breaks the proof, and the rule says so; with
    arc-eager's RIGHT-ARC instead the same spec is proved."""
    assert suffix_lists(load_system_text(PUSH_BACK)) == frozenset()
    kept = PUSH_BACK.replace("  RIGHT-ARC : (σ|s, b|β) => (σ, s|β)     arc s -> b", ARC_EAGER_RIGHT)
    assert kept != PUSH_BACK
    assert suffix_lists(load_system_text(kept)) == {"beta"}  # (the spec's β, by its ASCII name)
