"""The end of a training epoch, shared by the tree and the graph trainers.

After every epoch the averaged weights are stored as they will be saved (pruned and
quantised, :mod:`tsdsl.learn.weights`); the development set is scored on exactly those,
installed for the parse in the training table (no second dense table); the epoch with the
best score is kept, and training stops once ``patience`` epochs pass without a better one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

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
