"""The static oracle by search, for training: every gold tree's canonical derivation (the
kernel's ``derive``: at each step the first action from which the gold tree is still
derivable, in :meth:`~tsdsl.kernels.compiled.CompiledSystem.canonical_order`, guided for a
spec whose actions reorder tokens: see :func:`search_options`), cached on disk by kernel and
treebank, and turned into classifier targets.  It needs no oracle block, so any spec without
a usable oracle trains with it."""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..kernels import kernel_cache_dir
from ..kernels.compiled import Derivations, Treebank
from .data import Batch
from .outputs import MAX_UNITS, Outputs

DEFAULT_BUDGET = 100_000
"""Configurations the search may expand per sentence before the tree counts as not derived."""


@dataclass(frozen=True)
class SearchOracle:
    """Derivations of a training batch and the classifier output of each of their steps."""

    derivations: Derivations
    targets: np.ndarray       # int32 per derivation step: the output to predict (-1: none fits)
    derived: np.ndarray       # the sentences (batch indexes) that have a derivation
    not_derivable: int
    over_budget: int
    cached: bool


def search_options(kernel, pruning: bool = True) -> dict:
    """The keyword arguments of ``CompiledSystem.derive`` (besides the budget) with which
    training derives its trees, read off the spec's IR (``tsdsl.verify.planar``), for a
    bounded action set (capacity inf: none, the plain search); ``pruning=False``: the guide
    alone (the searches of ``--search-follow model``, many and short, where the pruning's
    check of every configuration cost more than it saved: el_gdt, one epoch, easy-first K = 3
    1.9 -> 3.1 s, arc-eager 1.2 -> 1.6 s):

    - ``guide`` (``planar.reordering``), for a spec with an action that reorders the tokens of
      its lists (SWAP): each configuration tries the arcs first, then the reorderings that
      bring its lists closer to the gold tree's projective order (its in-order traversal), then
      the other actions, then the reorderings that move away.  The canonical derivation is then
      Nivre's (2009) static oracle, read generically, found without backtracking; unguided,
      the depth-first search shifted before swapping and wandered through orders of the words
      (24 of 1,500 el_gdt training trees over the default budget, 9 still over 20 times that).
    - ``gap``, ``bottom_up``, ``anchor`` (``planar.search_pruning``), where the spec is proved
      to keep its tokens in order and build arcs over at most G tokens: configurations whose
      gold arcs still to build hold a blocked core are dropped.  That drops only
      configurations that cannot finish the tree, so the derivations are the same; a tree that
      is not derivable is proved so sooner instead of running over the budget (attardi's one
      el_gdt tree of the first 1,500).  For a bounded action set the proof does not depend on
      the sentence length.  It costs the derivation of projective trees about twice the time
      (en_gum train: arc-standard 0.18 -> 0.38 s), once, as derivations are cached."""
    if kernel.unbounded:
        return {}
    from ..verify.planar import reordering, search_pruning

    system = kernel.system
    options = search_pruning(system, 8) if pruning else {}
    guide = reordering(system)
    if guide is not None:
        options["guide"] = guide
    return options


def _cache_path(kernel, batch: Batch, budget: int) -> Path:
    h = hashlib.sha256()
    h.update(kernel.built.directory.name.encode() if getattr(kernel, "built", None) else kernel.gen.digest.encode())
    words = batch.words
    for arr in (batch.offsets, batch.heads[:words], batch.labels[:words]):  # (a batch's arrays have a spare slot)
        h.update(np.ascontiguousarray(arr).tobytes())
        h.update(b"\0")
    h.update(f"{budget} {kernel.canonical_order()} {sorted(search_options(kernel).items())}".encode())
    return kernel_cache_dir() / "derivations" / f"{h.hexdigest()[:32]}.npz"


def _load(path: Path):
    try:
        with np.load(path) as z:
            return Derivations(z["actions"], z["labels"], z["starts"], z["status"])
    except (OSError, KeyError, ValueError):
        return None


def _save(path: Path, d: Derivations) -> None:
    """Atomically (a reader sees the whole file or none); a cache that cannot be written is
    only a lost speed-up."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".derive-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, actions=d.actions, labels=d.labels, starts=d.starts, status=d.status)
        os.replace(tmp, path)
    except OSError:
        pass


def targets_of(outputs: Outputs, actions: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The classifier output of each (action, label id) step: the output whose class holds
    the action, with the label for labeled classes (-1 where none fits)."""
    table = outputs.table
    n_labels = int(max(table[:, 0].max(initial=-1), labels.max(initial=-1))) + 2
    n_units = int(max(table[:, 1:1 + MAX_UNITS].max(initial=-1), actions.max(initial=-1))) + 1
    lookup = np.full(max(n_units, 1) * n_labels, -1, dtype=np.int32)
    for c, row in enumerate(table):
        for u in row[1:1 + MAX_UNITS]:
            if u >= 0:
                lookup[u * n_labels + row[0] + 1] = c
    return lookup[actions * n_labels + labels + 1] if len(actions) else np.empty(0, dtype=np.int32)


def search_oracle(kernel, batch: Batch, outputs: Outputs, *, budget: int = DEFAULT_BUDGET) -> SearchOracle:
    """Derive every tree of ``batch`` (cached on disk by kernel, treebank and budget)."""
    path = _cache_path(kernel, batch, budget)
    d = _load(path)
    cached = d is not None and len(d.status) == batch.sentences
    if not cached:
        words = batch.words
        labels = np.ascontiguousarray(batch.labels[:words])
        tb = Treebank(np.ascontiguousarray(batch.heads[:words]), batch.offsets, labels, int(labels.max(initial=-1)) + 1)
        d = kernel.derive(tb, budget=budget, **search_options(kernel))
        _save(path, d)
    status = d.status
    units = d.actions
    if kernel.unbounded and len(units):
        # instances of the longest sentence's action table: an output stands for a family
        longest = int(np.diff(batch.offsets).max())
        _, _, table = kernel._for_tokens(longest + (1 if kernel.system.root != "none" else 0))
        units = table[3 * d.actions]
    return SearchOracle(d, targets_of(outputs, units, d.labels), np.flatnonzero(status == 1).astype(np.int32),
                        int(np.sum(status == 0)), int(np.sum(status < 0)), cached)


WHY_BUDGET = 20_000
"""Configurations the search may expand per tree when :func:`why_not_reproduced` asks whether
a tree the declared oracle does not reproduce is derivable at all."""


WHY_TREES = 200
"""At most this many of the trees not reproduced are searched (the first ones)."""


def why_not_reproduced(kernel, batch: Batch, missed: np.ndarray, budget: int = WHY_BUDGET) -> str:
    """Why the declared oracle does not reproduce the trees ``missed`` (batch indexes), in
    words: the search (:meth:`~tsdsl.kernels.compiled.CompiledSystem.derive`) decides, per
    tree, whether the system derives it at all.  A tree it does not derive is outside the
    system's reach, and no oracle could reproduce it; a tree it derives is one the oracle
    misses (it is not exact there).  '' when ``missed`` is empty."""
    if not len(missed):
        return ""
    asked = missed[:WHY_TREES]
    heads = [batch.heads[batch.offsets[k]:batch.offsets[k + 1]].tolist() for k in asked]
    d = kernel.derive(heads, budget=budget, **search_options(kernel))
    counts = {"none": int(np.sum(d.status == 0)), "derived": int(np.sum(d.status == 1)),
              "undecided": int(np.sum(d.status < 0))}
    parts = []
    if counts["none"]:
        parts.append(f"{counts['none']} the system cannot derive at all (no oracle reproduces them)")
    if counts["derived"]:
        parts.append(f"{counts['derived']} it derives, so the oracle is not exact on them")
    if counts["undecided"]:
        parts.append(f"{counts['undecided']} undecided (the search ran over {budget} configurations)")
    trees = "tree" if len(missed) == 1 else "trees"
    which = (f"of the {len(missed)} {trees} it does not reproduce" if len(asked) == len(missed) else
             f"of the first {len(asked)} of the {len(missed)} {trees} it does not reproduce")
    return which + ", " + ", ".join(parts)
