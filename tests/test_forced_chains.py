"""Greedy steps taken without scores because every choice reaches one configuration.

At a step with two legal outputs x and y, ``parse_greedy`` applies y at once when the kernel
shows, on scratch configurations, that applying x again and again leaves only x and y legal,
that y at any of those configurations gives y(s), and that the run of x ends where only y is
legal (``_chains.pxi``).  Then whatever the model would choose there, the parse goes on from
y(s): Covington's parser scanning λ1 with NO-ARC once neither arc is legal for the rest of
the scan.  With ``Learner.forced_chains`` off every step is scored.

Random weights must give the same heads, labels and stuck sentences either way, for every
bounded system with a default feature set, on the toy treebank and on random sentences
(Hypothesis), with fewer transitions where steps were skipped.  A Covington variant whose
SHIFT leaves λ2 where it is (so NO-ARC ... SHIFT and SHIFT differ) must never skip: the check
is what keeps the parses the same, and this is where it would fail.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import columns_of_tagged, random_stored_weights, tagged_sentences
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system, load_system_text
from tsdsl.learn import weights as wt
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.treebank.conllu import read_conllu

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
HASH_BITS = 10
SYSTEMS = {"covington": "covington.ts", "covington-nm": "covington-nm.ts", "arc-eager": "arc-eager.ts",
           "arc-standard": "arc-standard.ts", "arc-hybrid": "arc-hybrid.ts", "attardi": "attardi.ts",
           "nm-2013": "arc-eager-nm-2013.ts", "arc-standard-swap": "arc-standard-swap.ts"}
# SHIFT keeps λ2: after NO-ARC the lists differ from SHIFT's, so no step is forced this way
STAY = """system covington_stay "Covington whose SHIFT leaves λ2 (a test variant)"
  extends "covington.ts"
  SHIFT : (λ1, λ2, j|β) => (λ1|j, λ2, β)
"""
LABELS = sorted({w.deprel for s in read_conllu(TOY_TRAIN) for w in s.words})
WORDS = sorted({(w, p) for s in read_conllu(TOY_TRAIN) for w, p in zip(s.forms, s.upos)})
SEEDS = st.integers(0, 2**32 - 1)


@pytest.fixture(scope="module")
def kernels():
    out = {}
    systems = {name: load_system(REPO / "systems" / spec) for name, spec in SYSTEMS.items()}
    systems["covington-stay"] = load_system_text(STAY, str(REPO / "systems" / "covington-stay.ts"))
    for name, system in systems.items():
        kernel = compile_system(system, fallback=False)
        out[name] = (kernel, load_features(default_features(system), system),
                     build_outputs(system, unit_names(kernel), LABELS))
    return out


def engine_of(kernels, name: str, seed: int, density: float = 0.3) -> Engine:
    kernel, features, outputs = kernels[name]
    stored = random_stored_weights(seed, len(outputs), density, 0.1, hash_bits=HASH_BITS)
    return Engine(kernel, features, outputs, HASH_BITS, table=wt.parse_table(stored, HASH_BITS))


def both_ways(engine: Engine, batch):
    """The parse with every step scored, then with forced steps taken, and how many were."""
    engine.learner.forced_chains = False
    try:
        plain = engine.parse(batch, beam=1)
    finally:
        engine.learner.forced_chains = True
    assert engine.learner.chain_steps == 0
    short = engine.parse(batch, beam=1)
    return plain, short, engine.learner.chain_steps


def assert_same_parse(plain, short, skipped: int):
    assert np.array_equal(plain[0], short[0]) and np.array_equal(plain[1], short[1])
    assert plain[3] == short[3]  # stuck sentences
    # a forced step is the one step y, where the model may have taken x first, some times
    assert short[2] <= plain[2] and (skipped > 0 or short[2] == plain[2])


def toy_batch(engine: Engine):
    return make_batch([columns_of(s) for s in read_conllu(TOY_TRAIN)], engine.features.token_attrs)


@settings(deadline=None, max_examples=30)
@given(seed=SEEDS, density=st.sampled_from([0.05, 0.3, 1.0]), name=st.sampled_from(sorted(SYSTEMS)))
def test_forced_steps_parse_as_every_step_scored(kernels, seed, density, name):
    engine = engine_of(kernels, name, seed, density)
    plain, short, skipped = both_ways(engine, toy_batch(engine))
    assert_same_parse(plain, short, skipped)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_covington_skips_its_scans_once_no_arc_is_legal(kernels, seed):
    engine = engine_of(kernels, "covington", seed)
    plain, short, skipped = both_ways(engine, toy_batch(engine))
    assert_same_parse(plain, short, skipped)
    assert skipped > 0 and short[2] < plain[2]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_step_is_forced_where_the_runs_end_apart(kernels, seed):
    # the same scans as Covington's, but NO-ARC ... SHIFT leaves λ1 and λ2 unlike SHIFT
    engine = engine_of(kernels, "covington-stay", seed)
    plain, short, skipped = both_ways(engine, toy_batch(engine))
    assert skipped == 0 and engine.learner.chain_tries > 0  # steps with two legal outputs were checked
    assert_same_parse(plain, short, skipped)


def test_the_non_monotonic_log_scores_every_step(kernels):
    engine = engine_of(kernels, "covington", 4)
    engine.parse(toy_batch(engine), beam=1, log_nonmonotonic=True)
    assert engine.learner.chain_steps == 0


@settings(max_examples=25, deadline=None)
@given(tagged_sentences(WORDS), SEEDS, st.sampled_from(["covington", "covington-stay", "arc-eager"]))
def test_forced_steps_on_random_sentences(kernels, sentences, seed, name):
    engine = engine_of(kernels, name, seed)
    batch = make_batch(columns_of_tagged(sentences), engine.features.token_attrs)
    plain, short, skipped = both_ways(engine, batch)
    assert_same_parse(plain, short, skipped)
