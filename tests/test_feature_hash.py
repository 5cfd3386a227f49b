"""The feature hash and the greedy argmax of stop 31.

Hash 2 (``hash_templates`` in ``_model.pxi``) puts each template into a bucket from its
seed plus each atom value times a multiplier of its own, multiplied once more, top bits
taken.  New models record ``feature_hash: 2`` in ``model.json``; a model without the key was
trained with hash 1 (a 64-bit finaliser per atom) and must keep parsing with it.  Checked
here: the hash spreads features over the table as well as hash 1 does, and the bucket
numbers stay inside it at every table size; the loader keeps each model's hash and refuses
one it does not know; the engine uses the hash it is given.

Greedy parsing takes the best of all outputs, when all are legal, with a vector argmax
(``tsdsl_argmax`` in ``_rows.pxi``); it must find what the scalar loop finds, the first
index of the greatest score, ties and signed zeros included.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import gold_training_batch
from tsdsl.errors import UsageError
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn.engine import FEATURE_HASH, Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.model import ModelError, load as load_model, save as save_model
from tsdsl.learn.parser import bind
from tsdsl.learn.train import TrainOptions, train

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"


def _setup(spec: str):
    system = load_system(REPO / "systems" / spec)
    kernel = compile_system(system, fallback=False)
    features = load_features(default_features(system), system)
    outputs, batch = gold_training_batch(system, kernel, features, TOY_TRAIN)
    return kernel, features, outputs, batch


def _rows_updated(spec: str, bits: int, feature_hash: int) -> np.ndarray:
    """The buckets one epoch of static training on the toy treebank updated."""
    kernel, features, outputs, batch = _setup(spec)
    engine = Engine(kernel, features, outputs, bits, train=True, feature_hash=feature_hash)
    order = np.arange(batch.sentences, dtype=np.int32)
    engine.train_greedy(batch, order, loss_index=0, dynamic=False, explore_p=0.0, seed=1)
    return np.unique(engine.averaged().index // len(outputs))


@pytest.mark.parametrize("bits", [8, 12, 19])
def test_hash_two_spreads_features_like_hash_one(bits):
    """The same training updates about as many distinct buckets under either hash (a hash
    that mapped many features together, or only into part of the table, would update fewer),
    and every bucket is inside the table."""
    one = _rows_updated("arc-eager.ts", bits, 1)
    two = _rows_updated("arc-eager.ts", bits, 2)
    assert two.max() < (1 << bits) and one.max() < (1 << bits)
    assert len(two) >= 0.97 * len(one), (len(two), len(one))


def test_buckets_reach_the_whole_table():
    """With a table smaller than the features, hash 2 fills it from end to end (the top bits
    of the product, not only the low ones)."""
    rows = _rows_updated("arc-eager.ts", 8, 2)
    assert len(rows) > 0.9 * 256
    assert rows.min() < 16 and rows.max() >= 240


def test_engine_uses_the_hash_it_is_given():
    """The same weights parse differently under the two hashes (the buckets differ), and the
    same under the same hash."""
    kernel, features, outputs, batch = _setup("arc-eager.ts")
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((1 << 12, len(outputs))).astype(np.float32)
    parses = {}
    for h in (1, 2, 2):
        engine = Engine(kernel, features, outputs, 12, weights=weights.copy(), feature_hash=h)
        heads, labels, *_ = engine.parse(batch, beam=1)
        assert engine.learner.feature_hash == h
        parses.setdefault(h, []).append((heads.tobytes(), labels.tobytes()))
    assert parses[2][0] == parses[2][1]
    assert parses[1][0] != parses[2][0]
    with pytest.raises(UsageError, match="feature hash 3"):
        Engine(kernel, features, outputs, 12, weights=weights, feature_hash=3)


@pytest.fixture(scope="module")
def toy_model(tmp_path_factory):
    out = tmp_path_factory.mktemp("hash") / "model"
    train(str(REPO / "systems" / "arc-eager.ts"), str(TOY_TRAIN), None, str(out),
          TrainOptions(epochs=2, hash_bits=12, tagger=False), progress=None)
    return out


def test_new_models_record_hash_two(toy_model):
    meta = json.loads((toy_model / "model.json").read_text())
    assert meta["feature_hash"] == FEATURE_HASH == 2
    model = load_model(toy_model)
    assert model.feature_hash == 2 and bind(model).learner.feature_hash == 2


def test_a_model_without_the_key_parses_with_hash_one(toy_model, tmp_path):
    """A model.json without ``feature_hash`` (every model trained before it) loads as hash 1,
    and its engine hashes that way: re-saved, it keeps 1."""
    old = tmp_path / "old"
    shutil.copytree(toy_model, old)
    meta = json.loads((old / "model.json").read_text())
    del meta["feature_hash"]
    (old / "model.json").write_text(json.dumps(meta))
    model = load_model(old)
    assert model.feature_hash == 1 and bind(model).learner.feature_hash == 1
    save_model(model, tmp_path / "again")
    assert json.loads((tmp_path / "again" / "model.json").read_text())["feature_hash"] == 1
    assert load_model(tmp_path / "again").feature_hash == 1


@pytest.mark.parametrize("value", [3, 0, "2", 2.0, True, None])
def test_an_unknown_hash_is_refused(toy_model, tmp_path, value):
    bad = tmp_path / "bad"
    shutil.copytree(toy_model, bad)
    meta = json.loads((bad / "model.json").read_text())
    meta["feature_hash"] = value
    (bad / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"model\.json: feature_hash"):
        load_model(bad)


def _argmax_module():
    return compile_system(load_system(REPO / "systems" / "covington-nm.ts"), fallback=False).module


scores = st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, 1e30, -1e30, 3.0]) | st.floats(-1e6, 1e6, width=32),
                  min_size=1, max_size=300)


@settings(max_examples=300, deadline=None)
@given(scores)
def test_vector_argmax_finds_the_first_greatest(values):
    module = _argmax_module()
    x = np.asarray(values, dtype=np.float32)
    expected = 0
    for c in range(1, len(x)):  # the scalar loop greedy parsing had
        if x[c] > x[expected]:
            expected = c
    try:
        for vector in (True, False):
            module.vector_argmax(vector)
            assert module.first_argmax(x) == expected
    finally:
        module.vector_argmax(True)


def test_greedy_parses_are_the_same_with_either_argmax():
    """NM Covington (every output legal at most steps) with random weights: the same trees
    with the vector argmax and the scalar loop; a tie-breaking slip (the last greatest, say)
    would change them: small integer weights leave many ties between outputs."""
    kernel, features, outputs, batch = _setup("covington-nm.ts")
    rng = np.random.default_rng(5)
    weights = rng.integers(-2, 3, size=(1 << 12, len(outputs))).astype(np.float32)
    module = kernel.module
    parses = []
    try:
        for vector in (True, False):
            module.vector_argmax(vector)
            engine = Engine(kernel, features, outputs, 12, weights=weights.copy())
            heads, labels, n_steps, *_ = engine.parse(batch, beam=1)
            parses.append((heads.tobytes(), labels.tobytes(), n_steps))
    finally:
        module.vector_argmax(True)
    assert parses[0] == parses[1]


# ---- the words CL and CR pick (extract_atoms scans from each end of the interval) -----------

def _cl_cr_witness(c) -> tuple[int, int]:
    """Fernández-González & Gómez-Rodríguez's CL and CR: the first and the last word strictly
    between the focus words L0 (the end of λ1) and R0 (the front of β) whose head is not in
    [L0, R0] (no head: not in it); -1 when there is none."""
    if not c.lists[0] or not c.lists[2]:
        return -1, -1
    l, r = c.lists[0][-1], c.lists[2][0]
    out = [u for u in range(l + 1, r) if 1 <= u <= c.n and not l <= c.heads[u] <= r]
    return (out[0], out[-1]) if out else (-1, -1)


@pytest.fixture(scope="module")
def covington_probe():
    from tsdsl.interp import Interpreter
    from tsdsl.learn.data import columns_of, make_batch
    from tsdsl.learn.features import BASE_CL, BASE_CR
    from tsdsl.treebank.conllu import read_conllu

    system = load_system(REPO / "systems" / "covington-nm.ts")
    kernel = compile_system(system, fallback=False)
    features = load_features(default_features(system), system)
    outputs, _ = gold_training_batch(system, kernel, features, TOY_TRAIN)
    engine = Engine(kernel, features, outputs, 12)
    sents = [s for s in read_conllu(TOY_TRAIN, allow_multiple_roots=True) if s.n >= 3]
    batch = make_batch([columns_of(s) for s in sents], features.token_attrs)
    kinds = features.addresses[:, 0].tolist()
    return (Interpreter(system), kernel, engine, batch, [s.n for s in sents],
            kinds.index(BASE_CL), kinds.index(BASE_CR))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_cl_and_cr_are_the_papers_words(covington_probe, data):
    """Along random legal action sequences of NM Covington (arcs built, moved and removed),
    the kernel's CL and CR are the witness's in every state."""
    interp, kernel, engine, batch, lengths, cl, cr = covington_probe
    si = data.draw(st.integers(0, len(lengths) - 1))
    c = interp.initial(lengths[si])
    names = list(kernel.action_names)
    actions, expected = [], [_cl_cr_witness(c)]
    for _ in range(data.draw(st.integers(0, 6 * lengths[si]))):
        legal = sorted(interp.legal(c))
        if interp.is_terminal(c) or not legal:
            break
        a = data.draw(st.sampled_from(legal))
        interp.apply(c, a)
        actions.append(names.index(a))
        expected.append(_cl_cr_witness(c))
    got = np.zeros((len(actions) + 1, len(engine.features.addresses)), dtype=np.int32)
    kernel.module.address_tokens(engine.learner, batch.offsets, batch.tokens, si,
                                 np.asarray(actions, dtype=np.int32), np.full(len(actions), -1, np.int32), got)
    assert [(int(x), int(y)) for x, y in got[:, [cl, cr]]] == expected
