"""Weight tables as stored: sparse, pruned, quantised, compressed.

A perceptron's hashed table has ``2**hash_bits`` rows of one weight per output, but only the
weights that were ever updated are not zero (about 3% of them for arc-eager on en_gum). A
model therefore keeps only those, row by row:

    rows     int32   the table rows holding at least one stored weight, ascending
    counts   uint16  how many weights each of those rows holds
    cols     uint8 (uint16 past 256 outputs)  the output of each weight, ascending within a row
    values   float32 | float16 | int16 | int8  the weights
    scale    float32 [outputs]  per-output factor of integer values (1 for float values)

in one ``numpy.savez_compressed`` file (no pickle). Precision and pruning are the size
trade-off: ``float16`` keeps 11 significant bits; ``int16``/``int8`` store ``round(w /
scale)`` with ``scale = max |w| / 32767`` (``/ 127``) per output, so weights below half a step
vanish; ``prune`` drops weights whose magnitude is below it. :func:`store` and :func:`expand`
are the only ways in and out, so the dev set is scored during training on exactly the weights
that are saved.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

PRECISIONS = {"float32": np.float32, "float16": np.float16, "int16": np.int16, "int8": np.int8}
"""Storage types of the weights, by name."""
DEFAULT_PRECISION = "float16"
KEYS = ("rows", "counts", "cols", "values", "scale")


class WeightsError(ValueError):
    """A weights file that cannot be used (the message names the file)."""


@dataclass
class SparseWeights:
    """The non-zero weights of a dense ``[rows, outputs]`` table: flat indices ``row *
    outputs + output`` (int64, ascending) and values (float32)."""

    index: np.ndarray
    values: np.ndarray
    outputs: int

    @classmethod
    def from_dense(cls, table: np.ndarray, chunk_rows: int = 1 << 14) -> "SparseWeights":
        """The non-zero weights of ``table``, read a block of rows at a time (no dense
        temporary of the table's size)."""
        C = table.shape[1]
        idx, vals = [], []
        for a in range(0, table.shape[0], chunk_rows):
            block = table[a:a + chunk_rows]
            r, c = np.nonzero(block)
            idx.append((r.astype(np.int64) + a) * C + c)
            vals.append(block[r, c].astype(np.float32))
        index = np.concatenate(idx) if idx else np.zeros(0, np.int64)
        values = np.concatenate(vals) if vals else np.zeros(0, np.float32)
        return cls(index, values, C)

    def live_rows(self) -> np.ndarray:
        """The table rows that hold a weight (int64, ascending)."""
        return np.unique(self.index // self.outputs)

    def write_into(self, table: np.ndarray) -> None:
        """Set the table's entries at these indices to these values (others untouched)."""
        table.reshape(-1)[self.index] = self.values


@dataclass
class StoredWeights:
    """A table as it is written: see the module docstring."""

    rows: np.ndarray
    counts: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    scale: np.ndarray
    precision: str

    @property
    def outputs(self) -> int:
        return len(self.scale)

    @property
    def size(self) -> int:
        """Weights stored."""
        return len(self.values)


def store(sparse: SparseWeights, precision: str = DEFAULT_PRECISION, prune: float = 0.0) -> StoredWeights:
    """Prune (drop ``|w| < prune``) and quantise a sparse table; weights that round to zero
    are dropped as well.  Refuses non-finite weights (a diverged training)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    C = sparse.outputs
    vals = np.asarray(sparse.values, dtype=np.float32)
    bad = int(np.count_nonzero(~np.isfinite(vals)))
    if bad:
        raise WeightsError(f"{bad} weights are not finite (NaN or infinite): training diverged")
    keep = np.abs(vals) >= prune if prune > 0 else vals != 0
    index, vals = sparse.index[keep], vals[keep]
    cols = (index % C).astype(np.int64)
    dtype = PRECISIONS[precision]
    scale = np.ones(C, dtype=np.float32)
    if np.issubdtype(dtype, np.integer):
        top = np.iinfo(dtype).max
        peak = np.zeros(C, dtype=np.float32)
        np.maximum.at(peak, cols, np.abs(vals))
        scale = np.where(peak > 0, peak / top, 1.0).astype(np.float32)
        q = np.clip(np.rint(vals / scale[cols]), -top, top).astype(dtype)
    else:
        with np.errstate(over="ignore"):
            q = vals.astype(dtype)
        if precision == "float16" and np.any(np.isinf(q)):
            raise WeightsError(f"weights beyond float16's range (max |w| {float(np.abs(vals).max()):.4g}); "
                               "store them as float32 or int16")
    nz = q != 0
    index, cols, q = index[nz], cols[nz], q[nz]
    row_of = index // C
    rows, counts = np.unique(row_of, return_counts=True)
    return StoredWeights(rows=rows.astype(np.int32), counts=counts.astype(np.uint16),
                         cols=cols.astype(np.uint8 if C <= 256 else np.uint16), values=q, scale=scale,
                         precision=precision)


def expand(stored: StoredWeights) -> SparseWeights:
    """The float32 weights a stored table stands for."""
    C = stored.outputs
    row_of = np.repeat(stored.rows.astype(np.int64), stored.counts.astype(np.int64))
    cols = stored.cols.astype(np.int64)
    values = stored.values.astype(np.float32) * stored.scale[cols]
    return SparseWeights(row_of * C + cols, values.astype(np.float32), C)


def dense(stored: StoredWeights, hash_bits: int) -> np.ndarray:
    """The dense float32 ``[2**hash_bits, outputs]`` table the kernel reads."""
    table = np.zeros((1 << hash_bits, stored.outputs), dtype=np.float32)
    expand(stored).write_into(table)
    return table


REF_COUNT_SHIFT = 26            # a bucket's reference: count << 26 | offset (see ParseTable)
ROW_SLACK = 8                   # zeros after a float16 table's last dense row (the kernel's ROW_SLACK)
REF_DENSE = 63                  # the count that marks a dense row
DENSE_FROM = 3                  # rows holding at least this many weights are kept dense (fewest)


def dense_from_for(outputs: int) -> int:
    """The row density from which the parse table keeps a row dense, for ``outputs`` outputs:
    one 32nd of them, at least :data:`DENSE_FROM`, at most ``REF_DENSE - 1`` (a count that
    fits a reference).  A float16 dense row costs ``2 * outputs`` bytes and, added in a run
    of dense rows, about three instructions per 16 outputs (AVX-512; six with AVX2); a
    sparse one costs 4 bytes and about seven instructions per weight, and ends the run.
    Measured on en_gum models (stop 33, kernel alone, same parses): from 16 down to 3 made
    NM Covington 15% faster, non-projective easy-first 12% and Covington 10%, whose steps
    read the same rows again and again, while in the same sweep arc-eager (whose rows are
    mostly read once a sentence, so that memory, not arithmetic, sets its pace) lost 11% and
    easy-first with K = 4 (outputs // 32 = 13) 2%, both far above 100 k words/s (level in
    the side-by-side bench: docs/kernels.md, stop 33).  The table grows: 24 MB to 94 MB for
    NM Covington's 110 outputs, 18 MB to 91 MB for arc-eager's 146, 31 MB to about 45 MB
    for the 433 of K = 4."""
    return min(REF_DENSE - 1, max(DENSE_FROM, outputs // 32))


@dataclass
class ParseTable:
    """The weights as the kernel parses from them (``Learner.set_sparse``), a few tens of
    megabytes where the dense ``[2**hash_bits, outputs]`` table takes hundreds.

    Each bucket has one uint32 reference ``count << 26 | offset``: a row holding fewer
    weights than the threshold (:func:`dense_from_for`) keeps them as (output, weight) pairs
    ``entries[offset:offset + count]`` (none: reference 0); a fuller row (``count ==
    REF_DENSE``) is row ``offset`` of ``dense``, all outputs.  A rarely seen feature's row is
    a couple of weights, a few bytes instead of ``outputs`` half floats; a row of more is
    added as a vector, in a run of such rows.

    When every weight is a float16 value (float16 weights, scale 1) both parts stay
    float16: the dense rows, and each pair is one uint32 ``output | float16 bits << 16``
    (4 bytes instead of 8, so a row of up to 15 weights is one cache line).  Each weight
    widens to the same float32, so the sums are those of the float32 table.  Otherwise a
    pair is two int32, the output and the float32 weight's bits."""

    refs: np.ndarray      # uint32 [2**hash_bits]
    entries: np.ndarray   # int32 [sparse weights, 2] (output, float32 bits), or uint32 [sparse weights] packed
    dense: np.ndarray     # float32 [dense rows, outputs], or float16 when every weight is one (exactly)
    flat: Optional[np.ndarray] = None
    """The buffer ``dense`` is a view of, with :data:`ROW_SLACK` zeros after the last row
    when float16 (:func:`parse_table` makes it so; None: ``dense`` alone)."""

    def kernel_dense(self) -> np.ndarray:
        """The dense rows as the kernel takes them (``Learner.set_sparse``): one flat array,
        followed by :data:`ROW_SLACK` zeros when float16 (the kernel reads a float16 row's
        last outputs as one vector, a few values past its end).  The table's own buffer when
        it has them (no copy: a model's dense rows are most of a parsing process's memory),
        else a copy with them."""
        slack = ROW_SLACK if self.half else 0
        size = self.dense.size
        if (self.flat is not None and self.flat.dtype == self.dense.dtype and self.flat.size == size + slack
                and np.shares_memory(self.flat, self.dense) and not self.flat[size:].any()):
            return self.flat
        return np.concatenate([np.ascontiguousarray(self.dense).reshape(-1), np.zeros(slack, self.dense.dtype)])

    @property
    def half(self) -> bool:
        """Whether the weights are kept as float16 (packed pairs, float16 dense rows)."""
        return self.dense.dtype == np.float16

    def pairs(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """The outputs (int64) and float32 weights of sparse pairs start..stop - 1."""
        e = self.entries[start:stop]
        if self.half:
            return (e & 0xFFFF).astype(np.int64), (e >> 16).astype(np.uint16).view(np.float16).astype(np.float32)
        return e[:, 0].astype(np.int64), e[:, 1].view(np.float32)

    @property
    def size(self) -> int:
        return len(self.entries) + int(np.count_nonzero(self.dense))


def parse_table(stored: StoredWeights, hash_bits: int, dense_from: Optional[int] = None,
                chunk_rows: int = 1 << 15) -> Optional[ParseTable]:
    """The parse-time table of a stored one, with the same float32 values as :func:`expand`;
    None when it does not fit the references (more than 2**26 sparse weights or dense rows).
    Rows of at least ``dense_from`` weights are kept dense (default: :func:`dense_from_for`);
    the scores are the same for any threshold.  Built ``chunk_rows`` stored rows at a time,
    so that the temporaries stay a few megabytes whatever the model's size (the dense rows,
    which the table keeps, are most of a parsing process's memory)."""
    if dense_from is None:
        dense_from = dense_from_for(stored.outputs)
    if not 1 <= dense_from < REF_DENSE:
        raise ValueError(f"dense_from must be in 1..{REF_DENSE - 1}")
    C = stored.outputs
    counts = stored.counts.astype(np.int64)
    full = counts >= dense_from
    # float16 weights (scale 1) stay float16 (see ParseTable): the kernel widens each to the
    # same float32 as it adds it, so the sums are the same, from half the bytes
    half = stored.precision == "float16" and bool(np.all(stored.scale == 1)) and C <= 1 << 16
    n_dense, n_sparse = int(full.sum()), int(counts[~full].sum())
    if n_sparse >= 1 << REF_COUNT_SHIFT or n_dense >= 1 << REF_COUNT_SHIFT:
        return None
    dtype = np.float16 if half else np.float32
    flat = np.zeros(n_dense * C + (ROW_SLACK if half else 0), dtype=dtype)
    table = flat[:n_dense * C].reshape(n_dense, C)
    entries = np.empty(n_sparse, dtype=np.uint32) if half else np.empty((n_sparse, 2), dtype=np.int32)
    first = np.concatenate(([0], np.cumsum(counts)))           # each row's first weight
    dense_id = np.cumsum(full) - 1                              # each dense row's number
    sparse_at = np.concatenate(([0], np.cumsum(np.where(full, 0, counts))))  # each row's first pair
    for a in range(0, len(counts), chunk_rows):
        b = min(a + chunk_rows, len(counts))
        lo, hi = int(first[a]), int(first[b])
        c = counts[a:b]
        cols = stored.cols[lo:hi].astype(np.int64)
        values = stored.values[lo:hi]
        if not half:
            values = (values.astype(np.float32) * stored.scale[cols]).astype(np.float32)
        dense_w = np.repeat(full[a:b], c)
        target = np.repeat(dense_id[a:b][full[a:b]] * C, c[full[a:b]])
        target += cols[dense_w]
        flat[target] = values[dense_w]
        pair_lo, pair_hi = int(sparse_at[a]), int(sparse_at[b])
        if half:
            bits = values[~dense_w].astype(np.float16).view(np.uint16).astype(np.uint32)
            entries[pair_lo:pair_hi] = cols[~dense_w].astype(np.uint32) | bits << np.uint32(16)
        else:
            entries[pair_lo:pair_hi, 0] = cols[~dense_w]
            entries[pair_lo:pair_hi, 1] = values[~dense_w].view(np.int32)
    offsets = np.where(full, dense_id, sparse_at[:-1])
    refs = np.zeros(1 << hash_bits, dtype=np.uint32)
    refs[stored.rows.astype(np.int64)] = (np.where(full, REF_DENSE, counts) << REF_COUNT_SHIFT
                                          | offsets).astype(np.uint32)
    return ParseTable(refs, entries, table, flat)


def write(path: Path, stored: StoredWeights) -> None:
    """Write ``path`` (a ``.npz`` file, compressed)."""
    with open(path, "wb") as fh:
        np.savez_compressed(fh, rows=stored.rows, counts=stored.counts, cols=stored.cols, values=stored.values,
                            scale=stored.scale)


def read(path: Path, outputs: int, hash_bits: int, precision: Optional[str] = None) -> StoredWeights:
    """Read and check ``path``: shapes and types that fit ``outputs`` and ``hash_bits``, finite
    values and scales.  Every problem is a :class:`WeightsError` naming the file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in KEYS if k not in z.files]
            if missing:
                raise WeightsError(f"{path}: not a weights file (missing {', '.join(missing)})")
            arrays = {k: z[k] for k in KEYS}
    except FileNotFoundError:
        raise WeightsError(f"{path}: missing") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        if isinstance(exc, WeightsError):
            raise
        raise WeightsError(f"{path}: cannot read the weights ({exc})") from None
    rows, counts, cols, values, scale = (arrays[k] for k in KEYS)
    names = {np.dtype(t).name: n for n, t in PRECISIONS.items()}
    kind = names.get(values.dtype.name)
    ok = (kind is not None and (precision is None or kind == precision)
          and rows.ndim == counts.ndim == cols.ndim == values.ndim == scale.ndim == 1
          and rows.dtype == np.int32 and counts.dtype == np.uint16 and cols.dtype.kind == "u"
          and scale.dtype == np.float32 and len(scale) == outputs and len(rows) == len(counts)
          and len(cols) == len(values) == int(counts.astype(np.int64).sum()))
    if ok and len(rows):
        ok = (rows.min() >= 0 and rows.max() < (1 << hash_bits) and np.all(np.diff(rows) > 0)
              and int(cols.max()) < outputs)
    if not ok:
        raise WeightsError(f"{path}: the arrays do not fit {outputs} outputs and {hash_bits} hash bits"
                           + (f" stored as {precision}" if precision else ""))
    check_finite(path, values, scale)
    return StoredWeights(rows, counts, cols, values, scale, kind)


def check_finite(path: Path, values: np.ndarray, scale: Optional[np.ndarray] = None) -> None:
    """Refuse NaN or infinite weights (or scales), naming the file."""
    bad = int(np.count_nonzero(~np.isfinite(values))) if values.dtype.kind == "f" else 0
    bad_scale = int(np.count_nonzero(~np.isfinite(scale))) if scale is not None else 0
    if bad or bad_scale:
        what = f"{bad} weights" if bad else f"{bad_scale} output scales"
        raise WeightsError(f"{path}: {what} are not finite (NaN or infinite); the model is damaged "
                           "or its training diverged: retrain it")
