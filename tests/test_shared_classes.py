"""Classifier classes whose members are legal together, and actions that never apply, read
off the exhaustive configuration graph (tsdsl.verify.shared_classes): verify fails such a
spec with the configuration, `train` refuses it, and the compiled graph's check is the
interpreter's (a new user's arc-swift with SHIFT and RIGHT-ARC in one class trained silently,
and its parser never built a right arc)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsdsl import UsageError, load_system
from tsdsl.interp import Interpreter
from tsdsl.kernels import compile_system
from tsdsl.verify.shared_classes import class_clash, first_clash, first_clash_arrays, shared_classes
from tsdsl.verify.space import explore
from tsdsl.verify.verifier import render_verdict, verify_system

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"

# arc-eager whose SHIFT and RIGHT-ARC share a class: both are legal at once
AMBIGUOUS = f"""\
system ambiguous "arc-eager with SHIFT and RIGHT-ARC in one class"
  extends "{SYSTEMS / 'arc-eager.ts'}"
  SHIFT     : (σ, b|β)     => (σ|b, β)                   class MOVE
  RIGHT-ARC : (σ|s, b|β)   => (σ|s|b, β)   arc s -> b    class MOVE
"""

# arc-eager plus an action whose guard never holds (the root is at the left: b is a word)
NEVER = f"""\
system never "arc-eager with an action that never applies"
  extends "{SYSTEMS / 'arc-eager.ts'}"
  ROOTY     : (σ|s, b|β)   => (σ, b|β)     arc b -> s   if is_root(b)
"""


def spec(tmp_path: Path, text: str, name: str):
    path = tmp_path / f"{name}.ts"
    path.write_text(text, encoding="utf-8")
    return load_system(path)


def test_members_legal_together_fail_verify(tmp_path):
    system = spec(tmp_path, AMBIGUOUS, "ambiguous")
    for compiled in (None, compile_system(system, fallback=False)):
        v = verify_system(system, max_n=3, examples=0, compiled=compiled)
        assert v.shared_classes == ["MOVE"] and not v.ok
        assert v.class_clash.n == 1 and v.class_clash.actions == []
        assert "class MOVE: SHIFT and RIGHT-ARC are legal in the same configuration (n = 1, in the initial" \
            in v.class_clash.note
        text = render_verdict(v)
        assert "classes       FAIL" in text and "counterexample (classes), n = 1: the initial configuration" in text


def test_exclusive_members_hold(tmp_path):
    v = verify_system(load_system(SYSTEMS / "arc-eager-unshift.ts"), max_n=4, examples=0)
    assert v.shared_classes == ["POP"] and v.class_clash is None
    assert "at most one member of POP is legal in every configuration (n <= 4)" in render_verdict(v)
    plain = verify_system(load_system(SYSTEMS / "arc-eager.ts"), max_n=3, examples=0)
    assert plain.shared_classes == [] and "classes" not in render_verdict(plain) and plain.never_applied == []


def test_an_action_that_never_applies_is_noted(tmp_path):
    system = spec(tmp_path, NEVER, "never")
    v = verify_system(system, max_n=3, examples=0, compiled=compile_system(system, fallback=False))
    assert v.never_applied == ["ROOTY"]
    assert "note: ROOTY never applies in any configuration up to n = 3" in render_verdict(v)
    assert verify_system(system, max_n=3, examples=0).never_applied == ["ROOTY"]  # the interpreter agrees


def test_the_compiled_graph_finds_the_same_first_clash(tmp_path):
    # a clash only after some actions: UNSHIFT shares REDUCE's class without its guard
    system = spec(tmp_path, f"""\
system late "REDUCE and an unguarded UNSHIFT in one class"
  extends "{SYSTEMS / 'arc-eager-unshift.ts'}"
  UNSHIFT   : (σ|s, β)   => (σ, s|β)    if not is_root(s)   class POP
""", "late")
    cs = compile_system(system, fallback=False)
    it = Interpreter(system)
    for n in (1, 2, 3):
        shared = shared_classes(system, n)
        g, cg = explore(it, n), cs.explore(n)
        a = first_clash(([x for x, _ in out] for out in g.edges), shared)
        b = first_clash_arrays(cg.edge_at, cg.edge_action, cg.actions, shared)
        assert (a is None) == (b is None)
        if a is not None:
            assert g.path_to(a[0]) == cg.path_to(b[0]) and a[1:] == b[1:] == ("POP", ("REDUCE", "UNSHIFT"))
    clash = class_clash(system, 4)
    assert clash is not None and clash.members == ("REDUCE", "UNSHIFT") and clash.actions


def test_train_refuses_an_ambiguous_class(tmp_path):
    from tsdsl.learn import TrainOptions, train

    path = tmp_path / "ambiguous.ts"
    path.write_text(AMBIGUOUS, encoding="utf-8")
    treebank = tmp_path / "t.conllu"
    treebank.write_text("1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    with pytest.raises(UsageError, match="class MOVE: SHIFT and RIGHT-ARC are legal in the same configuration"):
        train(str(path), str(treebank), None, str(tmp_path / "m"), TrainOptions(epochs=1, hash_bits=12),
              progress=None)
    assert not (tmp_path / "m").exists()
