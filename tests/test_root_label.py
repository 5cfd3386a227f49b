"""The root label stays on the arcs from the root, and off every other.

UD labels the arc from the root ``root`` and no other arc so (the validator rejects a
``root`` under another head).  A model trained on such a treebank records it
(``Model.root_label_strict``) and parsing keeps it (``Learner.set_root_label``): greedy
parsing takes the best legal output that keeps it (few outputs or all), beam search drops
the outputs that do not, capacity inf asks its instances again, and the labels noted for
unlabeled arcs skip them.  The weights here push every arc towards the root label, so
without the rule the parses break it (the tests check that too: they can fail).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import columns_of_tagged, tagged_sentences
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn import TrainOptions, train
from tsdsl.learn import weights as wt
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.model import load
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.learn.parser import load_parser
from tsdsl.treebank.conllu import read_conllu

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
HASH_BITS = 10
LABELS = sorted({w.deprel for s in read_conllu(TOY_TRAIN) for w in s.words})
WORDS = sorted({(w, p) for s in read_conllu(TOY_TRAIN) for w, p in zip(s.forms, s.upos)})
# root tokens on the left (arc-eager: grouped, all outputs scored; arc-standard; nm-2013:
# unlabeled arcs, noted labels), none (Covington: few-output steps; easy-first: instances)
SYSTEMS = {"arc-eager": "arc-eager.ts", "arc-standard": "arc-standard.ts", "nm-2013": "arc-eager-nm-2013.ts",
           "covington": "covington.ts", "covington-few": "covington.ts", "easy-first": "easy-first.ts"}
# three labels: Covington's steps with LEFT-ARC and RIGHT-ARC legal have 8 outputs, scored
# one by one (greedy parsing's few-outputs path)
FEW_LABELS = ["nsubj", "obj", "root"]
MONOTONIC_BOUNDED = {"arc-eager", "arc-standard", "covington", "covington-few"}  # a parse's arcs: those its steps built


@pytest.fixture(scope="module")
def kernels():
    out = {}
    for name, spec in SYSTEMS.items():
        system = load_system(REPO / "systems" / spec)
        kernel = compile_system(system, fallback=False)
        labels = FEW_LABELS if name == "covington-few" else LABELS
        out[name] = (kernel, load_features(default_features(system), system),
                     build_outputs(system, unit_names(kernel), labels), labels.index("root"))
    return out


def root_loving_engine(kernels, name: str, seed: int) -> Engine:
    """Random weights, plus a bonus on every output labeled ``root``: the best output of an
    arc action is nearly always its ``root`` one.  Arc-standard would then take every word
    from the root at once (RIGHT-ARC:root with the root second on the stack): the unlabeled
    outputs (SHIFT) get a higher bonus there, so that words attach to words."""
    kernel, features, outputs, root = kernels[name]
    C = len(outputs)
    rng = np.random.default_rng(seed)
    table = np.where(rng.random((1 << HASH_BITS, C)) < 0.3, rng.standard_normal((1 << HASH_BITS, C)), 0)
    table[:, outputs.table[:, 0] == root] += 3.0
    if name == "arc-standard":
        table[:, outputs.table[:, 0] < 0] += 3.5
    stored = wt.store(wt.SparseWeights.from_dense(table.astype(np.float32)), "float16")
    return Engine(kernel, features, outputs, HASH_BITS, table=wt.parse_table(stored, HASH_BITS))


def broken(heads, labels, root: int) -> int:
    """Arcs built with the root label under another head, or another label under the root."""
    built = heads >= 0
    return int(np.count_nonzero(built & ((labels == root) != (heads == 0))))


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sentences=tagged_sentences(WORDS, max_len=20))
@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_parsing_keeps_the_root_label_on_root_arcs(kernels, name, seed, sentences):
    engine = root_loving_engine(kernels, name, seed)
    root = kernels[name][3]
    batch = make_batch(columns_of_tagged(sentences), engine.features.token_attrs)
    widths = (1,) if engine.unbounded else (1, 3)
    for beam in widths:
        engine.learner.set_root_label(-1)
        free = engine.parse(batch, beam=beam)
        free = (free[0].copy(), free[1].copy())
        engine.learner.set_root_label(root)
        kept = engine.parse(batch, beam=beam)
        assert broken(kept[0], kept[1], root) == 0, (name, beam)
        # what the rule leaves alone stays: a sentence whose free parse keeps it parses the same
        offs = batch.offsets
        for i in range(len(offs) - 1):
            a, b = offs[i], offs[i + 1]
            if broken(free[0][a:b], free[1][a:b], root) == 0 and beam == 1 and name in MONOTONIC_BOUNDED:
                assert np.array_equal(free[0][a:b], kept[0][a:b]) and np.array_equal(free[1][a:b], kept[1][a:b])


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_without_the_rule_these_weights_break_it(kernels, name):
    # the premise of the test above: the bonus does push arcs to the root label
    engine = root_loving_engine(kernels, name, 7)
    batch = make_batch([columns_of(s) for s in read_conllu(TOY_DEV)], engine.features.token_attrs)
    engine.learner.set_root_label(-1)
    heads, labels = engine.parse(batch, beam=1)[:2]
    assert broken(heads, labels, kernels[name][3]) > 0
    if name == "covington-few":  # and the few-outputs path is taken
        assert engine.learner.few_steps > 0


def test_set_root_label_refuses_a_label_no_output_has(kernels):
    engine = root_loving_engine(kernels, "arc-eager", 1)
    with pytest.raises(ValueError, match="no output has label"):
        engine.learner.set_root_label(len(LABELS) + 5)
    engine.learner.set_root_label(LABELS.index("root"))
    assert engine.learner.root_label == LABELS.index("root")


def test_a_model_records_the_treebanks_root_label_rule(tmp_path):
    opts = dict(epochs=1, tagger=False)
    ud = train(REPO / "systems" / "arc-eager.ts", TOY_TRAIN, None, tmp_path / "ud", TrainOptions(**opts))
    assert ud is not None
    model = load(tmp_path / "ud")
    assert model.root_label == "root" and model.root_label_strict
    assert load_parser(tmp_path / "ud").engine.learner.root_label == model.labels.index("root")
    # a model saved before the rule (no such key in labels.json) parses as it did: no rule
    labels = tmp_path / "ud" / "labels.json"
    doc = json.loads(labels.read_text(encoding="utf-8"))
    del doc["root_label_strict"]
    labels.write_text(json.dumps(doc), encoding="utf-8")
    assert not load(tmp_path / "ud").root_label_strict
    assert load_parser(tmp_path / "ud").engine.learner.root_label == -1
    # a treebank that also has `root` under another head: no rule to keep
    text = TOY_TRAIN.read_text(encoding="utf-8").replace("\tnsubj\t", "\troot\t", 1)
    loose = tmp_path / "loose.conllu"
    loose.write_text(text, encoding="utf-8")
    train(REPO / "systems" / "arc-eager.ts", loose, None, tmp_path / "loose", TrainOptions(**opts))
    model = load(tmp_path / "loose")
    assert model.root_label == "root" and not model.root_label_strict
    assert load_parser(tmp_path / "loose").engine.learner.root_label == -1
