"""Capacity inf: training and parsing by scoring every action family instance from its tokens.

The kernel keeps an instance's scores while its base tokens and their subtrees stay the same
(``_instances.pxi``).  That cache must be exact: parsing and training with it give the same
trees and the same weights as recomputing every instance at every step, which these tests
check on the toy treebank and on random sentences (Hypothesis).  The toy treebank is
``docs/examples/toy-train.conllu`` / ``toy-dev.conllu`` (in the repository).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn import TrainOptions, train
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.derive import search_oracle
from tsdsl.learn.engine import Engine, instance_cache_exact
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.model import load
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.learn.parser import Parser
from tsdsl.treebank.conllu import read_conllu
from tsdsl.treebank.trees import is_tree

from strategies import columns_of_tagged, gold_training_batch, tagged_sentences

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
SPEC = REPO / "systems" / "easy-first-nonproj.ts"
D = {"D": 2}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("instances") / "efn"
    train(str(SPEC), str(TOY_TRAIN), str(TOY_DEV), str(out),
          TrainOptions(epochs=2, hash_bits=14, overrides=dict(D)), progress=None)
    return out


def engines(model_dir: Path) -> tuple[Engine, Engine]:
    """The model's weights bound twice: with the instance cache and without it."""
    model = load(model_dir)
    kernel = compile_system(model.system, fallback=False)
    outputs = build_outputs(model.system, unit_names(kernel), model.labels)
    return tuple(Engine(kernel, model.features, outputs, model.hash_bits, weights=model.dense_weights(), cache=c)
                 for c in (True, False))


def test_default_features_allow_the_cache():
    system = load_system(SPEC, D)
    assert instance_cache_exact(system, load_features(default_features(system), system))


def test_cached_parse_equals_recomputed_parse(model_dir):
    cached, fresh = engines(model_dir)
    assert cached.cached and not fresh.cached
    sents = read_conllu(TOY_DEV)
    batch = make_batch([columns_of(s) for s in sents], cached.features.token_attrs)
    a, b = cached.parse(batch), fresh.parse(batch)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[2] == b[2]  # transitions
    # the cache did its job: most instances were kept from the step before
    hits, misses = cached.learner.cache_hits, cached.learner.cache_misses
    assert hits > misses > 0
    assert fresh.learner.cache_hits < fresh.learner.cache_misses


WORDS = sorted({(w, p) for s in read_conllu(TOY_TRAIN) for w, p in zip(s.forms, s.upos)})


@settings(max_examples=40, deadline=None)
@given(tagged_sentences(WORDS))
def test_cache_is_exact_on_random_sentences(model_dir, sentences):
    cached, fresh = _ENGINES.setdefault(str(model_dir), engines(model_dir))
    batch = make_batch(columns_of_tagged(sentences), cached.features.token_attrs)
    a, b = cached.parse(batch), fresh.parse(batch)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[3] == 0  # no sentence stuck: every step had a legal instance


_ENGINES: dict = {}


def test_cached_training_equals_recomputed_training():
    """One epoch along the search oracle's derivations, and one with the declared oracle
    (dynamic with exploration, static): identical weights either way (the cache re-scores
    after every update)."""
    system = load_system(SPEC, D)
    kernel = compile_system(system, fallback=False)
    features = load_features(default_features(system), system)
    outputs, batch = gold_training_batch(system, kernel, features, TOY_TRAIN)
    searched = search_oracle(kernel, batch, outputs)
    assert len(searched.derived) == batch.sentences  # D = 2 derives every toy tree
    order = np.arange(batch.sentences, dtype=np.int32)
    for how in ("search", "dynamic", "static"):
        weights, counts = [], []
        for cache in (True, False):
            engine = Engine(kernel, features, outputs, 14, train=True, cache=cache)
            if how == "search":
                counts.append(engine.train_sequence(batch, searched.derived, searched))
            else:  # the spec's declared oracle; dynamic with exploration from the start
                counts.append(engine.train_greedy(batch, order, loss_index=0, dynamic=how == "dynamic",
                                                  explore_p=0.9, seed=7))
            weights.append(engine.W.copy())
        assert counts[0] == counts[1] and counts[0][1] > 0 and counts[0][2] == 0, how
        assert np.array_equal(weights[0], weights[1]) and np.any(weights[0]), how


def test_non_local_features_train_without_the_cache(tmp_path):
    """A template with a head step or an absolute position makes an instance's features depend
    on more than its tokens: training still works, recomputing every instance."""
    feats = tmp_path / "f.yaml"
    feats.write_text("templates:\n  - O[i].w + O[j].w\n  - O[i].p + O[j].p\n  - O[i].h.p + O[0].p\n"
                     "  - O[i].lc1.l + O[j].p\n", encoding="utf-8")
    out = tmp_path / "m"
    res = train(str(SPEC), str(TOY_TRAIN), str(TOY_DEV), str(out),
                TrainOptions(epochs=2, hash_bits=14, overrides=dict(D), features=str(feats)), progress=None)
    parser = Parser(load(out))
    assert not parser.engine.cached
    parsed, stats = parser.parse_sentences(read_conllu(TOY_DEV))
    assert stats.stuck == 0 and all(is_tree(s.heads) for s in parsed)
    assert res.history[res.best_epoch - 1]["dev_uas"] > 0.8
