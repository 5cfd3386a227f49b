"""The bound head (:mod:`tsdsl.learn.bound`, the kernel's ``_bound.pxi``): greedy steps that
an unlabeled output wins by a bound, decided without the labeled weights.

The head holds, per bucket, the unlabeled outputs' weights and each family's largest labeled
weight (0 where a sparse row lacks one). It must equal what the full rows say (checked
against the decoded table, Hypothesis), and greedy parsing with it must choose exactly what
scoring every row chooses: the kernel's self-check (``Learner.group_check``) compares every
bound decision and sum with ``score()`` from scratch, the parses with the bound off are the
same, and a head whose bounds are too low makes the self-check fail, so its zero means
something.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import sparse_weight_tables
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn import TrainOptions, train
from tsdsl.learn import weights as wt
from tsdsl.learn.bound import HEAD_MAX, head_from_dense, head_from_table, head_layout
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.outputs import CLS_W, build_outputs, unit_names
from tsdsl.learn.parser import load_parser
from tsdsl.treebank.conllu import read_conllu

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
HASH_BITS = 11
LABELS = sorted({lab for s in read_conllu(TOY_TRAIN) for lab in s.deprels})


def reference_head(full: np.ndarray, layout) -> np.ndarray:
    """The head from full rows, as the module docstring defines it."""
    U = len(layout.unlabeled)
    head = np.zeros((len(full), layout.width), dtype=np.float32)
    head[:, :U] = full[:, layout.unlabeled]
    for f in range(layout.families):
        head[:, U + f] = full[:, layout.family == f].max(axis=1)
    return head


def decode(table: wt.ParseTable, C: int) -> np.ndarray:
    out = np.zeros((len(table.refs), C), dtype=np.float32)
    count = table.refs >> wt.REF_COUNT_SHIFT
    offset = table.refs & ((1 << wt.REF_COUNT_SHIFT) - 1)
    for b in np.flatnonzero(table.refs):
        if count[b] == wt.REF_DENSE:
            out[b] = table.dense[offset[b]]
        else:
            cols, weights = table.pairs(offset[b], offset[b] + count[b])
            out[b, cols] = weights
    return out


@st.composite
def output_tables(draw, C: int):
    """A kernel outputs table of C outputs: label ids (-1: unlabeled) and action units."""
    table = np.full((C, CLS_W), -1, dtype=np.int32)
    labels = draw(st.lists(st.integers(-1, 5), min_size=C, max_size=C))
    table[:, 0] = labels
    table[:, 1] = draw(st.lists(st.integers(0, draw(st.integers(0, 9))), min_size=C, max_size=C))
    return table


@settings(deadline=None, max_examples=int(os.environ.get("BOUND_EXAMPLES", 200)))  # BOUND_EXAMPLES=3000: a longer hunt
@given(st.data(), sparse_weight_tables(hash_bits=8), st.sampled_from(["float16", "float32"]), st.integers(1, 62))
def test_head_is_what_the_full_rows_say(data, sparse, precision, dense_from):
    outputs = data.draw(output_tables(sparse.outputs))
    layout = head_layout(outputs)
    if sparse.outputs == 1:
        assert layout is None  # one output is labeled or not: nothing to bound
        return
    labels = outputs[:, 0]
    if not (labels < 0).any() or not (labels >= 0).any() or (labels < 0).sum() + 1 > HEAD_MAX:
        assert layout is None
        return
    assert layout is not None
    assert len(layout.unlabeled) + layout.families <= layout.width <= HEAD_MAX
    # the outputs of one set of actions share a family, unless there are too many families
    keys = {tuple(outputs[c, 1:]) for c in np.flatnonzero(labels >= 0)}
    assert layout.families == (len(keys) if len(layout.unlabeled) + len(keys) <= HEAD_MAX else 1)
    table = wt.parse_table(wt.store(sparse, precision), 8, dense_from)
    full = decode(table, sparse.outputs)
    head = head_from_table(table, layout)
    assert head.dtype == (np.float16 if table.half else np.float32)
    assert np.array_equal(head.astype(np.float32), reference_head(full, layout))
    live = np.any(full != 0, axis=1).astype(np.uint8)
    assert np.array_equal(head_from_dense(full, live, layout), reference_head(full, layout))


def test_families_are_the_actions():
    """Covington's head: NO-ARC and SHIFT exactly, then LEFT-ARC's labels and RIGHT-ARC's."""
    for spec, expect in (("covington.ts", (2, 2)), ("arc-eager.ts", (2, 2)), ("arc-standard.ts", (1, 2))):
        system = load_system(REPO / "systems" / spec)
        kernel = compile_system(system, fallback=False)
        outputs = build_outputs(system, unit_names(kernel), LABELS)
        layout = head_layout(outputs.table)
        assert (None if layout is None else (len(layout.unlabeled), layout.families)) == expect


@pytest.fixture(scope="module")
def parsers(tmp_path_factory):
    """Toy models of three systems (2 epochs, gold tags), loaded as a user loads them: from the
    compact parse table, float16."""
    out = {}
    for spec in ("covington.ts", "covington-nm.ts", "arc-eager.ts"):
        path = tmp_path_factory.mktemp("bound") / spec
        train(str(REPO / "systems" / spec), str(TOY_TRAIN), str(TOY_DEV), str(path),
              TrainOptions(epochs=2, hash_bits=12, tagger=False, parser_tags="gold"), progress=None)
        out[spec] = load_parser(path)
    return out


def dense_engine(spec: str, seed: int = 3) -> Engine:
    """A dense float32 table (the path of the dev scores during training): random weights where
    the unlabeled outputs often win, by a margin the bound sees."""
    system = load_system(REPO / "systems" / spec)
    fs = load_features(default_features(system), system)
    kernel = compile_system(system, fallback=False)
    outputs = build_outputs(system, unit_names(kernel), LABELS)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((1 << HASH_BITS, len(outputs))).astype(np.float32)
    W[:, outputs.table[:, 0] < 0] += 2.0 * (rng.random((1 << HASH_BITS, 1)) < 0.5)
    return Engine(kernel, fs, outputs, HASH_BITS, weights=W)


def batch_of(engine: Engine, path: Path):
    return make_batch([columns_of(s) for s in read_conllu(path)], engine.features.token_attrs)


def parse(engine: Engine, batch, *, bound: bool, check: bool = False):
    learner = engine.learner
    learner.bound_outputs, learner.group_check = bound, check
    try:
        heads, labels, steps, _, _ = engine.parse(batch, beam=1)
    finally:
        learner.bound_outputs, learner.group_check = True, False
    return heads.copy(), labels.copy(), steps, learner.bound_steps, learner.group_mismatches


def same_choices(engine: Engine, batch) -> tuple[int, int]:
    """(steps, steps the bound decided), after checking the self-check's count is 0 and that
    the parses with the bound off are the same."""
    h1, l1, steps, bound_steps, mismatches = parse(engine, batch, bound=True, check=True)
    assert mismatches == 0
    h0, l0, steps0, none, _ = parse(engine, batch, bound=False)
    assert none == 0
    assert steps0 == steps and np.array_equal(h0, h1) and np.array_equal(l0, l1)
    engine.learner.legal_memo = False  # no legality patterns: one set of counters, families per step
    try:
        h2, l2, _, _, mismatches = parse(engine, batch, bound=True, check=True)
    finally:
        engine.learner.legal_memo = True
    assert mismatches == 0 and np.array_equal(h2, h1) and np.array_equal(l2, l1)
    return steps, bound_steps


@pytest.mark.parametrize("spec", ["covington.ts", "covington-nm.ts", "arc-eager.ts"])
def test_bound_decisions_of_a_trained_model_are_the_full_scores_choices(parsers, spec):
    engine = parsers[spec].engine
    assert engine.table is not None and engine.learner.head_width > 0
    for path in (TOY_DEV, TOY_TRAIN):
        steps, bound_steps = same_choices(engine, batch_of(engine, path))
        assert bound_steps > 0


@pytest.mark.parametrize("spec", ["covington.ts", "arc-eager.ts"])
def test_bound_decisions_from_a_dense_table(spec):
    engine = dense_engine(spec)
    steps, bound_steps = same_choices(engine, batch_of(engine, TOY_TRAIN))
    assert bound_steps > steps // 2


@pytest.mark.parametrize("spec", ["covington.ts", "covington-nm.ts", "arc-eager.ts"])
def test_the_check_fails_when_the_bound_is_too_low(parsers, spec):
    """A head whose family columns are lowered no longer bounds the labeled outputs: some
    steps go to an unlabeled output that scoring every row would not take, and the self-check
    counts them."""
    engine = parsers[spec].engine
    head = engine._head
    U = len(engine._head_layout.unlabeled)
    kept = head.copy()
    try:
        head[:, U:] -= np.float16(2)
        _, _, _, bound_steps, mismatches = parse(engine, batch_of(engine, TOY_TRAIN), bound=True, check=True)
    finally:
        head[...] = kept
    assert bound_steps > 0 and mismatches > 0
