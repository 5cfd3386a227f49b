"""The unlabeled oracle pass on records (emit_opass, ``FAST_OPASS``) against the generic
pass (``oracle_pass(..., fast=False)``): the same actions, final heads, sentence starts,
statuses and return values, for every packaged system the generator gives it and for
variants of them whose set-up differs (the root on the right, no root), on random trees
(non-projective ones get stuck), overflowing action logs and bad gold heads."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import trees
from tsdsl import load_system
from tsdsl.kernels import compile_system
from tsdsl.kernels.codegen import generate

from conftest import SYSTEMS


@functools.lru_cache(maxsize=None)
def _has_fast(path: str) -> bool:
    return "FAST_OPASS = 1" in generate(load_system(path)).source


# variants whose start the record pass lays out differently: (name, packaged spec, edits)
VARIANTS = {
    "arc-eager-root-none": ("arc-eager", [("root     left", "root     none"),
                                          ("initial  ([root], [1..n])", "initial  ([], [1..n])")]),
    "arc-standard-root-right": ("arc-standard", [("root     left", "root     right")]),
}
_VARIANT_DIR = Path(tempfile.mkdtemp(prefix="tsdsl-opass-"))


def _spec_path(name: str) -> Path:
    if name not in VARIANTS:
        return SYSTEMS / f"{name}.ts"
    base, edits = VARIANTS[name]
    text = (SYSTEMS / f"{base}.ts").read_text("utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path = _VARIANT_DIR / f"{name}.ts"
    path.write_text(text, "utf-8")
    return path


FAST = [p.stem for p in sorted(SYSTEMS.glob("*.ts")) if _has_fast(str(p))] + list(VARIANTS)


def test_the_fast_pass_covers_arc_eager():
    assert {"arc-eager", "arc-standard"} <= set(FAST)
    assert not _has_fast(str(SYSTEMS / "covington.ts"))  # reads inside a list: the generic pass
    for name in VARIANTS:
        assert _has_fast(str(_spec_path(name)))


@functools.lru_cache(maxsize=None)
def _kernel(name: str):
    ks = compile_system(_spec_path(name), fallback=False)
    assert ks.module.info()["fast_opass"]
    return ks


def _run(mod, heads, cap, fast):
    n_sent = len(heads)
    offs = np.zeros(n_sent + 1, np.int32)
    offs[1:] = np.cumsum([len(h) for h in heads])
    flat = np.array([x for h in heads for x in h], dtype=np.int32)
    acts = np.full(max(cap, 1), -7, np.int32)
    labs = np.full(max(cap, 1), -7, np.int32)
    out = np.full(len(flat), -7, np.int32)
    starts = np.full(n_sent + 1, -7, np.int32)
    status = np.full(n_sent, -7, np.int32)
    r = mod.oracle_pass(flat, offs, n_sent, None, 0, 0, acts, labs, cap, out, None, 0, starts, status, fast)
    return tuple(r), acts, labs, out, starts, status


def _same(mod, heads, cap):
    new, old = _run(mod, heads, cap, True), _run(mod, heads, cap, False)
    assert new[0] == old[0]
    for a, b in zip(new[1:], old[1:]):
        np.testing.assert_array_equal(a, b)
    return new[0]


@pytest.mark.parametrize("name", FAST)
@settings(deadline=None)
@given(data=st.data())
def test_fast_pass_is_the_generic_pass(name, data):
    mod = _kernel(name).module
    heads = [list(h) for h in data.draw(st.lists(trees(min_n=0, max_n=14), min_size=1, max_size=6))]
    if data.draw(st.booleans()):  # a gold head out of range
        i = data.draw(st.integers(0, len(heads) - 1))
        if heads[i]:
            j = data.draw(st.integers(0, len(heads[i]) - 1))
            heads[i][j] = data.draw(st.sampled_from([-3, -1, len(heads[i]) + 1, 999]))
    full = 4 * sum(len(h) + 1 for h in heads) + 16
    cap = data.draw(st.sampled_from([0, 1, 5, full // 3, full]))
    _same(mod, heads, cap)


@pytest.mark.parametrize("name", FAST)
def test_fast_pass_edge_cases(name):
    mod = _kernel(name).module
    _same(mod, [[], [0], [0, 1], [2, 0, 2]], 100)
    _same(mod, [[0] * 3], 100)  # three roots: stuck or another tree, as the generic pass
    _same(mod, [[2, 3, 0, 3, 4, 1]], 100)  # non-projective
    long = [0] + list(range(1, 300))  # a chain: deep stacks (recentring)
    _same(mod, [long, list(range(2, 301)) + [0]], 3000)
    _same(mod, [long], 10)  # the log overflows early
