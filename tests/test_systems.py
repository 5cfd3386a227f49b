"""Every shipped spec in ``systems/`` loads and runs in the interpreter.

For each spec: it checks; every action points back into a file of its
``extends`` chain, at the line that defines it; random legal runs from the
initial configuration of 0, 1, 7 (and, for systems with a fixed action set,
500) words end (terminal or dead end) without exceptions; ``Interpreter.copy``
is independent of the original; ``output()`` has one head per word.
"""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest

from tsdsl import load_system
from tsdsl.interp import Interpreter
from tsdsl.treebank.trees import has_cycle, is_tree

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"
SPECS = sorted(SYSTEMS.glob("*.ts"))
IDS = [p.stem for p in SPECS]

_CACHE: dict[Path, Interpreter] = {}


def interpreter(path: Path) -> Interpreter:
    if path not in _CACHE:
        _CACHE[path] = Interpreter(load_system(path))
    return _CACHE[path]


def step_bound(n: int) -> int:
    """A generous bound on any run's length (Covington is quadratic)."""
    return 4 * n * n + 8 * n + 8


def random_run(it: Interpreter, n: int, seed: int):
    """Apply random legal actions until none is legal; returns (config, steps)."""
    rng = random.Random(seed)
    c = it.initial(n)
    steps = 0
    while True:
        legal = it.legal(c)
        if not legal:
            return c, steps
        it.apply(c, rng.choice(legal))
        steps += 1
        assert steps <= step_bound(n), f"no end after {steps} steps for n={n}"


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_loads(spec):
    system = load_system(spec)
    assert system.name
    assert system.style in ("control-parameters", "rewrite")
    assert system.root in ("left", "right", "none")
    assert system.sources[-1] == str(spec)
    assert len(system.actions_for(8)) >= 1


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_actions_are_located_in_the_file_chain(spec):
    system = load_system(spec)
    texts = {f: Path(f).read_text(encoding="utf-8").splitlines() for f in system.sources}
    for action in system.actions_for(8):
        span = action.origin
        assert span.file in system.sources, action.name
        assert span.line >= 1
        # the line it points at is where the transition is written
        line = texts[span.file][span.line - 1].strip()
        assert line.startswith(action.family), (action.name, line)
        for case in action.cases:
            assert case.origin.file == span.file and case.origin.line >= span.line


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_zero_words_is_terminal(spec):
    it = interpreter(spec)
    c = it.initial(0)
    assert it.is_terminal(c)
    assert it.legal(c) == []
    assert it.output(c).heads == ()


@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_random_runs_end(spec, n):
    it = interpreter(spec)
    for k in range(5 if n else 1):
        c, steps = random_run(it, n, seed=zlib.crc32(f"{spec.stem}/{n}/{k}".encode()))
        assert it.legal(c) == []
        tree = it.output(c)
        assert len(tree.heads) == n
        assert all(h is None or 0 <= h <= n for h in tree.heads)
        if it.is_terminal(c) and not it.system.multihead:
            assert not has_cycle(tree.heads)


BIG = [p for p in SPECS if not load_system(p).unbounded]  # capacity inf re-instantiates per length: too slow


@pytest.mark.parametrize("spec", BIG, ids=[p.stem for p in BIG])
def test_random_run_500_words(spec):
    it = interpreter(spec)
    c, steps = random_run(it, 500, seed=zlib.crc32(spec.stem.encode()))
    assert steps >= 1
    assert len(it.output(c).heads) == 500


# systems whose every terminal configuration holds a tree; True = exactly one word
# attached to the root (no artificial root token, so the last word is the root)
TREE_SYSTEMS = {
    "arc-standard": False, "arc-standard-slp": False, "arc-hybrid": False, "covington": False,
    "covington-nm": False, "arc-eager-tree-constrained": True, "easy-first": True, "easy-first-bounded": True,
}


@pytest.mark.parametrize("stem", sorted(TREE_SYSTEMS))
def test_terminal_configurations_hold_trees(stem):
    it = interpreter(SYSTEMS / f"{stem}.ts")
    ended = 0
    for k in range(20):
        c, _ = random_run(it, 7, seed=k)
        if it.is_terminal(c):
            ended += 1
            heads = it.output(c).heads
            assert is_tree(heads, single_root=TREE_SYSTEMS[stem]), heads
    assert ended > 0


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_copy_is_independent(spec):
    it = interpreter(spec)
    rng = random.Random(zlib.crc32(spec.stem.encode()))
    c = it.initial(6)
    # walk a few steps so that lists, arcs and flags are non-trivial
    for _ in range(4):
        legal = it.legal(c)
        if not legal:
            break
        it.apply(c, rng.choice(legal))
    before = it.snapshot(c)
    d = it.copy(c)
    assert it.snapshot(d) == before
    assert it.legal(d) == it.legal(c)
    # change the copy until it ends: the original must not move
    while it.legal(d):
        it.apply(d, rng.choice(it.legal(d)))
    assert it.snapshot(c) == before
    # and the other way round
    d2 = it.copy(c)
    snap2 = it.snapshot(d2)
    while it.legal(c):
        it.apply(c, rng.choice(it.legal(c)))
    assert it.snapshot(d2) == snap2
    # the copy shares no mutable container with the original
    assert d2.lists is not c.lists and all(a is not b for a, b in zip(d2.lists, c.lists))
    assert d2.heads is not c.heads and d2.labels is not c.labels
    assert all(d2.tflags[k] is not c.tflags[k] for k in c.tflags)
    assert d2.gflags is not c.gflags


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_output_has_n_heads(spec):
    it = interpreter(spec)
    for n in (1, 2, 5):
        c = it.initial(n)
        tree = it.output(c)
        assert tree.n == n == len(tree.labels)
        c, _ = random_run(it, n, seed=n)
        tree = it.output(c)
        assert tree.n == n == len(tree.labels)
