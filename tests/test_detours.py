"""Dynamic training counts a zero-cost detour as a mistake.

A dynamic oracle accepts every output of minimum cost.  In Covington's parser NO-ARC keeps
a cost of zero all the way down λ1 once the focus word has no gold arc left to build there,
and NO-ARC ... NO-ARC SHIFT makes what SHIFT makes at once: a model that scans on loses
nothing in training, and parses with several times the steps it needs.  ``train_greedy``
therefore drops an output b of minimum cost (one building no labelled arc) when another
one, a, gives the same configuration after b as at once (``_detours.pxi``), unless
``Learner.detours`` is set.

Where every derivation of a tree has the same length (arc-eager, arc-standard, arc-hybrid,
Honnibal et al.'s non-monotonic arc-eager) no output is a detour: the weights must
be those of accepting every zero-cost output, bit for bit.  So must they for a Covington
variant whose SHIFT leaves λ2 where it is (NO-ARC ... SHIFT and SHIFT then differ): the
check of the configurations is what decides, and this is where it would fail.  For
Covington's parsers, monotonic and not, detours are found, and the greedy parse of the
training sentences takes fewer steps than with the weights trained accepting them.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from strategies import gold_training_batch
from tsdsl.kernels import compile_system
from tsdsl.lang import load_system, load_system_text
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.model import load as load_model
from tsdsl.learn.train import TrainOptions, train

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
SAME_LENGTH = {"arc-eager": "arc-eager.ts", "arc-standard": "arc-standard.ts", "arc-hybrid": "arc-hybrid.ts",
               "nm-2013": "arc-eager-nm-2013.ts", "unshift": "arc-eager-unshift.ts"}
COVINGTON = {"covington": "covington.ts", "covington-nm": "covington-nm.ts"}
STAY = """system covington_stay "Covington whose SHIFT leaves λ2 (a test variant)"
  extends "covington.ts"
  SHIFT : (λ1, λ2, j|β) => (λ1|j, λ2, β)
"""
EPOCHS = 3


def load(name: str):
    if name == "covington-stay":
        return load_system_text(STAY, str(REPO / "systems" / "covington-stay.ts"))
    return load_system(REPO / "systems" / {**SAME_LENGTH, **COVINGTON, "attardi": "attardi.ts"}[name])


def trained(name: str, accept: bool):
    """Dynamic training with exploration on the toy treebank, accepting detours or not: the
    engine, the weights, per epoch the (steps, mistakes, stuck) and the steps with a detour."""
    system = load(name)
    kernel = compile_system(system, fallback=False)
    features = load_features(default_features(system), system)
    outputs, batch = gold_training_batch(system, kernel, features, TOY_TRAIN)
    engine = Engine(kernel, features, outputs, 14, train=True)
    engine.learner.detours = accept
    order = np.arange(batch.sentences, dtype=np.int32)
    counts, detours = [], []
    for epoch in range(EPOCHS):
        counts.append(engine.train_greedy(batch, order, loss_index=0, dynamic=True, explore_p=0.9, seed=7 + epoch))
        detours.append(engine.learner.detour_steps)
    return engine, batch, engine.W.copy(), counts, detours


@pytest.mark.parametrize("name", [*SAME_LENGTH, "covington-stay"])
def test_no_detours_where_every_derivation_is_as_long(name):
    """No detour is ever found: the weights are those of accepting every zero-cost output."""
    _, _, w_skip, c_skip, d_skip = trained(name, accept=False)
    _, _, w_accept, c_accept, d_accept = trained(name, accept=True)
    assert d_skip == [0] * EPOCHS and d_accept == [0] * EPOCHS
    assert c_skip == c_accept and c_skip[0][1] > 0
    assert np.array_equal(w_skip, w_accept) and np.any(w_skip)


@pytest.mark.parametrize("name", COVINGTON)
def test_covington_trains_without_its_detours(name):
    """Detours found in every epoch; the parse of the training sentences with the weights
    trained without them takes fewer steps (and every sentence finishes)."""
    e_skip, batch, _, c_skip, d_skip = trained(name, accept=False)
    e_accept, _, _, c_accept, d_accept = trained(name, accept=True)
    assert all(d > 0 for d in d_skip) and d_accept == [0] * EPOCHS
    assert c_skip != c_accept
    steps = {}
    for how, engine in (("skip", e_skip), ("accept", e_accept)):
        engine.learner.forced_chains = False  # every step the model's own
        _, _, n_steps, stuck, _ = engine.parse(batch, beam=1)
        assert stuck == 0
        steps[how] = n_steps
    assert steps["skip"] < steps["accept"], steps


def test_train_option(tmp_path):
    """``tsdsl train --skip-detours`` (TrainOptions.skip_detours): the epochs count the steps
    that had a detour and take fewer transitions than training without it; the option is
    recorded in model.json and named in the training mode; where it cannot apply (a static
    oracle) training says so."""
    spec = str(REPO / "systems" / "covington.ts")
    runs = {}
    for skip in (False, True):
        out = tmp_path / f"m-{skip}"
        runs[skip] = train(spec, str(TOY_TRAIN), None, str(out),
                           TrainOptions(epochs=3, hash_bits=14, tagger=False, skip_detours=skip), progress=None)
        assert load_model(out).meta["args"]["skip_detours"] is skip
    assert all(r["detour_steps"] > 0 for r in runs[True].history)
    assert all("detour_steps" not in r for r in runs[False].history)
    assert sum(r["transitions"] for r in runs[True].history) < sum(r["transitions"] for r in runs[False].history)
    shown = io.StringIO()
    train(spec, str(TOY_TRAIN), None, str(tmp_path / "shown"),
          TrainOptions(epochs=1, hash_bits=14, tagger=False, skip_detours=True), progress=shown)
    assert "zero-cost detours counted as mistakes (--skip-detours)" in shown.getvalue()
    train(str(REPO / "systems" / "arc-eager.ts"), str(TOY_TRAIN), None, str(tmp_path / "static"),
          TrainOptions(epochs=1, hash_bits=14, tagger=False, oracle="static", skip_detours=True), progress=None)
    assert "--skip-detours has no effect" in load_model(tmp_path / "static").meta["oracle_note"]


def test_training_needs_a_declared_loss():
    """Attardi's spec declares no oracle (it trains along derivations found by search): the
    greedy trainer refuses loss 0 instead of reading costs that do not exist (it did, and two
    trainings of the same data then differed)."""
    with pytest.raises(ValueError, match="bad loss index 0: this kernel has 0 declared loss"):
        trained("attardi", accept=True)
