"""The reference interpreter: runs any IR system on configurations, in pure Python.

It defines the semantics every other backend must reproduce.  Conventions:
tokens are 1..n, the artificial root is 0 (``root left``) or n+1 (``root
right``); a terminal configuration has no legal actions; a sentence of 0 words
is terminal at once.
"""

from __future__ import annotations

from typing import Callable, Optional

from . import ir
from .ir.runs import initial_token_lists
from .errors import UsageError
from .treebank.trees import Tree

Env = dict  # variable -> token id (Tok) or list slice (Block / Rest)


class Config:
    """A parser configuration: lists, arcs and flags (mutable; use :meth:`Interpreter.copy`)."""

    __slots__ = ("n", "root", "lists", "heads", "labels", "multi", "tflags", "gflags", "arc_labels")

    def __init__(self, n, root, lists, heads, labels, multi, tflags, gflags, arc_labels=None):
        self.n = n
        self.root = root
        self.lists = lists
        self.heads = heads  # single-head: head id or -1, indexed by token id
        self.labels = labels
        self.multi = multi  # multihead: list of head lists, indexed by token id (else None)
        self.tflags = tflags
        self.gflags = gflags
        self.arc_labels = arc_labels if arc_labels is not None else {}  # multihead: (head, dep) -> label

    def __repr__(self) -> str:
        return f"Config(lists={self.lists}, heads={self.heads})"


class _Compiled:
    """A case (or terminal) prepared for fast matching."""

    __slots__ = ("case", "lengths", "toks", "guard")

    def __init__(self, match: tuple[ir.ListMatch, ...], guard: Callable, list_index: dict, case=None):
        self.case = case
        self.lengths = [(list_index[m.list], m.min_len, m.has_rest) for m in match]
        self.toks = []
        for m in match:
            for var, (side, off, width) in m.positions().items():
                if any(isinstance(i, ir.Tok) and i.var == var for i in m.items):
                    self.toks.append((var, list_index[m.list], side, off))
        self.guard = guard

    def bind(self, c: Config) -> Optional[Env]:
        lists = c.lists
        for idx, need, has_rest in self.lengths:
            n = len(lists[idx])
            if n < need or (not has_rest and n != need):
                return None
        env = {}
        for var, idx, side, off in self.toks:
            lst = lists[idx]
            env[var] = lst[off] if side == "L" else lst[-1 - off]
        return env if self.guard(c, env) else None


class Interpreter:
    """Runs an :class:`ir.System`: initial, legal, apply, is_terminal, output, copy, snapshot."""

    def __init__(self, system: ir.System):
        self.system = system
        self.list_index = {d.name: k for k, d in enumerate(system.lists)}
        self._actions_cache: dict[int, tuple[list[ir.Action], dict[str, tuple]]] = {}
        self._terminal = _Compiled(system.terminal.match, self._pred(system.terminal.guard), self.list_index)
        self._has_root = system.root != "none"

    # ---- configurations -------------------------------------------------------------
    def initial(self, n: int) -> Config:
        """The initial configuration for a sentence of ``n`` words."""
        if n < 0:
            raise UsageError("a sentence cannot have a negative length")
        s = self.system
        root = 0 if s.root == "left" else n + 1 if s.root == "right" else None
        size = n + 2
        lists = initial_token_lists(s, n)
        return Config(
            n, root, lists,
            [-1] * size, [None] * size,
            [[] for _ in range(size)] if s.multihead else None,
            {name: [default] * size for name, default in s.token_flags},
            dict(s.global_flags),
        )

    def copy(self, c: Config) -> Config:
        return Config(
            c.n, c.root, [list(l) for l in c.lists], list(c.heads), list(c.labels),
            [list(h) for h in c.multi] if c.multi is not None else None,
            {k: list(v) for k, v in c.tflags.items()}, dict(c.gflags), dict(c.arc_labels),
        )

    def is_terminal(self, c: Config) -> bool:
        return c.n == 0 or self._terminal.bind(c) is not None

    def actions(self, c: Config) -> list[ir.Action]:
        """The system's actions for this configuration's sentence length (all, legal or not)."""
        return self._table(c)[0]

    def legal(self, c: Config) -> list[str]:
        """Names of the actions that may apply now (none in a terminal configuration)."""
        if self.is_terminal(c):
            return []
        actions, table = self._table(c)
        return [a.name for a in actions if any(cc.bind(c) is not None for cc in table[a.name][1])]

    def is_legal(self, c: Config, name: str) -> bool:
        if self.is_terminal(c):
            return False
        entry = self._table(c)[1].get(_split_label(name)[0])
        return entry is not None and any(cc.bind(c) is not None for cc in entry[1])

    def apply(self, c: Config, name: str, label: Optional[str] = None) -> None:
        """Apply action ``name`` (optionally ``"NAME:label"``) to ``c`` in place.

        Raises:
            UsageError: the action is unknown or not legal in ``c``.
        """
        name, inline_label = _split_label(name)
        label = label if label is not None else inline_label
        entry = self._table(c)[1].get(name)
        if entry is None:
            raise UsageError(f"unknown action {name!r} for {self.system.name}")
        if self.is_terminal(c):
            raise UsageError(f"action {name!r} applied to a terminal configuration")
        for cc in entry[1]:
            env = cc.bind(c)
            if env is not None:
                self._do(c, cc.case, env, label)
                return
        raise UsageError(f"action {name!r} is not legal here")

    # ---- output and views -------------------------------------------------------
    def output(self, c: Config) -> Tree:
        """The tree built so far, in CoNLL-U numbering (root = 0, unattached = None)."""
        n = c.n
        words = range(1, n + 1)
        if c.multi is not None:
            arcs = frozenset((self._out_head(c, h), d, c.arc_labels.get((h, d))) for d in words for h in c.multi[d])
            heads = [self._out_head(c, c.multi[d][0]) if c.multi[d] else None for d in words]
            labels = [c.arc_labels.get((c.multi[d][0], d)) if c.multi[d] else None for d in words]
            return Tree(tuple(heads), tuple(labels), arcs)
        heads = [self._out_head(c, c.heads[d]) for d in words]
        labels = [c.labels[d] if heads[d - 1] is not None else None for d in words]
        self.system.finish(heads, labels)
        return Tree(tuple(heads), tuple(labels))

    @staticmethod
    def _out_head(c: Config, h: int) -> Optional[int]:
        if h < 0:
            return None
        return 0 if h == c.root else h

    def snapshot(self, c: Config) -> dict:
        """A comparable view: lists in reading order, arcs, flags (see the differential tests)."""
        if c.multi is not None:
            arcs = frozenset((h, d) for d in range(len(c.multi)) for h in c.multi[d])
        else:
            arcs = frozenset((h, d) for d, h in enumerate(c.heads) if h >= 0)
        return {
            "lists": {d.name: tuple(c.lists[k]) for k, d in enumerate(self.system.lists)},
            "arcs": arcs,
            "token_flags": {k: frozenset(t for t, v in enumerate(vals) if v) for k, vals in c.tflags.items()},
            "global_flags": dict(c.gflags),
        }

    def arcs_of(self, c: Config) -> set[tuple[int, int]]:
        return set(self.snapshot(c)["arcs"])

    def token_name(self, c: Config, t: int, words=None) -> str:
        if t == c.root:
            return "root"
        return words[t - 1] if words is not None and 1 <= t <= len(words) else str(t)

    # ---- internals ---------------------------------------------------------------------
    def _table(self, c: Config):
        n_tokens = c.n + (1 if self._has_root else 0)
        key = 0 if not self.system.unbounded else n_tokens
        hit = self._actions_cache.get(key)
        if hit is None:
            actions = list(self.system.actions_for(n_tokens))
            table = {a.name: (a, [_Compiled(cs.match, self._pred(cs.full_guard), self.list_index, cs)
                                  for cs in a.cases]) for a in actions}
            hit = (actions, table)
            self._actions_cache[key] = hit
        return hit

    def _do(self, c: Config, case: ir.Case, env: Env, label: Optional[str]) -> None:
        effects = _Effects(self)
        for op in case.arcs:  # arcs see the lists before the move, flags after it
            effects.visit(op, c, env, label)
        lists = c.lists
        pieces: dict[ir.Item, list[int]] = {}
        for m in case.match:
            lst = lists[self.list_index[m.list]]
            rest_at = next((k for k, it in enumerate(m.items) if isinstance(it, ir.Rest)), len(m.items))
            pos = 0
            for it in m.items[:rest_at]:
                w = ir.item_width(it)
                pieces[it] = lst[pos:pos + w]
                pos += w
            end = len(lst)
            for it in reversed(m.items[rest_at + 1:]):
                w = ir.item_width(it)
                pieces[it] = lst[end - w:end]
                end -= w
            if rest_at < len(m.items):
                pieces[m.items[rest_at]] = lst[pos:end]
        for k, items in enumerate(case.result):
            new: list[int] = []
            for it in items:
                new.extend(pieces[it])
            lists[k] = new
        for s in case.sets:
            effects.visit(s, c, env, label)

    def _pred(self, p: ir.Pred) -> Callable[[Config, Env], bool]:
        """Compile a predicate to a closure over (configuration, bindings)."""
        return _Closures(self.list_index).visit(p)


class _Effects(ir.EffectWalker):
    """Applies a case's effects to a configuration, under the pattern's bindings."""

    def __init__(self, interp: "Interpreter"):
        self.interp = interp

    def visit_arc_op(self, op: ir.ArcOp, c: Config, env: Env, label: Optional[str]) -> None:
        h, d = env[op.head], env[op.dep]
        lab = label if op.labeled else None
        if c.multi is not None:
            c.multi[d].append(h)
            c.arc_labels[(h, d)] = lab
            return
        if op.break_cycle and _path(c, d, h):
            c.heads[h], c.labels[h] = -1, None
        c.heads[d], c.labels[d] = h, lab

    def visit_set_flag(self, s: ir.SetFlag, c: Config, env: Env, label: Optional[str]) -> None:
        value = self.interp._pred(s.value)(c, env)
        if s.var is None:
            c.gflags[s.flag] = value
        else:
            c.tflags[s.flag][env[s.var]] = value


_OPS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b,
}


class _Closures(ir.ExprWalker):
    """Predicates and terms as closures over (configuration, bindings); ``gold_head`` reads
    the gold heads bound as ``$gold``."""

    def __init__(self, list_index: dict[str, int]):
        self.list_index = list_index

    def visit_const(self, p):
        v = p.value
        return lambda c, e: v

    def visit_has_head(self, p):
        var = p.var
        return lambda c, e: (bool(c.multi[e[var]]) if c.multi is not None else c.heads[e[var]] >= 0)

    def visit_is_root(self, p):
        var = p.var
        return lambda c, e: e[var] == c.root

    def visit_token_flag(self, p):
        flag, var = p.flag, p.var
        return lambda c, e: c.tflags[flag][e[var]]

    def visit_global_flag(self, p):
        flag = p.flag
        return lambda c, e: c.gflags[flag]

    def visit_path(self, p):
        a, b = p.ancestor, p.descendant
        return lambda c, e: _path(c, e[a], e[b])

    def visit_arc_exists(self, p):
        h, d = p.head, p.dep
        return lambda c, e: (e[h] in c.multi[e[d]] if c.multi is not None else c.heads[e[d]] == e[h])

    def visit_length(self, p):
        idx, v, op = self.list_index[p.list], p.value, _OPS[p.op]
        return lambda c, e: op(len(c.lists[idx]), v)

    def visit_cmp(self, p):
        lf, rf, op = self.visit(p.left), self.visit(p.right), _OPS[p.op]
        return lambda c, e: op(lf(c, e), rf(c, e))

    def visit_in_list(self, p):
        tf, idx = self.visit(p.term), self.list_index[p.list]
        return lambda c, e: tf(c, e) in c.lists[idx]

    def visit_connected(self, p):
        a, b = p.a, p.b
        return lambda c, e: _component(c, e[a]) == _component(c, e[b])

    def visit_not(self, p):
        f = self.visit(p.item)
        return lambda c, e: not f(c, e)

    def visit_all(self, p):
        fs = [self.visit(i) for i in p.items]
        return lambda c, e: all(f(c, e) for f in fs)

    def visit_any(self, p):
        fs = [self.visit(i) for i in p.items]
        return lambda c, e: any(f(c, e) for f in fs)

    def visit_tvar(self, t):
        var = t.var
        return lambda c, e: e[var]

    def visit_tint(self, t):
        v = t.value
        return lambda c, e: v

    def visit_tfirst(self, t):
        idx = self.list_index[t.list]
        return lambda c, e: c.lists[idx][0] if c.lists[idx] else c.n + 2

    def visit_tlast(self, t):
        idx = self.list_index[t.list]
        return lambda c, e: c.lists[idx][-1] if c.lists[idx] else 0

    def visit_tlen(self, t):
        idx = self.list_index[t.list]
        return lambda c, e: len(c.lists[idx])

    def visit_tpos(self, t):
        f = self.visit(t.term)

        def pos(c, e):
            x = f(c, e)
            for lst in c.lists:
                if x in lst:
                    return lst.index(x)
            return -1

        return pos

    def visit_tgold(self, t):
        f = self.visit(t.term)
        return lambda c, e: e["$gold"][f(c, e)]

    def visit_tfunc(self, t):
        lf, rf = self.visit(t.left), self.visit(t.right)
        fn = {"max": max, "min": min, "+": lambda a, b: a + b, "-": lambda a, b: a - b}[t.op]
        return lambda c, e: fn(lf(c, e), rf(c, e))


def _path(c: Config, ancestor: int, descendant: int) -> bool:
    """Whether ``ancestor ->* descendant`` (reflexive), following heads upwards."""
    if ancestor == descendant:
        return True
    if c.multi is None:
        t, steps, limit = descendant, 0, len(c.heads)
        while t >= 0 and steps <= limit:
            t = c.heads[t]
            if t == ancestor:
                return True
            steps += 1
        return False
    seen, todo = {descendant}, [descendant]
    while todo:
        for h in c.multi[todo.pop()]:
            if h == ancestor:
                return True
            if h not in seen:
                seen.add(h)
                todo.append(h)
    return False


def _component(c: Config, t: int) -> int:
    """A representative of the weakly connected component of ``t`` in the arcs (single-head)."""
    if c.multi is not None:
        seen, todo = {t}, [t]
        while todo:
            x = todo.pop()
            nbrs = list(c.multi[x]) + [d for d in range(len(c.multi)) if x in c.multi[d]]
            for y in nbrs:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return min(seen)
    # follow heads to the top of t's tree (no cycles in single-head arcs built with guards)
    steps, limit = 0, len(c.heads)
    while c.heads[t] >= 0 and steps <= limit:
        t = c.heads[t]
        steps += 1
    return t


def _split_label(name: str) -> tuple[str, Optional[str]]:
    if ":" in name:
        base, lab = name.split(":", 1)
        return base, lab
    return name, None
