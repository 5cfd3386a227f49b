"""The batch API's choice of outputs to follow: ``best_outputs()`` and ``free_outputs()``.

A gold tree a projective system cannot build (non-projective gold under arc-eager's
arc-decomposable oracle) leaves, at some step, no output of cost 0; the idiom
``np.argmax(costs == 0)`` then picks output 0 without a word.  The helpers say so instead
(``free`` False, :class:`NoFreeOutput`), and never mark an illegal output.  Hypothesis steps
random gold trees with random legal actions and checks the masks against the costs and the
legal mask at every step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import labelled_trees
from tsdsl import load_system
from tsdsl.kernels import BestOutputs, NoFreeOutput, compile_system
from tsdsl.kernels.compiled import ILLEGAL

ROOT = Path(__file__).resolve().parent.parent
LABELS = ("a", "b")


@pytest.fixture(scope="module")
def kernels():
    return {name: compile_system(load_system(ROOT / "systems" / f"{name}.ts"), fallback=False)
            for name in ("arc-eager", "covington")}


def _follow_until_not_free(batch):
    """Follow the first least-cost output of every row until some live row has no free one;
    returns that step's costs and legal mask (None if the batch ends first)."""
    while not batch.done:
        best = batch.best_outputs()
        live = ~batch.is_terminal()
        if (live & ~best.free).any():
            return batch.costs(), batch.legal_mask()
        pick = np.argmax(best.mask.reshape(batch.size, -1), axis=1)
        batch.apply(np.where(live, pick // 2, -1), np.where(live, pick % 2, -1))
    return None


def test_non_projective_gold_has_no_free_output_instead_of_output_zero(kernels):
    ks = kernels["arc-eager"]
    # sentence 0: 3 -> 1 and 4 -> 2 cross; sentence 1 is projective
    batch = ks.batch([4, 3], gold_heads=[[3, 4, 0, 3], [2, 0, 2]], gold_labels=[[0, 0, 0, 0], [0, 1, 0]],
                     n_labels=2)
    found = _follow_until_not_free(batch)
    assert found is not None
    costs, legal = found
    flat = costs.reshape(2, -1)
    assert np.argmax(flat == 0, axis=1)[0] == 0 and flat[0, 0] != 0  # the idiom picks output 0, at a cost
    best = batch.best_outputs()
    assert isinstance(best, BestOutputs)
    assert best.free.tolist() == [False, True]
    assert best.cost[0] > 0 and best.cost[1] == 0
    assert best.mask[0].any() and not (best.mask & ~legal.astype(bool)[:, :, None]).any()
    assert (costs[0][best.mask[0]] == best.cost[0]).all()  # the outputs that lose least
    with pytest.raises(NoFreeOutput) as caught:
        batch.free_outputs()
    assert caught.value.rows.tolist() == [0]
    assert isinstance(caught.value, ValueError)  # every error of the batch API is one
    assert str(caught.value).startswith("configuration 0: no legal output costs 0 (the gold tree cannot be "
                                        "reached any more")


def test_a_finished_row_is_all_false_and_no_error(kernels):
    """A finished row is all False and no error; its least cost is -1."""
    ks = kernels["arc-eager"]
    batch = ks.batch([0, 1], gold_heads=[[], [0]], gold_labels=[[], [1]], n_labels=2)
    assert batch.is_terminal().tolist() == [True, False]
    best = batch.best_outputs()
    assert best.cost[0] == -1 and not best.free[0] and not best.mask[0].any()
    mask = batch.free_outputs()  # the terminal row is not a missing free output
    assert not mask[0].any() and mask[1].any()


@st.composite
def steps(draw):
    sentences = [draw(labelled_trees(min_n=1, max_n=6, labels=LABELS)) for _ in range(draw(st.integers(1, 3)))]
    return sentences, draw(st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=40))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["arc-eager", "covington"]), steps(), st.booleans())
def test_the_helpers_mark_exactly_the_least_cost_legal_outputs(kernels, name, drawn, labeled):
    ks = kernels[name]
    sentences, choices = drawn
    label_ids = [ks.label_id(x) for x in LABELS]
    batch = ks.batch([len(h) for h, _ in sentences], gold_heads=[list(h) for h, _ in sentences],
                     gold_labels=[[label_ids[LABELS.index(x)] for x in ls] for _, ls in sentences],
                     n_labels=max(label_ids) + 1)
    for choice in choices:
        if batch.done:
            break
        costs = batch.costs(labeled=labeled)
        legal = batch.legal_mask().astype(bool)
        if labeled:
            legal = np.repeat(legal[:, :, None], costs.shape[2], axis=2)
        live = ~batch.is_terminal()
        best = batch.best_outputs(labeled=labeled)
        for b in range(batch.size):
            row_legal, row_costs = legal[b], costs[b]
            if row_legal.any():
                least = row_costs[row_legal].min()
                assert best.cost[b] == least and best.free[b] == (least == 0)
                assert (best.mask[b] == (row_legal & (row_costs == least))).all()
            else:
                assert best.cost[b] == -1 and not best.mask[b].any() and not best.free[b]
        assert not (best.mask & (costs == ILLEGAL)).any()
        if (live & ~best.free).any():
            with pytest.raises(NoFreeOutput):
                batch.free_outputs(labeled=labeled)
        else:
            free = batch.free_outputs(labeled=labeled)
            assert (free == (legal & (costs == 0))).all()
        acts = batch.legal_mask()
        pick = np.array([np.flatnonzero(acts[b])[choice % max(int(acts[b].sum()), 1)] if live[b] and acts[b].any()
                         else -1 for b in range(batch.size)])
        if (pick < 0).all():
            break
        batch.apply(pick, np.where(pick >= 0, label_ids[choice % 2], -1))
