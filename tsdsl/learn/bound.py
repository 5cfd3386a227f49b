"""The bound head: what lets greedy parsing decide most unlabeled steps from one small entry
per feature row instead of the whole row (the kernel's ``_bound.pxi``).

A greedy step scores every legal output and takes the best. When an unlabeled output wins
(Covington's NO-ARC and SHIFT, arc-eager's SHIFT and REDUCE), the labeled outputs' scores
were read for nothing, and they are most of each row: 108 of Covington's 110 outputs. The
head keeps per bucket of the weight table, in ``hw`` columns:

- the weights of the unlabeled outputs, in output order, exactly as the table holds them;
- then, per family of labeled outputs (those of one action: LEFT-ARC's labels), the largest
  weight of the family in the row, counting 0 for an output a sparse row does not store
  (its weight is 0).

Summed over a step's rows in the kernel's order, the first columns give the unlabeled
outputs' scores bit for bit, and the others a bound on the score of every labeled output of
their family. A best unlabeled score above the bound of every family with a legal output
decides the step as scoring every row would (the kernel's self-check compares the two). float16 weights stay float16 here (the largest of
float16 values is one of them), so the head takes ``2 * hw`` bytes a bucket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .weights import REF_COUNT_SHIFT, REF_DENSE, ParseTable

HEAD_MAX = 8
"""The widest head the kernel takes (``HEAD_MAX`` in ``_model.pxi``)."""


@dataclass(frozen=True)
class HeadLayout:
    """Which outputs the head holds: ``cols`` per output its column (int32; -1 for a labeled
    output), ``family`` per output its family of labeled outputs (int32; -1 for an unlabeled
    one), ``width`` the head's columns."""

    cols: np.ndarray
    family: np.ndarray
    width: int

    @property
    def unlabeled(self) -> np.ndarray:
        return np.flatnonzero(self.cols >= 0)

    @property
    def families(self) -> int:
        return int(self.family.max()) + 1


def head_layout(table: np.ndarray) -> Optional[HeadLayout]:
    """The head's layout for classifier outputs ``table`` (the kernel's [C, CLS_W] rows: label
    id, -1 for none, then the output's action units), or None when there is no head to keep:
    no unlabeled or no labeled output, or more unlabeled ones than fit. The labeled outputs
    of one set of actions (LEFT-ARC's labels) are a family, so that a step where only some
    actions are legal is bounded by their families alone; all labeled outputs are one family
    when there are too many."""
    labels = table[:, 0]
    unlabeled = np.flatnonzero(labels < 0)
    labeled = np.flatnonzero(labels >= 0)
    if len(unlabeled) == 0 or len(labeled) == 0 or len(unlabeled) + 1 > HEAD_MAX:
        return None
    cols = np.full(len(labels), -1, dtype=np.int32)
    cols[unlabeled] = np.arange(len(unlabeled), dtype=np.int32)
    keys = {}
    family = np.full(len(labels), -1, dtype=np.int32)
    for c in labeled:
        family[c] = keys.setdefault(tuple(int(u) for u in table[c, 1:]), len(keys))
    if len(unlabeled) + len(keys) > HEAD_MAX:
        family[labeled] = 0
    need = len(unlabeled) + int(family.max()) + 1
    return HeadLayout(cols, family, 2 if need <= 2 else 4 if need <= 4 else 8)


def _fill(head: np.ndarray, at: np.ndarray, rows: np.ndarray, layout: HeadLayout) -> None:
    """head[at] from full rows ``rows`` (one per bucket of ``at``)."""
    U = len(layout.unlabeled)
    head[at, :U] = rows[:, layout.unlabeled]
    for f in range(layout.families):
        head[at, U + f] = rows[:, np.flatnonzero(layout.family == f)].max(axis=1)


def head_from_table(table: ParseTable, layout: HeadLayout) -> np.ndarray:
    """The head of a parse-time table (see the module docstring)."""
    U = len(layout.unlabeled)
    head = np.zeros((len(table.refs), layout.width), dtype=np.float16 if table.half else np.float32)
    counts = (table.refs >> np.uint32(REF_COUNT_SHIFT)).astype(np.int64)
    offsets = (table.refs & np.uint32((1 << REF_COUNT_SHIFT) - 1)).astype(np.int64)
    dense_b = np.flatnonzero(counts == REF_DENSE)
    if len(dense_b):
        _fill(head, dense_b, table.dense[offsets[dense_b]], layout)
    sparse_b = np.flatnonzero((counts > 0) & (counts != REF_DENSE))
    if len(sparse_b):
        n = counts[sparse_b]
        first = np.concatenate(([0], np.cumsum(n)[:-1]))  # each row's first pair, in sparse_b order
        out, val = table.pairs(0, len(table.entries))
        if not np.array_equal(offsets[sparse_b], first):  # (parse_table stores them so: no gather)
            entry = np.repeat(offsets[sparse_b] - first, n) + np.arange(int(n.sum()))
            out, val = out[entry], val[entry]
        col = layout.cols[out]
        fam = layout.family[out]
        head[np.repeat(sparse_b, n)[col >= 0], col[col >= 0]] = val[col >= 0]
        for f in range(layout.families):
            mine = fam == f
            size = np.count_nonzero(layout.family == f)
            top = np.maximum.reduceat(np.where(mine, val, -np.inf), first)
            if size > n.max():  # every sparse row lacks one of the family's outputs: its 0 counts
                head[sparse_b, U + f] = np.maximum(top, 0)
                continue
            stored = np.add.reduceat(mine.astype(np.int64), first)
            # a row lacking one of the family's outputs holds 0 for it
            head[sparse_b, U + f] = np.where(stored < size, np.maximum(top, 0), top)
    return head


def head_from_dense(weights: np.ndarray, live: np.ndarray, layout: HeadLayout) -> np.ndarray:
    """The head of a dense float32 table whose rows ``live`` (uint8 per row) are the only ones
    the kernel reads (the others count as 0)."""
    head = np.zeros((len(weights), layout.width), dtype=np.float32)
    rows = np.flatnonzero(live)
    for start in range(0, len(rows), 1 << 14):  # in chunks: the table may be hundreds of MB
        r = rows[start:start + (1 << 14)]
        _fill(head, r, weights[r], layout)
    return head
