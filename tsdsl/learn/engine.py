"""A compiled kernel, a feature program, classifier outputs and a weight table, bound
together: the thin layer between numpy arrays and the kernel's ``Learner``."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Optional

import numpy as np

from ..errors import UsageError
from .data import Batch
from .outputs import Outputs
from .weights import SparseWeights

OPEN_R = {"R": 1, "L": 0}


class Engine:
    """Greedy and beam search, training and parsing, for one system and one weight table."""

    def __init__(self, kernel, features, outputs: Outputs, hash_bits: int, *,
                 weights: Optional[np.ndarray] = None, train: bool = False,
                 live_rows: Optional[np.ndarray] = None):
        """``live_rows``: for parsing, the rows of ``weights`` that may be non-zero (computed
        when not given); the others are never read."""
        if not hasattr(kernel, "module") or not hasattr(kernel.module, "Learner"):
            raise UsageError("training and parsing need the compiled kernel (no C compiler was found)")
        self.kernel = kernel
        self.features = features
        self.outputs = outputs
        self.hash_bits = hash_bits
        C = len(outputs)
        rows = 1 << hash_bits
        if weights is None:
            weights = np.zeros((rows, C), dtype=np.float32)
        if weights.shape != (rows, C) or weights.dtype != np.float32 or not weights.flags.c_contiguous:
            raise UsageError(f"weight table has shape {weights.shape}, expected {(rows, C)} float32")
        self.W = weights
        self.live = np.zeros(1 if train else rows, dtype=np.uint8)
        if not train:
            self.live[np.flatnonzero(np.any(weights != 0, axis=1)) if live_rows is None else live_rows] = 1
        self._addr = np.ascontiguousarray(features.addresses, dtype=np.int32).reshape(-1)
        self._atom = np.ascontiguousarray(features.atoms, dtype=np.int32).reshape(-1)
        self._tpl = np.ascontiguousarray(features.templates, dtype=np.int32).reshape(-1)
        self._open = np.asarray([OPEN_R[d.open_end] for d in kernel.system.lists] + [0], dtype=np.uint8)
        self._cls = np.ascontiguousarray(outputs.table, dtype=np.int32)
        self.learner = kernel.module.Learner(
            self._addr, len(features.addresses), self._atom, len(features.atoms), self._tpl, len(features.templates),
            self._open, self._cls, C, self.W, None if train else self.live, rows - 1)

    def averaged(self) -> SparseWeights:
        """The averaged-perceptron weights (training), sparse: every weight ever updated,
        ``W - sum / clock``.  Weights never updated are zero in both tables."""
        n = self.learner.n_sums
        index = np.empty(n, dtype=np.int64)
        sums = np.empty(n, dtype=np.float64)
        self.learner.sums_into(index, sums)
        order = np.argsort(index)
        index, sums = index[order], sums[order]
        del order
        values = (self.W.reshape(-1)[index] - sums / self.learner.clock).astype(np.float32)
        return SparseWeights(index, values, len(self.outputs))

    @contextmanager
    def installed(self, weights: SparseWeights, cover: np.ndarray):
        """Within the block, the training table holds ``weights`` and is zero at the other
        flat indices of ``cover`` (every weight ever updated, see :meth:`averaged`; a subset
        of it is stored, the rest pruned); restored on leaving.  Lets the dev set be parsed
        on the weights as saved without a second dense table."""
        flat = self.W.reshape(-1)
        saved = flat[cover].copy()
        try:
            flat[cover] = 0.0
            flat[weights.index] = weights.values
            yield self.W
        finally:
            flat[cover] = saved

    def train_greedy(self, batch: Batch, order: np.ndarray, *, loss_index: int, dynamic: bool,
                     explore_p: float, seed: int) -> tuple[int, int, int]:
        order = np.ascontiguousarray(order, dtype=np.int32)
        return self.learner.train_greedy(batch.heads, batch.labels, batch.offsets, batch.tokens, order,
                                         loss_index, int(dynamic), float(explore_p), seed & 0x7FFFFFFFFFFFFFFF)

    def train_sequence(self, batch: Batch, order: np.ndarray, oracle) -> tuple[int, int, int]:
        """Static training along the derivations of a :class:`~tsdsl.learn.derive.SearchOracle`."""
        order = np.ascontiguousarray(order, dtype=np.int32)
        d = oracle.derivations
        return self.learner.train_sequence(batch.offsets, batch.tokens, order, d.actions, d.labels, oracle.targets,
                                           d.starts)

    def train_beam(self, batch: Batch, order: np.ndarray, *, width: int, loss_index: int,
                   dynamic: bool) -> tuple[int, int, int]:
        order = np.ascontiguousarray(order, dtype=np.int32)
        return self.learner.train_beam(batch.heads, batch.labels, batch.offsets, batch.tokens, order, width,
                                       loss_index, int(dynamic))

    def parse(self, batch: Batch, *, beam: int = 1, log_nonmonotonic: bool = False):
        """Heads (CoNLL-U numbering, -1: none) and label ids (-1: none) for every word,
        with (transitions, stuck sentences, nonmonotonic events array or None)."""
        total = batch.words
        heads = np.empty(total + 1, dtype=np.int32)
        labels = np.empty(total + 1, dtype=np.int32)
        if beam > 1:
            steps, stuck = self.learner.parse_beam(batch.offsets, batch.tokens, beam, heads, labels)
            return heads[:total], labels[:total], steps, stuck, None
        cap = 4 * total + 16 if log_nonmonotonic else 0
        events = np.empty(3 * cap + 3, dtype=np.int32)
        while True:
            steps, stuck, n_ev = self.learner.parse_greedy(batch.offsets, batch.tokens, heads, labels, events, cap)
            if n_ev <= cap:
                break
            cap = n_ev
            events = np.empty(3 * cap + 3, dtype=np.int32)
        ev = events[:3 * n_ev].reshape(n_ev, 3).copy() if log_nonmonotonic else None
        return heads[:total], labels[:total], steps, stuck, ev
