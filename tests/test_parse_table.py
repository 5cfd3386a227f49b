"""The parse-time weight table (:func:`tsdsl.learn.weights.parse_table`, the kernel's
``score_sparse``) against the dense table it replaces.

Parsing a loaded model reads a compact table (sparse rows as (output, weight) pairs, full rows
dense) instead of the dense ``[2**hash_bits, outputs]`` expansion.  It must be the same
classifier bit for bit: the same weights, and the same parses (heads, labels, transitions)
as the dense path, for every search (greedy, beam, capacity-inf instances) and every
row-density threshold.  The weights are random (Hypothesis draws the seed and the density)
or trained on the toy treebank (``docs/examples/toy-*.conllu``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import random_stored_weights, sparse_weight_tables
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn import TrainOptions, train
from tsdsl.learn import weights as wt
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import ROW_SLACK, Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.model import load
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.learn.parser import Parser, already_trees, bind, finished_heads, load_parser
from tsdsl.treebank.conllu import read_conllu
from tsdsl.treebank.trees import is_tree

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
HASH_BITS = 10
# greedy bounded systems, a non-monotonic one, one with unlabeled arcs (noted labels), and
# capacity inf (family instances)
SYSTEMS = {
    "arc-eager": ("arc-eager.ts", {}),
    "covington": ("covington.ts", {}),
    "covington-nm": ("covington-nm.ts", {}),
    "nm-2013": ("arc-eager-nm-2013.ts", {}),
    "easy-first-k3": ("easy-first-bounded.ts", {"K": 3}),
    "easy-first": ("easy-first.ts", {}),
}


def decode(table: wt.ParseTable, rows: int, C: int) -> np.ndarray:
    """The dense table a parse table stands for (read back in Python, as the kernel does)."""
    out = np.zeros((rows, C), dtype=np.float32)
    count = table.refs >> wt.REF_COUNT_SHIFT
    offset = table.refs & ((1 << wt.REF_COUNT_SHIFT) - 1)
    for b in np.flatnonzero(table.refs):
        if count[b] == wt.REF_DENSE:
            out[b] = table.dense[offset[b]]
        else:
            cols, weights = table.pairs(offset[b], offset[b] + count[b])
            out[b, cols] = weights
    return out


@settings(deadline=None)
@given(sparse_weight_tables(hash_bits=HASH_BITS), st.sampled_from(sorted(wt.PRECISIONS)), st.integers(1, 62),
       st.sampled_from([1, 3, 64, 1 << 15]))
def test_parse_table_holds_exactly_the_stored_weights(sparse, precision, dense_from, chunk_rows):
    """Whatever the threshold, and however many stored rows each step of the build takes."""
    stored = wt.store(sparse, precision)
    table = wt.parse_table(stored, HASH_BITS, dense_from, chunk_rows=chunk_rows)
    assert np.array_equal(decode(table, 1 << HASH_BITS, sparse.outputs), wt.dense(stored, HASH_BITS))
    counts = np.zeros(1 << HASH_BITS, dtype=np.int64)
    counts[stored.rows] = stored.counts
    assert len(table.dense) == np.count_nonzero(counts >= dense_from)
    assert len(table.entries) == counts[counts < dense_from].sum()
    # float16 weights of scale 1 keep their pairs packed in 4 bytes, the others in 8
    assert table.half == (precision == "float16" and bool(np.all(stored.scale == 1)))
    assert table.entries.dtype == (np.uint32 if table.half else np.int32)
    assert table.entries.ndim == (1 if table.half else 2)


def test_the_kernel_refuses_a_packed_pair_outside_the_outputs(kernels):
    kernel, features, outputs = kernels["arc-eager"]
    C = len(outputs)
    stored = wt.store(wt.SparseWeights(np.array([5 * C + 1], np.int64), np.array([0.5], np.float32), C), "float16")
    table = wt.parse_table(stored, HASH_BITS)
    assert table.half and table.pairs(0, 1)[0].tolist() == [1] and table.pairs(0, 1)[1].tolist() == [0.5]
    table.entries[0] = (table.entries[0] & 0xFFFF0000) | C  # output C: one past the last
    with pytest.raises(ValueError, match="out of range"):
        Engine(kernel, features, outputs, HASH_BITS, table=table)


def test_the_default_threshold_grows_with_the_outputs():
    # one 32nd of the outputs, within [DENSE_FROM, REF_DENSE - 1]: 3 for NM Covington's 110
    # outputs, 4 for arc-eager's 146, 13 for the 433 of easy-first K = 4, never past what a
    # reference can count
    assert wt.DENSE_FROM == 3
    assert [wt.dense_from_for(C) for C in (2, 110, 146, 289, 433, 2000)] == [3, 3, 4, 9, 13, 62]
    counts = np.array([3, 5, 20], np.int64)
    for C in (110, 146, 433):  # three rows of 3, 5 and 20 weights over C outputs
        index = np.concatenate([r * C + np.arange(k) for r, k in enumerate(counts)])
        stored = wt.store(wt.SparseWeights(index, np.ones(len(index), np.float32), C), "float16")
        table = wt.parse_table(stored, 4)
        assert len(table.dense) == np.count_nonzero(counts >= wt.dense_from_for(C)) == {110: 3, 146: 2, 433: 1}[C]
        assert len(table.entries) == counts[counts < wt.dense_from_for(C)].sum()


def test_parse_table_refuses_a_bad_threshold():
    stored = wt.store(wt.SparseWeights(np.array([3], np.int64), np.array([1.0], np.float32), 2))
    for bad in (0, wt.REF_DENSE, 100):
        with pytest.raises(ValueError, match="dense_from"):
            wt.parse_table(stored, 4, bad)


@pytest.fixture(scope="module")
def kernels():
    """Per system: its kernel, feature set and outputs over the toy treebank's labels."""
    labels = sorted({w.deprel for s in read_conllu(TOY_TRAIN) for w in s.words})
    out = {}
    for name, (spec, overrides) in SYSTEMS.items():
        system = load_system(REPO / "systems" / spec, overrides or None)
        kernel = compile_system(system, fallback=False)
        features = load_features(default_features(system), system)
        out[name] = (kernel, features, build_outputs(system, unit_names(kernel), labels))
    return out


@pytest.fixture(scope="module")
def dev_batches(kernels):
    sentences = read_conllu(TOY_DEV)
    return {name: make_batch([columns_of(s) for s in sentences], f.token_attrs)
            for name, (_, f, _) in kernels.items()}


def random_weights(seed: int, C: int, density: float, full_rows: float, magnitudes=(-2, 2)) -> wt.StoredWeights:
    return random_stored_weights(seed, C, density, full_rows, magnitudes, hash_bits=HASH_BITS)


def same_parses(kernel, features, outputs, stored, batch, *, dense_from: int = 16, beam: int = 1):
    # dense_from 16 (not the default rule): the random tables keep rows of both kinds
    dense = Engine(kernel, features, outputs, HASH_BITS, weights=wt.dense(stored, HASH_BITS))
    sparse = Engine(kernel, features, outputs, HASH_BITS, table=wt.parse_table(stored, HASH_BITS, dense_from))
    a, b = dense.parse(batch, beam=beam), sparse.parse(batch, beam=beam)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[2:4] == b[2:4]  # transitions, stuck sentences
    return a


@settings(deadline=None, max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), density=st.sampled_from([0.0, 0.02, 0.2]),
       full_rows=st.sampled_from([0.0, 0.05, 0.5]), dense_from=st.integers(1, 62),
       name=st.sampled_from(sorted(SYSTEMS)))
def test_random_weights_parse_the_same_from_either_table(kernels, dev_batches, seed, density, full_rows,
                                                         dense_from, name):
    kernel, features, outputs = kernels[name]
    stored = random_weights(seed, len(outputs), density, full_rows)
    same_parses(kernel, features, outputs, stored, dev_batches[name], dense_from=dense_from)


@settings(deadline=None, max_examples=10)
@given(seed=st.integers(0, 2**32 - 1), width=st.integers(2, 4))
def test_beam_search_parses_the_same_from_either_table(kernels, dev_batches, seed, width):
    kernel, features, outputs = kernels["arc-eager"]
    stored = random_weights(seed, len(outputs), 0.05, 0.1)
    same_parses(kernel, features, outputs, stored, dev_batches["arc-eager"], beam=width)


@pytest.fixture(scope="module")
def toy_model(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("parse-table") / "arc-eager"
    train(str(REPO / "systems" / "arc-eager.ts"), str(TOY_TRAIN), str(TOY_DEV), str(out),
          TrainOptions(epochs=2, hash_bits=12, tagger=False, parser_tags="gold"), progress=None)
    return out


def test_a_loaded_model_parses_from_the_compact_table_as_from_the_dense_one(toy_model):
    model = load(toy_model)
    assert model.weights is None  # not expanded at load
    parser = load_parser(toy_model)
    assert parser.engine.table is not None and parser.engine.W is None
    dense = Parser(model, bind(model, weights=model.dense_weights()))
    assert dense.engine.table is None
    sentences = read_conllu(TOY_DEV)
    a, _ = parser.parse_sentences(sentences)
    b, _ = dense.parse_sentences(sentences)
    assert [s.to_text() for s in a] == [s.to_text() for s in b]


def test_a_parse_only_learner_refuses_to_train(toy_model, kernels, dev_batches):
    parser = load_parser(toy_model)
    batch = dev_batches["arc-eager"]
    order = np.arange(batch.sentences, dtype=np.int32)
    heads = np.zeros(batch.words + 1, dtype=np.int32)
    with pytest.raises(ValueError, match="dense weight table"):
        parser.engine.learner.train_greedy(heads, heads, batch.offsets, batch.tokens, order, 0, 0, 0.0, 1)


@settings(deadline=None, max_examples=10)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(sorted(SYSTEMS)), f16c=st.booleans(),
       wide=st.booleans())
def test_float16_rows_widen_exactly(kernels, dev_batches, seed, name, f16c, wide):
    """The dense rows of float16 weights stay float16 in the parse table and are widened as
    they are added, by F16C (with AVX-512 or AVX2 vectors) or by hand: tiny weights (float16
    subnormals, 1e-7 to 1e-5) and signed zeros decide the parses here, so a wrong widening
    would show."""
    kernel, features, outputs = kernels[name]
    stored = random_weights(seed, len(outputs), 0.3, 0.3, magnitudes=(-7, -4))
    assert wt.parse_table(stored, HASH_BITS).dense.dtype == np.float16
    assert np.any(np.abs(stored.values.astype(np.float32)) < 6.1e-5)  # some are subnormal
    kernel.module.float16_widening(f16c)
    kernel.module.wide_vectors(wide)
    try:
        same_parses(kernel, features, outputs, stored, dev_batches[name])
    finally:
        kernel.module.float16_widening(True)
        kernel.module.wide_vectors(True)


@settings(deadline=None, max_examples=10)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(sorted(SYSTEMS)))
def test_wide_vectors_give_the_same_scores(kernels, dev_batches, seed, name):
    """The row adds on AVX-512 (where the CPU has it) and on AVX2 give the same parses:
    random weights, where any score differing in its last bit would soon change a step."""
    kernel, features, outputs = kernels[name]
    stored = random_weights(seed, len(outputs), 0.2, 0.3)
    engine = Engine(kernel, features, outputs, HASH_BITS, table=wt.parse_table(stored, HASH_BITS))
    batch = dev_batches[name]
    try:
        wide = [kernel.module.wide_vectors(True), engine.parse(batch, beam=1)]
        narrow = [kernel.module.wide_vectors(False), engine.parse(batch, beam=1)]
    finally:
        kernel.module.wide_vectors(True)
    assert not narrow[0]
    a, b = wide[1], narrow[1]
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2:4] == b[2:4]


@settings(deadline=None, max_examples=10)
@given(seed=st.integers(0, 2**32 - 1), density=st.sampled_from([0.02, 0.3]),
       name=st.sampled_from(["covington", "covington-nm", "easy-first"]))
def test_kept_sums_from_the_parse_table_are_the_scores_from_scratch(kernels, dev_batches, seed, density, name):
    """Scoring groups on the parse-time table: the kept sums (a step extracting only the
    atoms of the templates it hashes, a group made again from the kept sum of its templates
    that read no arc) give the scores of score() from scratch bit for bit."""
    kernel, features, outputs = kernels[name]
    stored = random_weights(seed, len(outputs), density, 0.3)
    engine = Engine(kernel, features, outputs, HASH_BITS, table=wt.parse_table(stored, HASH_BITS))
    assert engine.groups is not None and engine.groups.count > 0
    learner = engine.learner
    learner.group_check = True
    try:
        engine.parse(dev_batches[name], beam=1)
    finally:
        learner.group_check = False
    assert learner.group_mismatches == 0


@settings(deadline=None, max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), density=st.sampled_from([0.02, 0.2]),
       name=st.sampled_from(sorted(n for n in SYSTEMS if n != "easy-first")))
def test_legal_outputs_memo_parses_as_every_step_worked_out(kernels, dev_batches, seed, density, name):
    """Greedy parsing takes the legal outputs from a memo per legality pattern; with the memo
    off (every output's units worked out at every step, as before) the parses are the same."""
    kernel, features, outputs = kernels[name]
    engine = Engine(kernel, features, outputs, HASH_BITS,
                    weights=wt.dense(random_weights(seed, len(outputs), density, 0.05), HASH_BITS))
    memo = engine.parse(dev_batches[name])
    engine.learner.legal_memo = False
    plain = engine.parse(dev_batches[name])
    assert np.array_equal(memo[0], plain[0]) and np.array_equal(memo[1], plain[1]) and memo[2:4] == plain[2:4]


@settings(deadline=None)
@given(st.lists(st.lists(st.integers(-2, 8), max_size=8), max_size=6))
def test_already_trees_agrees_with_is_tree(sentences):
    """The parser's batch check (which sentences skip the repair) against the reference."""

    offsets = np.zeros(len(sentences) + 1, dtype=np.int32)
    np.cumsum([len(s) for s in sentences], out=offsets[1:])
    heads = np.asarray([h for s in sentences for h in s], dtype=np.int32)
    got = already_trees(heads, offsets).tolist()
    assert got == [bool(s) and is_tree([None if h < 0 else h for h in s]) for s in sentences]


@settings(deadline=None)
@given(st.sampled_from(["covington.ts", "arc-eager.ts", "easy-first.ts"]),
       st.lists(st.lists(st.integers(-1, 8), max_size=8), max_size=6))
def test_finished_heads_is_the_end_of_parse_rule(spec, sentences):
    """The batch form of the end-of-parse rule (which lets a sentence it makes a tree skip the
    repair) against System.finish, sentence by sentence."""
    system = load_system(REPO / "systems" / spec)
    offsets = np.zeros(len(sentences) + 1, dtype=np.int32)
    np.cumsum([len(s) for s in sentences], out=offsets[1:])
    heads = np.asarray([h for s in sentences for h in s], dtype=np.int32)
    got = finished_heads(system.headless_rule, heads, offsets).tolist()
    want = []
    for s in sentences:
        hs, ls = list(s), [None] * len(s)
        system.finish(hs, ls)
        want += [-1 if h is None or h < 0 else h for h in hs]
    assert got == want


def test_parsing_pauses_the_cycle_collector_and_restores_it(toy_model):
    """parse_sentences turns Python's cycle collector off for the batch and back to what it was,
    also when it fails."""
    import gc

    from tsdsl.gcpause import cyclic_gc_paused

    parser = load_parser(toy_model)
    sentences = read_conllu(TOY_DEV)[:3]
    assert gc.isenabled()
    parser.parse_sentences(sentences)
    assert gc.isenabled()
    gc.disable()
    try:
        parser.parse_sentences(sentences)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with cyclic_gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("inside")
    assert gc.isenabled()


def test_the_kernel_reads_the_tables_own_rows(kernels):
    """The dense rows are most of a parsing process's memory: the engine hands the kernel the
    buffer parse_table built them in (its ROW_SLACK zeros included), not a copy; a table made
    another way (no such buffer) is copied with the zeros added."""
    kernel, features, outputs = kernels["arc-eager"]
    table = wt.parse_table(random_weights(1, len(outputs), 0.3, 0.3), HASH_BITS)
    engine = Engine(kernel, features, outputs, HASH_BITS, table=table)
    assert engine._dense is table.flat and np.shares_memory(engine._dense, table.dense)
    other = wt.ParseTable(table.refs, table.entries, table.dense.copy())
    copied = other.kernel_dense()
    assert not np.shares_memory(copied, other.dense) and len(copied) == other.dense.size + ROW_SLACK
    assert np.array_equal(copied[:other.dense.size], other.dense.reshape(-1)) and not copied[-ROW_SLACK:].any()
    table.flat[-1] = 1  # a buffer whose slack is not zeros is not taken as it is
    assert table.kernel_dense() is not table.flat


def test_float16_rows_need_their_slack(kernels):
    """The kernel reads a float16 row's last outputs as one vector, a few weights past the
    row: a table without ROW_SLACK zeros after its last row is refused, not over-read."""
    kernel, features, outputs = kernels["arc-eager"]
    table = wt.parse_table(random_weights(1, len(outputs), 0.3, 0.3), HASH_BITS)
    assert table.half and len(table.dense)
    engine = Engine(kernel, features, outputs, HASH_BITS, table=table)
    assert len(engine._dense) == table.dense.size + ROW_SLACK and not engine._dense[-ROW_SLACK:].any()
    bare = np.ascontiguousarray(table.dense).reshape(-1)
    with pytest.raises(ValueError, match="dense rows: expected at least"):
        engine.learner.set_sparse(engine._refs, engine._entries, len(table.entries), bare, len(table.dense))
