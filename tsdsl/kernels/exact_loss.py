"""The exact loss search on a compiled kernel (``ExactLoss`` in ``_loss.pxi``).

:class:`tsdsl.verify.loss.LossSearch` walks the interpreter's configurations, a few
thousand a second in Python: ``trace --gold --costs`` of a 34-word sentence with a spec
without a declared exact oracle (Attardi) took minutes, and showed ``?`` where a step ran
over its budget.  The same search in the kernel expands millions a second.  It answers for
single-head action sets, bounded or capacity inf; :func:`supports` says whether a kernel has
one, and the callers keep the interpreter's search for multihead specs.  Its answers are
LossSearch's (``tests/test_exact_loss.py`` compares them on every such seed spec).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

__all__ = ["CompiledLossSearch", "supports"]


def supports(kernel) -> bool:
    """Whether ``kernel`` (a :class:`~tsdsl.kernels.compiled.CompiledSystem`) runs the compiled
    exact loss: a single-head action set."""
    return not kernel.system.multihead


class CompiledLossSearch:
    """The exact loss of configurations of one sentence against its gold heads (CoNLL-U
    numbering), each configuration named by the actions that reach it from the initial one.
    ``reach``: :func:`tsdsl.verify.reach.reach_table` of the system for this sentence's token
    count, the bound's arc reachability term (None: without it, the same answers from more
    configurations).  ``pruning``: :func:`tsdsl.verify.planar.search_pruning` of the system for
    this sentence's length, a further term of the bound (a blocked core of the gold arcs still
    to build) that LossSearch lacks: the same answers from fewer configurations.  The memo is
    kept from call to call, as LossSearch keeps its own."""

    def __init__(self, kernel, gold: Sequence[int], reach=None, pruning: Optional[dict] = None):
        if not supports(kernel):
            raise ValueError(f"{kernel.system.name}: the compiled exact loss needs a single-head action set")
        self.kernel = kernel
        self.gold = tuple(int(h) for h in gold)
        heads = np.asarray(self.gold, dtype=np.int32)
        n_tokens = len(self.gold) + (0 if kernel.system.root == "none" else 1)
        table = None
        if kernel.unbounded:  # the actions of this sentence's length: instances of the families
            names, ids, table = kernel._for_tokens(n_tokens)
        else:
            names, ids = kernel.action_names, kernel.action_ids
        changing = kernel.system.nonmonotonic_actions(n_tokens)
        nonmono = np.asarray([name in changing for name in names], dtype=np.uint8)
        prune = {k: v for k, v in (pruning or {}).items() if v is not None}
        self._search = kernel.module.ExactLoss(heads, table, len(names) if table is not None else 0, reach, nonmono,
                                               **prune)
        self._names, self._ids = list(names), ids
        self._inf = self._search.inf_value
        self.expanded = 0

    def losses(self, prefix: Sequence[str], budget: int) -> Optional[tuple[float, dict[str, float]]]:
        """The loss of the configuration ``prefix`` (action names) reaches and the loss after
        each legal action there (``math.inf``: no output reachable), or None when the search
        expanded more than ``budget`` configurations."""
        ids = np.asarray([self._ids[a] for a in prefix], dtype=np.int32)
        after = np.empty(len(self._names), dtype=np.int32)
        base = self._search.losses(ids, int(budget), after)
        self.expanded = self._search.expanded_last
        if base is None:
            return None
        value = {a: self._value(int(v)) for a, v in zip(self._names, after) if v >= 0}
        return self._value(base), value

    def loss(self, prefix: Sequence[str], budget: int) -> Optional[float]:
        """LossSearch.loss of the configuration ``prefix`` (action names) reaches (``math.inf``:
        no output reachable), or None when the search expanded more than ``budget``
        configurations."""
        ids = np.asarray([self._ids[a] for a in prefix], dtype=np.int32)
        value = self._search.loss(ids, int(budget))
        self.expanded = self._search.expanded_last
        return None if value is None else self._value(value)

    def costs(self, prefix: Sequence[str], budget: int) -> Optional[dict[str, float]]:
        """LossSearch.costs of the configuration ``prefix`` reaches: the loss after each legal
        action minus the loss there (0: optimal), or None over the budget."""
        found = self.losses(prefix, budget)
        if found is None:
            return None
        base, after = found
        return {a: v - base for a, v in after.items()}

    def _value(self, v: int) -> float:
        return math.inf if v >= self._inf else float(v)
