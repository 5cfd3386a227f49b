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
from .compiled import Derivations, grown_derivations

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

    def run(acts, labs, cap, starts, status):
        return kernel.module.derive_graphs(aoff, heads, deps, labels, woff, n_sent, int(budget), acts, labs, cap,
                                           starts, status, todo, order_arr)

    return GraphDerivations(grown_derivations(run, n_sent, int(4 * (int(woff[-1]) + int(aoff[-1]) + n_sent) + 16)),
                            obstacles)


def parse_graphs(learner_module, learner, offsets: np.ndarray, tokens: np.ndarray,
                 words: int) -> tuple[np.ndarray, int, int]:
    """Greedy parsing with a multihead model: an int32 [arcs, 4] array of (global word index
    of the dependent, head in CoNLL-U numbering, label id or -1, 1 for the first arc the
    dependent got), with (transitions, stuck sentences)."""
    cap = 2 * words + 16
    while True:
        out = np.empty(4 * cap + 4, dtype=np.int32)
        steps, stuck, n = learner_module.parse_graphs(learner, offsets, tokens, out, cap)
        if n <= cap:
            return out[:4 * n].reshape(n, 4).copy(), int(steps), int(stuck)
        cap = n


@dataclass
class GraphCoverage:
    """Which enhanced graphs of a treebank a multihead system derives exactly."""

    system: str
    file: str
    budget: Optional[int]
    sentences: int = 0
    without_deps: int = 0          # sentences whose DEPS are all _ (not counted below)
    graphs: int = 0
    arcs: int = 0
    derivable: int = 0
    not_derivable: int = 0         # searched, no derivation
    over_budget: int = 0
    obstacles: dict = None         # reason -> graphs decided without a search
    seconds: float = 0.0
    kernel_build_seconds: float = 0.0  # building the kernel first (the caller's), not in seconds

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)

    def render_text(self) -> str:
        def pct(k: int) -> str:
            return f"{k} / {self.graphs} ({100 * k / self.graphs:.2f}%)" if self.graphs else f"{k} / 0"

        rows = [f"{self.system} on {self.file}: enhanced graphs (DEPS, empty nodes collapsed)",
                f"graphs:               {self.graphs} ({self.arcs} arcs)"
                + (f"; {self.without_deps} sentences without DEPS not counted" if self.without_deps else ""),
                f"derivable:            {pct(self.derivable)}"]
        decided = sum((self.obstacles or {}).values())
        rows.append(f"not derivable:        {pct(decided + self.not_derivable)}")
        for reason in REASONS:
            k = (self.obstacles or {}).get(reason, 0)
            if k:
                rows.append(f"  {reason + ':':<19} {k}")
        if self.not_derivable:
            rows.append(f"  {'no derivation found:':<19} {self.not_derivable}")
        rows.append(f"undecided:            {pct(self.over_budget)}" + (f" (over the budget of {self.budget} "
                                                                        "configurations)" if self.over_budget else ""))
        build = f" (+ {self.kernel_build_seconds:.2f} s kernel build)" if self.kernel_build_seconds else ""
        rows.append(f"time:                 {self.seconds:.2f} s{build}")
        return "\n".join(rows)


def graph_coverage(kernel, sentences, *, file: str = "<input>", budget: Optional[int] = 100_000) -> GraphCoverage:
    """Derive every enhanced graph of ``sentences`` (:class:`~tsdsl.treebank.conllu.Sentence`)
    with the kernel's graph search and count the verdicts."""
    import time
    from collections import Counter

    from ..treebank.enhanced import graphs_of

    t0 = time.perf_counter()
    graphs = graphs_of(sentences)
    keep = [k for k, g in enumerate(graphs) if any(g)]
    labels: dict[str, int] = {}
    arcs = [[(h, d, labels.setdefault(l, len(labels))) for d, hs in enumerate(graphs[k], 1) for h, l in hs]
            for k in keep]
    found = derive_graphs(kernel, [sentences[k].n for k in keep], arcs,
                          budget=budget if budget is not None else 2 ** 62)
    status = found.derivations.status
    why = Counter(o for o in found.obstacles if o)
    return GraphCoverage(system=kernel.system.name, file=file, budget=budget, sentences=len(sentences),
                         without_deps=len(sentences) - len(keep), graphs=len(keep), arcs=sum(len(a) for a in arcs),
                         derivable=int((status == 1).sum()),
                         not_derivable=int((status == 0).sum()) - sum(why.values()),
                         over_budget=int((status < 0).sum()), obstacles=dict(why),
                         seconds=time.perf_counter() - t0)
