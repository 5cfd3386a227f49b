"""Exact loss by search: the generic reachability-based oracle for any spec.

``loss(c)`` is the least Hamming loss (words whose head differs from gold) of
any output reachable from configuration ``c``.  It is found by memoized
depth-first search with bound pruning (Fernández-González & Gómez-Rodríguez
2017, §5): children are visited in order of a lower bound, and a child whose
lower bound is at least the best loss found so far is cut.  The lower bound is
admissible for every system because a token that has left every list can never
be bound again, so its head is final; in monotonic systems (no ``overwrite``, no
``break_cycle``) every existing arc is final too.

From it follow a dynamic oracle (the zero-cost actions) and a static oracle (a
gold derivation preferring monotonic actions, then spec order), so a new spec
gets a correct oracle without code.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

from ..errors import TsdslError
from ..interp import Config, Interpreter
from .planar import reordering
from .reach import pair_reachability
from .space import state_key

INF = math.inf


class _Frame:
    """One configuration on the loss search's stack: its children in search order, the
    next one to try, the best loss found below it."""

    __slots__ = ("key", "children", "own_lb", "hits_before", "i", "best", "done")

    def __init__(self, key: tuple, children: list, own_lb: int, hits_before: int):
        self.key, self.children, self.own_lb, self.hits_before = key, children, own_lb, hits_before
        self.i, self.best, self.done = 0, INF, False

    def take(self, value: float) -> None:
        if value < self.best:
            self.best = value
            if self.best <= self.own_lb:
                self.done = True

    def next_child(self) -> Optional[Config]:
        if self.done or self.i >= len(self.children):
            return None
        _, lb, _, child = self.children[self.i]
        if lb >= self.best:
            self.done = True
            return None
        self.i += 1
        return child


class BudgetExceeded(TsdslError):
    """The search visited more configurations than allowed: a limit reached, not a mistake
    in what was asked, so not an OracleError (which is a ValueError)."""


class LossSearch:
    """Exact loss of configurations of one sentence against one gold tree.

    Args:
        it: the interpreter of the system.
        gold: gold heads in CoNLL-U numbering (``gold[d-1]``, 0 = root).
        budget: maximum configurations to expand (None: unlimited).
    """

    def __init__(self, it: Interpreter, gold: Sequence[int], *, budget: Optional[int] = None):
        self.it = it
        self.gold = tuple(gold)
        self.n = len(gold)
        self.budget = budget
        self.expanded = 0
        self.memo: dict[tuple, float] = {}
        self._active: set[tuple] = set()
        self._cycle_hits = 0
        n_tokens = self.n + (0 if it.system.root == "none" else 1)
        self.monotonic = it.system.is_monotonic(n_tokens)
        self.nonmonotonic = it.system.nonmonotonic_actions(n_tokens)
        self._attach = it.system.attach_headless_to_root
        self._has_root = it.system.root != "none"
        self.reach = pair_reachability(it.system, n_tokens)

    # ---- bounds ---------------------------------------------------------------
    def hamming(self, c: Config) -> int:
        tree = self.it.output(c)
        if tree.arcs is not None:  # DAG: a word is right when its head set is exactly {gold}
            heads: dict[int, set] = {}
            for h, d, _ in tree.arcs:
                heads.setdefault(d, set()).add(h)
            return sum(1 for d in range(1, self.n + 1) if heads.get(d, set()) != {self.gold[d - 1]})
        return sum(1 for h, g in zip(tree.heads, self.gold) if h != g)

    def lower_bound(self, c: Config) -> int:
        """Errors no continuation can undo (reduced tokens; every arc when monotonic)."""
        if c.multi is not None:
            return self._multi_lower_bound(c)
        present = self.reach.positions(c)
        bound = 0
        root = c.root
        for d in range(1, self.n + 1):
            h = c.heads[d]
            g = self.gold[d - 1]
            out = -1 if h < 0 else (0 if h == root else h)
            if out == g:
                continue
            if d not in present:  # a token that left every list keeps its head for good
                if h >= 0 or (self._attach and g != 0) or (not self._attach and self._has_root):
                    bound += 1
                continue
            if self.monotonic and h >= 0:
                bound += 1
                continue
            if g == 0 and (self._attach or not self._has_root):
                continue  # the finally rule (or being the last headless word) makes it the root
            if not self.reach.reachable(c, root if g == 0 else g, d, present):
                bound += 1
        return bound

    def _multi_lower_bound(self, c: Config) -> int:
        """Multihead: words whose head set can no longer become exactly {gold head}: a wrong
        arc (monotonic systems), or the word, or its gold head, gone from every list."""
        present = self.reach.positions(c)
        root = c.root
        bound = 0
        for d in range(1, self.n + 1):
            g = self.gold[d - 1]
            hs = {0 if h == root else h for h in c.multi[d]}
            if hs == {g}:
                continue
            if self._attach and not hs and g == 0:
                continue  # the end-of-parse rule may still attach it to the root
            if self.monotonic and hs - {g}:
                bound += 1
            elif d not in present:
                bound += 1
            elif g not in hs:
                gt = root if g == 0 else g
                if gt is not None and gt >= 0 and gt not in present:
                    bound += 1
        return bound

    def _order_key(self, c: Config, lb: int, action: str) -> tuple:
        """Search order: lower bound, then fewer wrong and more gold arcs, monotonic first."""
        wrong = right = 0
        if c.multi is None:
            for d in range(1, self.n + 1):
                h = c.heads[d]
                if h >= 0:
                    if (0 if h == c.root else h) != self.gold[d - 1]:
                        wrong += 1
                    else:
                        right += 1
        return (lb, wrong, -right, action in self.nonmonotonic)

    # ---- search ---------------------------------------------------------------------
    def loss(self, c: Config) -> float:
        """Least Hamming loss reachable from ``c`` (inf when only dead ends are reachable)."""
        return self._loss(c, state_key(c))

    def _loss(self, c: Config, key: tuple) -> float:
        """The memoized depth-first search, iterative (an explicit stack of frames, so no
        recursion limit however deep the configuration graph)."""
        stack: list[_Frame] = []
        try:
            ret = self._enter(c, key, stack)
            while stack:
                fr = stack[-1]
                if ret is not None:
                    fr.take(ret)
                    ret = None
                child = fr.next_child()
                if child is None:
                    stack.pop()
                    ret = self._leave(fr)
                else:
                    ret = self._enter(child, state_key(child), stack)
        except BaseException:
            for fr in stack:
                self._active.discard(fr.key)
            raise
        return ret

    def _enter(self, c: Config, key: tuple, stack: list) -> Optional[float]:
        """The value of ``c`` when known at once; otherwise push its frame and return None."""
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if key in self._active:  # a cycle in the configuration graph: no output this way
            self._cycle_hits += 1
            return INF
        it = self.it
        if it.is_terminal(c):
            value = float(self.hamming(c))
            self.memo[key] = value
            return value
        self.expanded += 1
        if self.budget is not None and self.expanded > self.budget:
            raise BudgetExceeded(f"exact loss search expanded more than {self.budget} configurations (raise --budget)")
        children = []
        for a in it.legal(c):
            child = it.copy(c)
            it.apply(child, a)
            lb = self.lower_bound(child)
            children.append((self._order_key(child, lb, a), lb, a, child))
        children.sort(key=lambda x: x[0])
        self._active.add(key)
        stack.append(_Frame(key, children, self.lower_bound(c), self._cycle_hits))
        return None

    def _leave(self, fr: "_Frame") -> float:
        self._active.discard(fr.key)
        # a value computed while an ancestor was excluded as a cycle is only valid on this path
        if self._cycle_hits == fr.hits_before:
            self.memo[fr.key] = fr.best
        return fr.best

    def costs(self, c: Config) -> dict[str, float]:
        """Cost of every legal action: loss after it minus loss now (0 = optimal)."""
        base = self.loss(c)
        out = {}
        for a in self.it.legal(c):
            child = self.it.copy(c)
            self.it.apply(child, a)
            out[a] = self.loss(child) - base
        return out

    def zero_cost(self, c: Config) -> list[str]:
        """The dynamic oracle: legal actions that keep the best reachable loss."""
        return [a for a, v in self.costs(c).items() if v == 0]


def projective_ranks(gold: Sequence[int], root: int) -> dict[int, int]:
    """Each token's place in the gold tree's projective order (its in-order traversal: left
    dependents, the head, right dependents; the root token is ``root``, -1 when the system
    has none, and then each tree of the forest comes in the order of its root)."""
    n = len(gold)
    kids: dict[int, list[int]] = {t: [] for t in (root, *range(1, n + 1))}
    for d, h in enumerate(gold, 1):
        kids[root if h == 0 else h].append(d)
    rank: dict[int, int] = {}
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        t, visited = stack.pop()
        if visited:
            rank[t] = len(rank)
            continue
        stack.extend((k, False) for k in sorted((k for k in kids[t] if k > t), reverse=True))
        stack.append((t, True))
        stack.extend((k, False) for k in sorted((k for k in kids[t] if k < t), reverse=True))
    return rank


def _inversions_delta(parent: list[int], child: list[int], rank: dict[int, int]) -> int:
    """Inversions of ``child`` minus those of ``parent`` against ``rank`` (the same tokens),
    counted over the window where the two differ."""
    f, last = 0, len(child) - 1
    while f <= last and parent[f] == child[f]:
        f += 1
    if f > last:
        return 0
    while parent[last] == child[last]:
        last -= 1
    inv = 0
    for i in range(f, last + 1):
        for j in range(i + 1, last + 1):
            inv += (rank[child[i]] > rank[child[j]]) - (rank[parent[i]] > rank[parent[j]])
    return inv


def find_derivation(it: Interpreter, gold: Sequence[int], *, budget: Optional[int] = None) -> Optional[list[str]]:
    """An action sequence deriving exactly ``gold``, or None when there is none.

    Depth-first through configurations whose lower bound is still 0, with failed
    configurations memoized: the completeness check for long sentences.  For a system whose
    actions reorder tokens (:func:`~tsdsl.verify.planar.reordering`: SWAP) each
    configuration tries the arcs first, then the reorderings that bring its lists closer to
    the gold tree's projective order, then the others, then the reorderings that take them
    further, as the compiled search's ``guide`` does: only the order changes, so the answer
    is as exact.

    Raises:
        BudgetExceeded: more than ``budget`` configurations were expanded.
    """
    search = LossSearch(it, gold, budget=budget)
    guide = reordering(it.system)
    if guide is not None:
        order, kinds = guide
        kind_of = {a.name: kinds[k] for k, a in enumerate(it.system.actions)}
        rank: dict[int, int] = {}

        def sequence(c: Config) -> list[int]:
            return [t for k in order for t in c.lists[k]]

        def bucket(parent: Config, child: Config, a: str) -> int:
            kind = kind_of.get(a, 0)
            if kind == 1:
                return 0
            if kind == 2:
                p, q = sequence(parent), sequence(child)
                if len(p) == len(q) and sorted(p) == sorted(q):
                    if not rank:
                        rank.update(projective_ranks(gold, parent.root))
                    delta = _inversions_delta(p, q, rank)
                    return 1 if delta < 0 else (3 if delta > 0 else 2)
            return 2
    dead: set[tuple] = set()
    on_path: set[tuple] = set()
    path: list[str] = []
    stack: list[tuple[tuple, list, list]] = []  # (key, children, [next index])

    def enter(c: Config) -> Optional[bool]:
        """True: ``c`` is the gold tree; False: nothing to do here; None: its frame was pushed."""
        key = state_key(c)
        if key in dead or key in on_path:
            return False
        if it.is_terminal(c):
            if search.hamming(c) == 0:
                return True
            dead.add(key)
            return False
        search.expanded += 1
        if budget is not None and search.expanded > budget:
            raise BudgetExceeded(f"derivation search expanded more than {budget} configurations")
        children = []
        for a in it.legal(c):
            child = it.copy(c)
            it.apply(child, a)
            lb = search.lower_bound(child)
            if lb == 0:
                key = search._order_key(child, lb, a)
                children.append(((bucket(c, child, a), *key) if guide is not None else key, a, child))
        children.sort(key=lambda x: x[0])
        on_path.add(key)
        stack.append((key, children, [0]))
        return None

    found = enter(it.initial(len(gold)))
    while stack and not found:  # depth-first without recursion: one frame per configuration on the path
        key, children, at = stack[-1]
        if at[0] < len(children):
            _, a, child = children[at[0]]
            at[0] += 1
            path.append(a)
            found = enter(child)
            if found is False:
                path.pop()
        else:
            stack.pop()
            on_path.discard(key)
            dead.add(key)
            if path:
                path.pop()
    return list(path) if found else None


def static_oracle(it: Interpreter, gold: Sequence[int], *, budget: Optional[int] = None,
                  max_steps: Optional[int] = None) -> Optional[list[str]]:
    """A derivation of the best reachable tree for ``gold`` (the gold tree itself when
    the system can derive it): zero-cost actions, monotonic first, then spec order.
    Returns None when no output at all is reachable."""
    search = LossSearch(it, gold, budget=budget)
    c = it.initial(len(gold))
    if search.loss(c) == INF:
        return None
    seq: list[str] = []
    limit = max_steps if max_steps is not None else 50 * (len(gold) + 2) ** 2
    while not it.is_terminal(c):
        zero = search.zero_cost(c)
        if not zero or len(seq) > limit:
            return None
        zero.sort(key=lambda a: a in search.nonmonotonic)
        a = zero[0]
        it.apply(c, a)
        seq.append(a)
    return seq
