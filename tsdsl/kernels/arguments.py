"""Checks of the arguments a user passes to a compiled system, before anything reaches C.

A kernel reads raw memory: a ``None`` state, a float array of action ids or a head out of
range would be read as something else (or crash the process) rather than refused.  So every
argument of the Python API of :mod:`tsdsl.kernels.compiled` and :mod:`tsdsl.kernels.batch`
passes one of these checks, each raising :class:`~tsdsl.errors.UsageError` with a message
that names the argument and what was wrong with it.  ``UsageError`` is a ``ValueError``,
as a numpy user expects of a bad argument.
"""

from __future__ import annotations

import operator
from typing import Optional

import numpy as np

from ..errors import UsageError


def flat_ints(rows, what: str) -> np.ndarray:
    """The integer sequences ``rows`` concatenated into one int32 array; refused (UsageError)
    when a value is not an integer or does not fit in int32, which a cast would wrap or
    truncate into another valid-looking number."""
    parts = [a for a in map(np.asarray, rows) if a.size]  # an empty row is float64: it would cast the rest
    try:
        flat = np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)
    except ValueError:  # a scalar, or rows of other shapes
        raise UsageError(f"{what}: expected one sequence of integers per sentence") from None
    if flat.ndim != 1:
        raise UsageError(f"{what}: expected one sequence of integers per sentence, not rows of shape {flat.shape[1:]}")
    if flat.dtype.kind not in "iu":
        raise UsageError(f"{what}: expected integers, got dtype {flat.dtype.name}")
    if flat.dtype != np.int32:
        if flat.size and (flat.min() < -(2 ** 31) or flat.max() >= 2 ** 31):
            raise UsageError(f"{what}: a value does not fit in int32")
        flat = flat.astype(np.int32)
    return flat


MAX_SENTENCE_LENGTH = 10_000
"""The longest sentence (in words) a configuration may have.  Treebank sentences stay far
below it (the longest UD sentences have a few hundred words), and it keeps the kernels' int
arithmetic exact: a state holds lists of 3 (n + 2) + 8 ints, a multihead state an
(n + 2) x (n + 2) arc matrix, and the oracle pass bounds a derivation at 4 (n + 2)^2 + 16
steps, all far below 2^31 for n <= 10 000.  Checked before any length reaches int32, which
would wrap 2^32 + 3 to 3."""


def sentence_length(value, what: str) -> int:
    """One sentence length: an integer in 0..:data:`MAX_SENTENCE_LENGTH`, or a UsageError
    naming ``what`` and the limit."""
    n = count(value, what)
    if n > MAX_SENTENCE_LENGTH:
        raise UsageError(f"{what}: {n} words is more than the longest sentence tsdsl takes "
                         f"({MAX_SENTENCE_LENGTH:,} words)")
    return n


def sentence_lengths(values, what: str) -> np.ndarray:
    """Sentence lengths as an int32 array, each checked to lie in
    0..:data:`MAX_SENTENCE_LENGTH` before any cast: int32 would wrap 2^32 to 0, and numpy
    reads a list holding 2^63 as floats."""
    def too_long(k: int, n: int) -> UsageError:
        return UsageError(f"{what}: sentence {k} has {n} words, more than the longest sentence tsdsl takes "
                          f"({MAX_SENTENCE_LENGTH:,} words)")

    if not isinstance(values, np.ndarray):
        values = list(values)
        for k, v in enumerate(values):
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v > MAX_SENTENCE_LENGTH:
                raise too_long(k, int(v))
    arr = np.asarray(values)
    if arr.size and arr.ndim == 1 and arr.dtype.kind in "iu":
        big = np.flatnonzero(arr > MAX_SENTENCE_LENGTH)
        if len(big):
            raise too_long(int(big[0]), int(arr[big[0]]))
    lengths = int_vector(arr, what)
    if len(lengths) and lengths.min() < 0:
        k = int(np.flatnonzero(lengths < 0)[0])
        raise UsageError(f"{what}: expected non-negative sentence lengths (sentence {k}: {int(lengths[k])})")
    return lengths.astype(np.int32)


def int_vector(values, what: str) -> np.ndarray:
    """A 1-d sequence of integers as an int64 array; floats and booleans are refused, as
    numpy would truncate 0.7 to 0 or read a mask as the indexes 0 and 1."""
    arr = np.asarray(values)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim != 1:
        raise UsageError(f"{what}: expected a 1-d sequence of integers, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise UsageError(f"{what}: expected integers, got dtype {arr.dtype.name}")
    return arr.astype(np.int64)


def selection(select, n: int) -> np.ndarray:
    """The sentence indexes ``select`` picks among ``n`` (None: all): integer indexes in
    0..n-1, or a boolean mask of length n (True: taken), as numpy indexing reads them."""
    if select is None:
        return np.arange(n, dtype=np.int64)
    arr = np.asarray(select)
    if arr.dtype == np.bool_:
        if arr.shape != (n,):
            raise UsageError(f"select: a boolean mask must have one entry per sentence ({n}), got shape {arr.shape}")
        return np.flatnonzero(arr).astype(np.int64)
    idx = int_vector(arr, "select")
    if len(idx) and (idx.min() < 0 or idx.max() >= n):
        raise UsageError(f"select: sentence indexes must lie in 0..{n - 1}")
    return idx


def check_gold_trees(heads: np.ndarray, offsets: np.ndarray) -> None:
    """Refuse gold heads that are not trees: sentence i's heads (CoNLL-U numbering) are
    ``heads[offsets[i]:offsets[i + 1]]``, each in 0..n, none a word's own, and no cycle
    (every word reaches the root 0; several words may take it).  The one check behind
    :meth:`CompiledSystem.pack`, :meth:`~CompiledSystem.oracle_pass`,
    :meth:`~CompiledSystem.batch`, :meth:`~CompiledSystem.derive` and
    :meth:`~CompiledSystem.attach_gold`: costs under a non-tree mean nothing, and the
    oracle pass would count the sentence as stuck without saying why.  Vectorised (numpy,
    O(words log n)), once per call, not per step.

    Raises:
        UsageError: naming the first bad sentence and word.
    """
    from ..treebank.trees import cycle_word, reaches_root

    heads = np.asarray(heads)
    offsets = np.asarray(offsets, dtype=np.int64)
    total = int(offsets[-1]) if len(offsets) else 0
    if not total:
        return
    lengths = np.diff(offsets)
    sent = np.repeat(np.arange(len(lengths)), lengths)
    word = np.arange(total) - offsets[sent] + 1  # CoNLL-U number of each word
    n = lengths[sent]
    h = heads[:total].astype(np.int64)

    def first(bad: np.ndarray) -> tuple[int, int, int]:
        k = int(np.flatnonzero(bad)[0])
        return int(sent[k]), int(word[k]), int(h[k])

    bad = (h < 0) | (h > n)
    if bad.any():
        si, d, x = first(bad)
        raise UsageError(f"sentence {si}: a gold head is outside 0..{lengths[si]} (word {d}: {x})")
    bad = h == word
    if bad.any():
        si, d, _ = first(bad)
        raise UsageError(f"sentence {si}: word {d} is its own gold head")
    bad = ~reaches_root(h, offsets)
    if bad.any():
        si = first(bad)[0]
        d = cycle_word(h[offsets[si]:offsets[si + 1]].tolist())
        raise UsageError(f"sentence {si}: the gold heads have a cycle through word {d}")


def check_label_ids(labels: np.ndarray, offsets: np.ndarray, n_labels: int) -> None:
    """Refuse a gold label id outside 0..n_labels-1 (sentence i's ids are
    ``labels[offsets[i]:offsets[i + 1]]``), naming the first one's sentence and word."""
    bad = np.flatnonzero((labels < 0) | (labels >= n_labels))
    if len(bad):
        k = int(bad[0])
        si = int(np.searchsorted(offsets, k, side="right")) - 1
        raise UsageError(f"sentence {si}: gold label id {int(labels[k])} (word {k - int(offsets[si]) + 1}) "
                         f"is outside 0..{n_labels - 1}")


def label_range(n_labels: int) -> str:
    """How a message names the label ids there are: ``0..L-1``, or that there are none."""
    return f"0..{n_labels - 1}" if n_labels > 0 else "no label ids are known"


def count(value, what: str) -> int:
    """A non-negative integer argument (a number of label ids), or a UsageError naming it."""
    if isinstance(value, (bool, np.bool_)):
        raise UsageError(f"{what} must be an integer, not bool")
    try:
        k = operator.index(value)
    except TypeError:
        raise UsageError(f"{what} must be an integer, not {type(value).__name__}") from None
    if k < 0:
        raise UsageError(f"{what} must be 0 or more, not {k}")
    return k


def integer_id(value, what: str) -> Optional[int]:
    """``value`` as an int when it is an integer (Python or numpy, not bool), else None."""
    if isinstance(value, (bool, np.bool_)):
        raise UsageError(f"{what}: expected a name or an integer id, not bool")
    if isinstance(value, (int, np.integer)):
        return int(value)
    return None


def out_buffer(out: Optional[np.ndarray], length: int, dtype, what: str) -> np.ndarray:
    """``out``, checked to be a writeable C-contiguous 1-d ``dtype`` array of exactly
    ``length`` items (the kernel writes through it), or a new one when None."""
    if out is None:
        return np.empty(length, dtype=dtype)
    if not isinstance(out, np.ndarray):
        raise UsageError(f"{what}: expected a numpy array, got {type(out).__name__}")
    if out.dtype != dtype:
        raise UsageError(f"{what}: expected dtype {np.dtype(dtype).name}, got {out.dtype.name}")
    if out.shape != (length,):
        raise UsageError(f"{what}: expected shape ({length},), got {out.shape}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise UsageError(f"{what}: expected a writeable C-contiguous array")
    return out


MAX_BEAM = 256
"""The widest beam training and parsing accept.  Published beam parsers use 8 to 64 (Zhang &
Nivre 2011: 64; Andor et al. 2016: 32); the time per sentence grows faster than the width (a
trial: 5 sentences in 0.6 s at 64, 3.5 s at 1000, over 2 minutes at 10000), so a width far
beyond the cap only looks like a hang."""


def check_beam(width: int) -> None:
    """Refuse a beam width outside 1..:data:`MAX_BEAM` (a usage error, as on the command line)."""
    if not 1 <= width <= MAX_BEAM:
        raise UsageError(f"--beam must be between 1 and {MAX_BEAM}, not {width} (wider beams take much longer "
                         "for no gain: published parsers use 8 to 64)")
