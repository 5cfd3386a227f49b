"""Multihead (DAG) systems in the compiled kernel: the canonical derivation of gold graphs by
search, and greedy parsing to graphs (the kernel's ``_multi.pxi``).

A gold graph is given per sentence as labeled arcs (head, dependent) in CoNLL-U numbering.
Graphs that no monotonic-acyclic system can build are decided here without a search and
reported as not derivable with the reason: a cycle (enhanced UD has them, e.g. relative
clauses: the noun heads the ``acl:relcl`` verb, which heads the noun as ``nsubj``), a word
as its own head, or the same head twice for one word (two labels on one arc).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..errors import UsageError
from .compiled import Derivations

REASONS = ("cycle", "self-loop", "repeated arc", "crossing arcs")


def crossing_arcs(arcs: Sequence[tuple[int, int]], n: int, root: str) -> bool:
    """Whether two arcs cross (strictly; arcs that share an end do not), the root (head 0)
    at the system's root position: 0 (``left``) or n + 1 (``right``)."""
    if len(arcs) < 2:
        return False
    root_pos = n + 1 if root == "right" else 0
    a = np.asarray([((root_pos if h == 0 else h), d) for h, d in arcs], dtype=np.int64)
    lo, hi = a.min(axis=1), a.max(axis=1)
    inside = (lo[:, None] < lo[None, :]) & (lo[None, :] < hi[:, None]) & (hi[:, None] < hi[None, :])
    return bool(inside.any())


def graph_obstacle(arcs: Sequence[tuple[int, int]]) -> Optional[str]:
    """Why a graph of (head, dependent) arcs cannot be a DAG without repeated arcs, or None."""
    seen = set()
    kids: dict[int, list[int]] = {}
    for h, d in arcs:
        if h == d:
            return "self-loop"
        if (h, d) in seen:
            return "repeated arc"
        seen.add((h, d))
        kids.setdefault(h, []).append(d)
    state: dict[int, int] = {}   # 1 on the stack, 2 done
    for start in list(kids):
        if state.get(start):
            continue
        stack = [(start, iter(kids.get(start, ())))]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return "cycle"
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(kids.get(nxt, ()))))
    return None


@dataclass(frozen=True)
class GraphDerivations:
    """:class:`Derivations` of gold graphs, and why the graphs decided without a search fail."""

    derivations: Derivations
    obstacles: tuple[Optional[str], ...]   # per sentence: a REASONS item, or None (searched)


def obstacle_of(system, n: int, arcs: Sequence[tuple[int, int]]) -> Optional[str]:
    """Why the system cannot derive a graph, decided without a search (None: search): no
    cycle, self-loop or repeated arc is ever derivable; crossing arcs are not when the spec
    declares ``produces projective-dag`` (the class ``tsdsl verify`` checks it against)."""
    why = graph_obstacle(arcs)
    if why is None and system.produces == "projective-dag" and crossing_arcs(arcs, n, system.root):
        why = "crossing arcs"
    return why


def derive_graphs(kernel, lengths: Sequence[int], graphs: Sequence[Sequence[tuple[int, int, int]]], *,
                  budget: int = 100_000) -> GraphDerivations:
    """The canonical derivation of every gold graph (``graphs[i]``: (head, dependent, label id)
    arcs of a sentence of ``lengths[i]`` words; label -1: none), by search in
    :meth:`~tsdsl.kernels.compiled.CompiledSystem.canonical_order`, the GIL released.  Graphs
    with an :func:`obstacle_of` are not searched (status 0, the reason in ``obstacles``)."""
    if not kernel.system.multihead:
        raise UsageError(f"{kernel.system.source_file}: graph derivation is for multihead systems")
    if kernel.unbounded:
        raise UsageError(f"{kernel.system.source_file}: graph derivation needs a bounded action set (set K)")
    n_sent = len(graphs)
    obstacles = tuple(obstacle_of(kernel.system, n, [(h, d) for h, d, _ in g]) for n, g in zip(lengths, graphs))
    todo = np.asarray([o is None for o in obstacles] + [0], dtype=np.int32)
    woff = np.zeros(n_sent + 1, dtype=np.int32)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=woff[1:])
    aoff = np.zeros(n_sent + 1, dtype=np.int32)
    np.cumsum(np.asarray([len(g) for g in graphs], dtype=np.int64), out=aoff[1:])
    flat = np.asarray([a for g in graphs for a in g], dtype=np.int32).reshape(-1, 3)
    heads = np.ascontiguousarray(np.append(flat[:, 0], 0), dtype=np.int32)
    deps = np.ascontiguousarray(np.append(flat[:, 1], 0), dtype=np.int32)
    labels = np.ascontiguousarray(np.append(flat[:, 2], -1), dtype=np.int32)
    order = kernel.canonical_order()
    order_arr = None if order is None else np.asarray(order, dtype=np.int32)
    cap = int(4 * (int(woff[-1]) + int(aoff[-1]) + n_sent) + 16)
    starts = np.zeros(n_sent + 1, dtype=np.int32)
    status = np.zeros(max(n_sent, 1), dtype=np.int32)
    while True:
        acts = np.empty(cap, dtype=np.int32)
        labs = np.empty(cap, dtype=np.int32)
        try:
            T, overflow = kernel.module.derive_graphs(aoff, heads, deps, labels, woff, n_sent, int(budget), acts,
                                                      labs, cap, starts, status, todo, order_arr)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not overflow:
            d = Derivations(acts[:T].copy(), labs[:T].copy(), starts.copy(), status[:n_sent].copy())
            return GraphDerivations(d, obstacles)
        cap = T + 16


def parse_graphs(learner_module, learner, offsets: np.ndarray, tokens: np.ndarray,
                 words: int) -> tuple[np.ndarray, int, int]:
    """Greedy parsing with a multihead model: an int32 [arcs, 3] array of (global word index
    of the dependent, head in CoNLL-U numbering, label id or -1), with (transitions, stuck
    sentences)."""
    cap = 2 * words + 16
    while True:
        out = np.empty(3 * cap + 3, dtype=np.int32)
        steps, stuck, n = learner_module.parse_graphs(learner, offsets, tokens, out, cap)
        if n <= cap:
            return out[:3 * n].reshape(n, 3).copy(), int(steps), int(stuck)
        cap = n
