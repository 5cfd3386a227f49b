"""A compiled kernel, a feature program, classifier outputs and a weight table, bound
together: the thin layer between numpy arrays and the kernel's ``Learner``."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Optional

import numpy as np

from ..errors import UsageError
from ..kernels.arguments import MAX_BEAM, check_beam  # noqa: F401  (the learner's face of them)
from .data import Batch
from .derive import search_options
from .outputs import Outputs
from .scoring import program_for, scoring_groups
from .weights import ROW_SLACK, ParseTable, SparseWeights  # noqa: F401  (ROW_SLACK: the engine's face of it)

OPEN_R = {"R": 1, "L": 0}
FEATURE_HASH = 2
"""How the kernel hashes a template's atom values to its bucket (``hash_templates`` in
``_model.pxi``): 2 for models trained now; 1, the hash of models trained before stop 31
(``model.json`` without ``feature_hash``), is still read."""
FEATURE_HASHES = (1, 2)

class Engine:
    """Greedy and beam search, training and parsing, for one system and one weight table."""

    def __init__(self, kernel, features, outputs: Outputs, hash_bits: int, *,
                 weights: Optional[np.ndarray] = None, train: bool = False,
                 live_rows: Optional[np.ndarray] = None, cache: bool = True,
                 table: Optional[ParseTable] = None, feature_hash: int = FEATURE_HASH):
        """``live_rows``: for parsing, the rows of ``weights`` that may be non-zero (computed
        when not given); the others are never read.  ``cache``: capacity inf, keep instance
        scores between steps where that is exact (:func:`instance_cache_exact`).  ``table``:
        parse from this sparse table (:func:`~tsdsl.learn.weights.parse_table`) instead of a
        dense one (no ``weights`` then; the parses are the same, see the kernel's
        ``add_rows_sparse``).  ``feature_hash``: the hash the weights were trained with
        (:data:`FEATURE_HASH`, or 1 for an older model)."""
        if not hasattr(kernel, "module") or not hasattr(kernel.module, "Learner"):
            raise UsageError("training and parsing need the compiled kernel (no C compiler was found)")
        self.kernel = kernel
        self.features = features
        self.outputs = outputs
        self.hash_bits = hash_bits
        C = len(outputs)
        rows = 1 << hash_bits
        if table is not None:
            if train or weights is not None:
                raise UsageError("a sparse parse table is for parsing only, without a dense one")
            if table.refs.shape != (rows,) or table.dense.shape[1:] != (C,):
                raise UsageError(f"parse table has {len(table.refs)} rows of {table.dense.shape[1:]} outputs, "
                                 f"expected {rows} of {C}")
        elif weights is None:
            weights = np.zeros((rows, C), dtype=np.float32)
        if weights is not None and (weights.shape != (rows, C) or weights.dtype != np.float32
                                    or not weights.flags.c_contiguous):
            raise UsageError(f"weight table has shape {weights.shape}, expected {(rows, C)} float32")
        self.W = weights
        self.table = table
        self.live = np.zeros(1 if train or table is not None else rows, dtype=np.uint8)
        if not train and table is None:
            self.live[np.flatnonzero(np.any(weights != 0, axis=1)) if live_rows is None else live_rows] = 1
        # the kernel's program: buffer positions read from the buffer's first word where the
        # spec proves them its successors (the same features; see program_for)
        self.program = program = program_for(features, kernel.system)
        self._addr = np.ascontiguousarray(program.addresses, dtype=np.int32).reshape(-1)
        self._atom = np.ascontiguousarray(features.atoms, dtype=np.int32).reshape(-1)
        self._tpl = np.ascontiguousarray(features.templates, dtype=np.int32).reshape(-1)
        self._open = np.asarray([OPEN_R[d.open_end] for d in kernel.system.lists] + [0], dtype=np.uint8)
        self._cls = np.ascontiguousarray(outputs.table, dtype=np.int32)
        self.learner = kernel.module.Learner(
            self._addr, len(features.addresses), self._atom, len(features.atoms), self._tpl, len(features.templates),
            self._open, self._cls, C, self.W, None if train or table is not None else self.live, rows - 1)
        if feature_hash not in FEATURE_HASHES:
            raise UsageError(f"feature hash {feature_hash!r}: this tsdsl knows {', '.join(map(str, FEATURE_HASHES))}")
        self.feature_hash = feature_hash
        self.learner.feature_hash = feature_hash
        self.groups = scoring_groups(program)
        if self.groups.count:
            self.bind_groups()
        if table is not None:
            self._refs = np.ascontiguousarray(table.refs, dtype=np.uint32)
            self._entries = np.ascontiguousarray(table.entries, dtype=np.uint32 if table.half else np.int32).reshape(-1)
            if table.dense.dtype not in (np.float16, np.float32):
                table = ParseTable(table.refs, table.entries, table.dense.astype(np.float32))
            # float16 rows: ROW_SLACK zeros after the last (the kernel reads a row's last
            # outputs as one vector, a few weights past its end; see set_sparse); no copy
            # of a table parse_table made
            self._dense = table.kernel_dense()
            self.table = table
            self.learner.set_sparse(self._refs, self._entries, len(table.entries), self._dense, len(table.dense))
        self.unbounded = kernel.system.unbounded
        if self.unbounded:
            self._bases = np.ascontiguousarray(features.instance_bases, dtype=np.int32).reshape(-1)
            self.cached = bool(cache and instance_cache_exact(kernel.system, features))
            self.learner.set_instances(self._bases, len(self._bases) // 4, int(self.cached))
            if self.groups.instance_bases:
                self._inst_groups = self.groups.instance_table()
                self.learner.set_instance_groups(self._inst_groups, self.groups.count)

    def bind_groups(self, *, walks: Optional[tuple[tuple[tuple[int, ...], ...], ...]] = None) -> None:
        """Give the kernel the scoring groups (:mod:`~tsdsl.learn.scoring`); ``walks`` replace
        their reverse walks, one tuple of walks per group (the tests cut them short to see the
        self-check fail)."""
        g = self.groups
        table, nwalks = g.walk_table(walks)
        self.learner.set_groups(g.order, g.starts, g.count, np.ascontiguousarray(g.anchors.reshape(-1)),
                                table, nwalks)

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
        if self.unbounded:
            table, nact = self.instance_table(batch.offsets)
            return self.kernel.module.train_instances_greedy(
                self.learner, batch.heads, batch.labels, batch.offsets, batch.tokens, order, loss_index, int(dynamic),
                float(explore_p), seed & 0x7FFFFFFFFFFFFFFF, table, nact)
        return self.learner.train_greedy(batch.heads, batch.labels, batch.offsets, batch.tokens, order,
                                         loss_index, int(dynamic), float(explore_p), seed & 0x7FFFFFFFFFFFFFFF)

    def instance_table(self, offsets: np.ndarray) -> tuple[np.ndarray, int]:
        """Capacity inf: the kernel's action table for the longest sentence of a batch (the
        one :meth:`~tsdsl.kernels.compiled.CompiledSystem.derive` numbers instances by)."""
        longest = int(np.diff(offsets).max()) if len(offsets) > 1 else 0
        names, _, table = self.kernel._for_tokens(longest + (1 if self.kernel.system.root != "none" else 0))
        return table, len(names)

    def train_sequence(self, batch: Batch, order: np.ndarray, oracle) -> tuple[int, int, int]:
        """Static training along the derivations of a :class:`~tsdsl.learn.derive.SearchOracle`."""
        order = np.ascontiguousarray(order, dtype=np.int32)
        d = oracle.derivations
        if self.unbounded:
            table, nact = self.instance_table(batch.offsets)
            return self.kernel.module.train_instances(self.learner, batch.offsets, batch.tokens, order, d.actions,
                                                      d.labels, oracle.targets, d.starts, table, nact)
        return self.learner.train_sequence(batch.offsets, batch.tokens, order, d.actions, d.labels, oracle.targets,
                                           d.starts)

    def train_searched(self, batch: Batch, order: np.ndarray, *, budget: int) -> tuple[int, int, int]:
        """Greedy training with the derivation search as a non-deterministic oracle: every output
        after which the gold tree is still derivable is free, and the best-scoring free one is
        followed (see the kernel's ``_searched.pxi``).  ``budget``: configurations one search may
        expand.  The searches are guided as training's derivations
        (:func:`~tsdsl.learn.derive.search_options`, without its pruning)."""
        order = np.ascontiguousarray(order, dtype=np.int32)
        try_order = self.kernel.canonical_order()
        steps, wrong, stuck, _ = self.kernel.module.train_searched(
            self.learner, batch.heads, batch.labels, batch.offsets, batch.tokens, order,
            None if try_order is None else np.asarray(try_order, dtype=np.int32), int(budget),
            **self.kernel.search_arguments(**search_options(self.kernel, pruning=False)))
        return steps, wrong, stuck

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
        if self.unbounded:
            if beam > 1:
                raise UsageError(f"{self.kernel.system.name}: capacity inf parses greedily (beam search over "
                                 "family instances is not implemented); use --beam 1")
            if log_nonmonotonic:
                raise UsageError(f"{self.kernel.system.name}: the non-monotonic log is not kept for capacity inf")
            table, nact = self.instance_table(batch.offsets)
            steps, stuck = self.kernel.module.parse_instances(self.learner, batch.offsets, batch.tokens, heads, labels,
                                                              table, nact)
            return heads[:total], labels[:total], steps, stuck, None
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


def instance_cache_exact(system, features) -> bool:
    """Whether instance scores may be kept between steps (see the kernel's _instances.pxi):
    every feature address starts at an instance token and steps only to children
    (:attr:`~tsdsl.learn.features.FeatureSet.instance_local`), every arc is labeled (the
    kernel sees the arcs it bumps versions for through their labels) and the system is
    monotonic (no arc is taken back, so a token's subtree only grows)."""
    if not features.instance_local:
        return False
    if any(not op.labeled for f in system.families for c in f.template.cases for op in c.arcs):
        return False
    return system.is_monotonic(6)
