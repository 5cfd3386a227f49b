"""Capacity inf: the instance group's sums that greedy parsing keeps (``_instances.pxi``).

A feature program that scores family instances gets one scoring group
(:func:`tsdsl.learn.scoring.instance_groups`): the templates that read only the instance
bases most templates read (non-projective easy-first: ``O[i]``, ``O[i-1]``, ``O[j]``).
``score()`` sums that group's rows on their own, and greedy parsing keeps the sum per
signature of those bases' tokens (and their versions where the group reads arcs).  The kept
sums must give ``score()``'s scores bit for bit: with ``Learner.group_check`` set, every
instance scored with kept sums is scored again from scratch and the differences counted.
These tests check that count is 0 on the toy treebank and on random sentences, that parsing
with and without the kept sums builds the same trees, and that the count is not 0 when a
group's signature leaves out a base or the arcs read at one, so the check can fail.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.learn.scoring import scoring_groups
from tsdsl.treebank.conllu import read_conllu

from strategies import columns_of_tagged, tagged_sentences

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
SYSTEMS = REPO / "systems"
HASH_BITS = 12
LABELS = sorted({lab for s in read_conllu(TOY_TRAIN) for lab in s.deprels})
WORDS = sorted({(w, p) for s in read_conllu(TOY_TRAIN) for w, p in zip(s.forms, s.upos)})


def random_engine(spec: str) -> Engine:
    """The system bound to random weights, every row non-zero, so that a stale kept sum
    changes a score."""
    system = load_system(SYSTEMS / spec)
    kernel = compile_system(system, fallback=False)
    outputs = build_outputs(system, unit_names(kernel), LABELS)
    weights = np.random.default_rng(3).standard_normal((1 << HASH_BITS, len(outputs))).astype(np.float32)
    return Engine(kernel, load_features(default_features(system), system), outputs, HASH_BITS, weights=weights)


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    return {"nonproj": random_engine("easy-first-nonproj.ts"), "easy-first": random_engine("easy-first.ts")}


def toy_batch(engine: Engine, path: Path = TOY_TRAIN):
    return make_batch([columns_of(s) for s in read_conllu(path)], engine.features.token_attrs)


def checked_parse(engine: Engine, batch):
    """Parse with the self-check on: (parse, instances whose kept sums differed, sums kept, made)."""
    learner = engine.learner
    learner.group_check = True
    try:
        out = engine.parse(batch)
    finally:
        learner.group_check = False
    return out, learner.group_mismatches, learner.group_hits, learner.group_misses


def names(engine: Engine, k: int) -> set[str]:
    g = engine.groups
    return {engine.features.template_names[t] for t in g.order[g.starts[k]:g.starts[k + 1]]}


def test_the_group_of_non_projective_easy_first(engines):
    engine = engines["nonproj"]
    g = engine.groups
    assert g.count == 1 and g.anchors.tolist() == [[-2, 0]]
    group, direct = names(engine, 1), names(engine, 0)
    # the pair's own tokens and the one between (through dist(O[i-1],O[j])), arcs at O[i] and O[j] included
    assert {"O[i].w+O[j].w+dist(O[i-1],O[j])", "O[i].lc1.p+O[i].p+O[j].p+dist(O[i-1],O[j])",
            "O[j].sr+O[j].p+dist(O[i-1],O[j])", "O[i].w+O[i].p+O[j].w+O[j].p", "dist(O[i-1],O[j])"} <= group
    assert {"O[i+1].p+dist(O[i-1],O[j])", "O[j-1].w+dist(O[i-1],O[j])", "O[i+1].lc1.p+O[i+1].rc1.p+O[i+1].p+"
            "dist(O[i-1],O[j])"} <= direct
    rows = {tuple(int(x) for x in r[:3]): k for k, r in enumerate(engine.features.instance_bases)}
    i_, i_minus, j_ = rows[(3, 0, 0)], rows[(3, 0, -1)], rows[(4, 0, 0)]
    # O[i-1] is read for its position only; the group reads arcs at O[i] and O[j]
    assert dict(g.instance_bases[0]) == {i_minus: 0, i_: 1, j_: 1}


def test_easy_first_keys_its_group_by_the_pair():
    system = load_system(SYSTEMS / "easy-first.ts")
    fs = load_features(default_features(system), system)
    g = scoring_groups(fs)
    rows = {tuple(int(x) for x in r[:3]): k for k, r in enumerate(fs.instance_bases)}
    assert g.count == 1 and dict(g.instance_bases[0]) == {rows[(3, 0, 0)]: 1, rows[(4, 0, 0)]: 1}


@pytest.mark.parametrize("name", ["nonproj", "easy-first"])
def test_kept_sums_are_the_scores_from_scratch(engines, name):
    engine = engines[name]
    batch = toy_batch(engine)
    (heads, labels, steps, _, _), mismatches, hits, misses = checked_parse(engine, batch)
    assert mismatches == 0 and hits > 0 and misses > 0
    engine.learner.inst_groups_on = False
    try:
        plain = engine.parse(batch)
        assert engine.learner.group_hits == engine.learner.group_misses == 0
    finally:
        engine.learner.inst_groups_on = True
    assert np.array_equal(heads, plain[0]) and np.array_equal(labels, plain[1]) and steps == plain[2]


@settings(max_examples=30, deadline=None)
@given(tagged_sentences(WORDS))
def test_kept_sums_are_exact_on_random_sentences(engines, sentences):
    for engine in engines.values():
        batch = make_batch(columns_of_tagged(sentences), engine.features.token_attrs)
        assert checked_parse(engine, batch)[1] == 0


@pytest.mark.parametrize("cut", ["a base", "the arcs"])
def test_the_check_fails_with_a_weaker_signature(engines, cut):
    """A signature without O[i] keeps sums across different focus words; one without the
    versions of O[i] keeps them while O[i] gains children.  Either way some kept sum is
    stale and the self-check counts it, so the zero above means something."""
    engine = engines["nonproj"]
    rows = {tuple(int(x) for x in r[:3]): k for k, r in enumerate(engine.features.instance_bases)}
    i_ = rows[(3, 0, 0)]
    bases = engine.groups.instance_bases[0]
    weak = [(b, a) for b, a in bases if b != i_] if cut == "a base" else [(b, 0 if b == i_ else a) for b, a in bases]
    table = np.asarray([len(weak)] + [x for e in weak for x in e], dtype=np.int32)
    engine.learner.set_instance_groups(table, 1)
    try:
        _, mismatches, _, _ = checked_parse(engine, toy_batch(engine))
    finally:
        engine.learner.set_instance_groups(engine._inst_groups, 1)
    assert mismatches > 0


def test_bad_group_tables_are_refused(engines):
    learner = engines["nonproj"].learner
    n_base = len(engines["nonproj"].features.instance_bases)
    for table in ([0], [1, n_base, 0], [1, 0, 2], [2, 0, 0], [1, 0, 0, 5]):
        with pytest.raises(ValueError):
            learner.set_instance_groups(np.asarray(table, dtype=np.int32), 1)
    learner.set_instance_groups(engines["nonproj"]._inst_groups, 1)


def test_a_batch_parses_as_its_sentences_alone(engines):
    """The action table is the longest sentence's; each sentence lists its own instances
    (inst_sentence), so a short sentence parses the same alone and in a batch."""
    engine = engines["nonproj"]
    sents = read_conllu(TOY_DEV)
    batch = make_batch([columns_of(s) for s in sents], engine.features.token_attrs)
    heads, labels = engine.parse(batch)[:2]
    k = 0
    for s in sents:
        alone = engine.parse(make_batch([columns_of(s)], engine.features.token_attrs))
        assert np.array_equal(alone[0], heads[k:k + len(s)]) and np.array_equal(alone[1], labels[k:k + len(s)])
        k += len(s)
