"""The end of a training epoch, shared by the tree and the graph trainers.

After every epoch the averaged weights are stored as they will be saved (pruned and
quantised, :mod:`tsdsl.learn.weights`); the development set is scored on exactly those,
installed for the parse in the training table (no second dense table); the epoch with the
best score is kept, and training stops once ``patience`` epochs pass without a better one.
With ``--prune``, :func:`pruned_share` then refuses a kept epoch that pruning emptied and
warns when it kept less than :data:`PRUNE_WARN_SHARE` of the weights (the scale of perceptron
weights is not one a user can guess).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, Optional, TextIO

import numpy as np

from ..errors import UsageError
from .weights import StoredWeights, WeightsError, expand, store

#: scores the dev set with the weight table and its live rows; adds its figures to the record
DevScorer = Callable[[np.ndarray, np.ndarray, dict], float]


@dataclass
class BestEpoch:
    """The best epoch so far, its stored weights, and every epoch's record."""

    patience: int
    score: float = -1.0
    epoch: int = 0
    stored: Optional[StoredWeights] = None
    history: list = field(default_factory=list)

    def close(self, engine, model, options, record: dict, score_dev: Optional[DevScorer]) -> tuple[bool, bool]:
        """End epoch ``record["epoch"]``: store the averaged weights, score them with
        ``score_dev`` (None: no dev set, the last epoch counts as best), keep them if best.
        Returns (improved, stop): stop when a dev set saw ``patience`` epochs without gain."""
        epoch = record["epoch"]
        averaged = engine.averaged()
        try:
            stored = store(averaged, options.precision, options.prune)
        except WeightsError as exc:
            raise UsageError(f"epoch {epoch}: {exc}") from None
        record["weights_stored"] = stored.size
        if options.prune > 0:  # what pruning started from (see pruned_share)
            nonzero = averaged.values[averaged.values != 0]
            record["weights_before_prune"] = int(nonzero.size)
            record["weights_peak"] = float(np.abs(nonzero).max()) if nonzero.size else 0.0
        if score_dev is None:
            score = float(epoch)
        else:
            kept = expand(stored)
            with engine.installed(kept, averaged.index) as table:
                model.weights = table
                score = score_dev(table, stored.rows, record)
            del kept
        del averaged
        model.weights = engine.W
        self.history.append(record)
        improved = score > self.score
        if improved:
            self.score, self.epoch, self.stored = score, epoch, stored
        return improved, score_dev is not None and epoch - self.epoch >= self.patience


PRUNE_WARN_SHARE = 0.1
"""``--prune`` keeping less than this share of the non-zero weights gets a warning."""


def pruned_share(best: BestEpoch, prune: float, progress: Optional[TextIO]) -> Optional[dict]:
    """With ``--prune T`` (``prune`` > 0): the kept epoch's weights stored and non-zero before
    pruning, and the share kept (for ``model.json`` and the summary); None without pruning.

    Raises:
        UsageError: ``T`` left out every weight: the model would attach every word the same
            way, so it is not saved (called before saving; the message gives the largest
            ``|w|`` to choose a smaller ``T`` by).
    """
    if prune <= 0 or not best.history:
        return None
    record = best.history[best.epoch - 1]
    kept, of = int(record["weights_stored"]), int(record.get("weights_before_prune", 0))
    if of and not kept:
        raise UsageError(f"--prune {prune:g} leaves out all {of:,} weights of the kept epoch {best.epoch} (the "
                         f"largest |w| is {record.get('weights_peak', 0.0):.4g}): the model would parse every "
                         "sentence the same way; choose a smaller T (nothing was saved)")
    share = kept / of if of else 1.0
    if share < PRUNE_WARN_SHARE:
        (progress or sys.stderr).write(
            f"warning: --prune {prune:g} keeps only {kept:,} of {of:,} weights ({100 * share:.2f}%) of the kept "
            f"epoch {best.epoch}: parsing will be much worse than the unpruned model's (largest |w| "
            f"{record.get('weights_peak', 0.0):.4g}); a smaller T keeps more\n")
    return {"prune": prune, "stored": kept, "nonzero": of, "share": round(share, 6)}
