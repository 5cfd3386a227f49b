"""Shortcuts greedy parsing takes that must not change a parse.

- ``parse_greedy`` takes a step with one legal output without scoring it, and scores a
  step with at most ``FEW_OUTPUTS`` legal outputs (Covington's NO-ARC and SHIFT once both
  focus words have heads) for those outputs alone, a few weights of each row
  (``score_few``).  With ``Learner.few_outputs`` off every step scores every output.
- ``parse_instances`` (capacity inf) works out each instance's best output per family when
  it scores the instance, and compares those at later steps.  With ``Learner.unit_best``
  off every output of every legal instance is compared at every step.  The LEFT and RIGHT
  instances of a pair look their scores up once a step, and the instances a batch's table
  (the longest sentence's) holds past a shorter sentence are skipped: each sentence must
  parse the same in a batch as alone.

Random float16 weights (sparse and full rows, read from the dense table or the parse-time
table) must give the same parses either way, and with the self-check on
(``Learner.group_check``) the few outputs' scores must be those recomputed from scratch,
bit for bit.  The shortcut counters show the shortcuts were taken.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import columns_of_tagged, random_stored_weights, tagged_sentences
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn import weights as wt
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.treebank.conllu import read_conllu

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
HASH_BITS = 10
GREEDY = {"covington": "covington.ts", "covington-nm": "covington-nm.ts", "arc-eager": "arc-eager.ts",
          "covington-ungrouped": "covington.ts"}
# fewer than 3 templates per anchor: no scoring group, so the few outputs go through score_few
UNGROUPED = """templates:
  - s0.w
  - s0.p
  - b0.w
  - b0.p
  - s0.p + b0.p
  - s0.w + b0.w
  - s1.p + s0.p + b0.p
"""
INSTANCES = {"easy-first": "easy-first.ts", "easy-first-nonproj": "easy-first-nonproj.ts"}
LABELS = sorted({w.deprel for s in read_conllu(TOY_TRAIN) for w in s.words})
WORDS = sorted({(w, p) for s in read_conllu(TOY_TRAIN) for w, p in zip(s.forms, s.upos)})
SEEDS = st.integers(0, 2**32 - 1)
DENSITIES = st.sampled_from([0.05, 0.3, 1.0])  # of the sparse rows (a tenth of the rows are full)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    ungrouped = tmp_path_factory.mktemp("features") / "ungrouped.yaml"
    ungrouped.write_text(UNGROUPED, encoding="utf-8")
    out = {}
    for name, spec in {**GREEDY, **INSTANCES}.items():
        system = load_system(REPO / "systems" / spec)
        kernel = compile_system(system, fallback=False)
        features = load_features(ungrouped if name == "covington-ungrouped" else default_features(system), system)
        out[name] = (kernel, features, build_outputs(system, unit_names(kernel), LABELS))
    return out


def engine_of(kernels, name: str, seed: int, density: float, compact: bool) -> Engine:
    kernel, features, outputs = kernels[name]
    stored = random_stored_weights(seed, len(outputs), density, 0.1, hash_bits=HASH_BITS)
    if compact:
        engine = Engine(kernel, features, outputs, HASH_BITS, table=wt.parse_table(stored, HASH_BITS))
    else:
        engine = Engine(kernel, features, outputs, HASH_BITS, weights=wt.dense(stored, HASH_BITS))
    # the steps every choice of which reaches one configuration are scored here too, so that the
    # few outputs' shortcut is tested on them (their own shortcut: tests/test_forced_chains.py)
    engine.learner.forced_chains = False
    return engine


def toy_batch(engine: Engine, path: Path = TOY_DEV):
    return make_batch([columns_of(s) for s in read_conllu(path)], engine.features.token_attrs)


def parse_with(engine: Engine, batch, switch: str, on: bool):
    setattr(engine.learner, switch, on)
    try:
        return engine.parse(batch, beam=1)
    finally:
        setattr(engine.learner, switch, True)


def assert_same(a, b):
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[2:4] == b[2:4]  # transitions, stuck sentences


@settings(deadline=None, max_examples=25)
@given(seed=SEEDS, density=DENSITIES, name=st.sampled_from(sorted(GREEDY)), compact=st.booleans())
def test_few_legal_outputs_parse_as_every_output_scored(kernels, seed, density, name, compact):
    engine = engine_of(kernels, name, seed, density, compact)
    batch = toy_batch(engine, TOY_TRAIN)
    plain = parse_with(engine, batch, "few_outputs", False)
    assert engine.learner.few_steps == 0
    short = parse_with(engine, batch, "few_outputs", True)
    assert_same(short, plain)
    if name in ("covington", "covington-ungrouped"):  # NO-ARC and SHIFT (or SHIFT) alone, often
        assert engine.learner.few_steps > short[2] // 5
    assert (engine.groups.count == 0) == (name == "covington-ungrouped")


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("name", ["covington", "covington-nm", "covington-ungrouped"])
def test_few_output_scores_are_the_scores_from_scratch(kernels, name, compact):
    engine = engine_of(kernels, name, 7, 0.3, compact)
    engine.learner.group_check = True
    try:
        engine.parse(toy_batch(engine, TOY_TRAIN), beam=1)
    finally:
        engine.learner.group_check = False
    assert engine.learner.group_mismatches == 0
    assert engine.learner.few_steps > 0


@settings(max_examples=20, deadline=None)
@given(tagged_sentences(WORDS), SEEDS)
def test_few_outputs_on_random_sentences(kernels, sentences, seed):
    engine = engine_of(kernels, "covington", seed, 0.3, True)
    batch = make_batch(columns_of_tagged(sentences), engine.features.token_attrs)
    assert_same(parse_with(engine, batch, "few_outputs", True), parse_with(engine, batch, "few_outputs", False))


@settings(deadline=None, max_examples=20)
@given(seed=SEEDS, density=DENSITIES, name=st.sampled_from(sorted(INSTANCES)), compact=st.booleans())
def test_instance_bests_parse_as_every_output_compared(kernels, seed, density, name, compact):
    engine = engine_of(kernels, name, seed, density, compact)
    batch = toy_batch(engine, TOY_TRAIN)
    assert_same(parse_with(engine, batch, "unit_best", True), parse_with(engine, batch, "unit_best", False))


def test_instance_bests_keep_the_first_of_equal_scores(kernels):
    """All weights zero: every output of every instance ties, and the first legal instance's
    first output wins, as when every output is compared."""
    kernel, features, outputs = kernels["easy-first"]
    zero = np.zeros((1 << HASH_BITS, len(outputs)), dtype=np.float32)
    engine = Engine(kernel, features, outputs, HASH_BITS, weights=zero)
    batch = toy_batch(engine)
    assert_same(parse_with(engine, batch, "unit_best", True), parse_with(engine, batch, "unit_best", False))


@settings(deadline=None, max_examples=10)
@given(seed=SEEDS, name=st.sampled_from(sorted(INSTANCES)))
def test_instances_past_a_short_sentence_are_skipped_safely(kernels, seed, name):
    """A batch's action table is its longest sentence's: the instances whose indexes lie past a
    shorter sentence are skipped without asking their guards.  Each sentence parses the same in
    the batch as alone (with a table of its own length)."""
    engine = engine_of(kernels, name, seed, 0.3, True)
    sentences = read_conllu(TOY_TRAIN)
    together = engine.parse(toy_batch(engine, TOY_TRAIN), beam=1)
    assert together[3] == 0  # no sentence left without a legal instance
    k = 0
    for s in sentences:
        alone = engine.parse(make_batch([columns_of(s)], engine.features.token_attrs), beam=1)
        assert np.array_equal(alone[0], together[0][k:k + s.n]) and np.array_equal(alone[1], together[1][k:k + s.n])
        k += s.n


def test_a_sentence_has_no_instance_indexed_past_its_tokens():
    """What the skip above rests on: the instances of a sentence of n tokens (those the
    interpreter knows, ``actions_for(n)``) index positions 1..n only, below the kernel's
    ``ntok`` (n words + 2), so an instance indexed at ``ntok`` or past it is never one of them."""
    unbounded = [s for s in map(load_system, sorted((REPO / "systems").glob("*.ts"))) if s.unbounded]
    assert len(unbounded) >= 2  # easy-first, non-projective easy-first
    for system in unbounded:
        for n_tokens in range(1, 13):
            for action in system.actions_for(n_tokens):
                assert all(0 <= i <= n_tokens for i in action.indexes), (system.name, n_tokens, action.name)

