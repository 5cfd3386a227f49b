"""Can a given arc h -> d still be built?  A sound over-approximation for any system.

The question is answered on an abstraction that keeps only the two tokens:
where each sits (list and distance from the list's open end, up to a depth
``M`` beyond which "deep"), whether each has a head, and their per-token flags.
Everything else (other tokens, global flags, paths, lengths) is unknown and
treated as "possibly true".  Because every concrete run maps to an abstract
run, "unreachable" here implies unreachable in the real system, so counting
such gold arcs gives an admissible lower bound on the loss.  Results depend
only on the system and the abstract state, so they are cached across
configurations.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from .. import ir
from ..interp import Config

Pos = Optional[tuple[int, int]]  # (list index, offset from the open end, capped at M); None = gone


_SHARED: dict[tuple[int, int], "PairReachability"] = {}


def pair_reachability(system: ir.System, n_tokens: int) -> "PairReachability":
    """The shared analysis of ``system`` (its cache outlives one search)."""
    key = (id(system), n_tokens if system.unbounded else 0)
    hit = _SHARED.get(key)
    if hit is None or hit.system is not system:
        if len(_SHARED) > 256:
            _SHARED.clear()
        hit = _SHARED[key] = PairReachability(system, n_tokens)
    return hit


class PairReachability:
    """Abstract reachability of single arcs for one system (and one token count)."""

    def __init__(self, system: ir.System, n_tokens: int):
        self.system = system
        self.actions = system.actions_for(n_tokens)
        self.lindex = {d.name: k for k, d in enumerate(system.lists)}
        self.open_right = [d.open_end == "R" for d in system.lists]
        self.cases = [c for a in self.actions for c in a.cases]
        self.guards = [c.full_guard for c in self.cases]
        depth = 1
        for c in self.cases:
            for m in c.match:
                depth = max(depth, m.min_len + 1)
            for items in c.result:
                depth = max(depth, sum(ir.item_width(i) for i in items) + 1)
        self.M = depth
        self.tflags = [name for name, _ in system.token_flags]
        self.cache: dict[tuple, bool] = {}

    # ---- concrete -> abstract ---------------------------------------------------
    def positions(self, c: Config) -> dict[int, tuple[int, int]]:
        """Every token's abstract position in ``c`` (tokens in no list are absent)."""
        out = {}
        M = self.M
        for k, lst in enumerate(c.lists):
            last = len(lst) - 1
            if self.open_right[k]:
                for i, t in enumerate(lst):
                    out[t] = (k, min(last - i, M))
            else:
                for i, t in enumerate(lst):
                    out[t] = (k, min(i, M))
        return out

    def abstract(self, c: Config, h: int, d: int, positions: Optional[dict] = None) -> tuple:
        where = positions if positions is not None else self.positions(c)
        pos = where.get

        def headed(t: int) -> bool:
            return bool(c.multi[t]) if c.multi is not None else c.heads[t] >= 0

        flags = lambda t: tuple(bool(c.tflags[f][t]) for f in self.tflags)
        return (pos(h), pos(d), headed(h), headed(d), flags(h), flags(d), h == c.root, d == c.root)

    def reachable(self, c: Config, h: int, d: int, positions: Optional[dict] = None) -> bool:
        """Whether the arc h -> d may still be created from ``c`` (True when unsure)."""
        return self._search(self.abstract(c, h, d, positions))

    # ---- abstract search -----------------------------------------------------------
    def _search(self, start: tuple) -> bool:
        hit = self.cache.get(start)
        if hit is not None:
            return hit
        seen = {start}
        todo = [start]
        found = False
        while todo and not found:
            state = todo.pop()
            for nxt in self._successors(state):
                if nxt is True:
                    found = True
                    break
                if nxt not in seen:
                    known = self.cache.get(nxt)
                    if known is True:
                        found = True
                        break
                    if known is False:
                        continue
                    seen.add(nxt)
                    todo.append(nxt)
        if found:
            self.cache[start] = True
        else:
            for s in seen:  # nothing reachable from any of them builds the arc
                self.cache[s] = False
        return found

    @staticmethod
    def _arc_effects(case: ir.Case, env: dict, hh, hd) -> tuple[bool, set, set]:
        """What the arcs of ``case`` do to the pair, its tokens bound in ``env`` ("h", "d"):
        whether it builds h -> d (the goal), and the possible has-head values of h and d after
        it (an arc gives its dependent a head; breaking a cycle may take one from its head)."""
        heads_h, heads_d = {hh}, {hd}
        goal = False
        for op in case.arcs:
            if env.get(op.head) == "h" and env.get(op.dep) == "d":
                goal = True
            if env.get(op.dep) == "d":
                heads_d = {True}
            if env.get(op.dep) == "h":
                heads_h = {True}
            if op.break_cycle and env.get(op.head) == "d":
                heads_d = heads_d | {False}
            if op.break_cycle and env.get(op.head) == "h":
                heads_h = heads_h | {False}
        return goal, heads_h, heads_d

    def _fits(self, case: ir.Case, ph, pd, bh, bd, gap) -> bool:
        """Whether the pair can take roles ``bh`` and ``bd`` in ``case`` (a variant that knows
        more of the configuration, such as the gap between the two, says no where it can)."""
        return True

    def _firings(self, ph, pd, hh, hd, fh, fd, rh, rd, gap=None):
        """Every way a case can fire on the pair: ``None`` as soon as one builds h -> d (the
        goal), else (case, role of h, role of d, heads h may have after it, heads d may
        have, flags of h, flags of d)."""
        for case, guard in zip(self.cases, self.guards):
            for bh in self._roles(case, ph):
                for bd in self._roles(case, pd):
                    if bh[0] == "tok" and bd[0] == "tok" and bh[1] == bd[1]:
                        continue
                    if bh[0] == "block" and bd[0] == "block" and bh[1] == bd[1] and bh[2] == bd[2]:
                        continue
                    if not self._fits(case, ph, pd, bh, bd, gap):
                        continue
                    env = {}
                    if bh[0] == "tok":
                        env[bh[1]] = "h"
                    if bd[0] == "tok":
                        env[bd[1]] = "d"
                    facts = {"h": (hh, fh, rh), "d": (hd, fd, rd)}
                    if _eval(guard, env, facts, self.tflags) is False:
                        continue
                    goal, heads_h, heads_d = self._arc_effects(case, env, hh, hd)
                    if goal:
                        yield None
                        return
                    yield (case, bh, bd, heads_h, heads_d, self._flags(case, env, "h", fh),
                           self._flags(case, env, "d", fd))

    def _successors(self, state):
        ph, pd, hh, hd, fh, fd, rh, rd = state
        if ph is None or pd is None:
            return
        for fired in self._firings(ph, pd, hh, hd, fh, fd, rh, rd):
            if fired is None:
                yield True
                return
            case, bh, bd, heads_h, heads_d, new_fh, new_fd = fired
            for nh in self._moved(case, ph, bh):
                for nd in self._moved(case, pd, bd):
                    if nh is not None and nh == nd and nh[1] < self.M:
                        continue
                    for a in heads_h:
                        for b in heads_d:
                            for x in new_fh:
                                for y in new_fd:
                                    yield (nh, nd, a, b, x, y, rh, rd)

    def _flags(self, case: ir.Case, env: dict, who: str, current: tuple) -> list[tuple]:
        options = [list(current)]
        for s in case.sets:
            if s.var is None or env.get(s.var) != who:
                continue
            k = self.tflags.index(s.flag)
            value = s.value.value if isinstance(s.value, ir.Const) else None
            new = []
            for opt in options:
                for v in ((value,) if value is not None else (False, True)):
                    o = list(opt)
                    o[k] = v
                    new.append(o)
            options = new
        return [tuple(o) for o in options]

    @lru_cache(maxsize=None)
    def _layout(self, case: ir.Case, k: int):
        """Open-side items of list k's match: [(item, offset, width)], plus the closed-side items."""
        m = case.match[k]
        items = list(m.items)
        if self.open_right[k]:
            items = items[::-1]
        rest_at = next((i for i, it in enumerate(items) if isinstance(it, ir.Rest)), None)
        open_side = items if rest_at is None else items[:rest_at]
        closed = [] if rest_at is None else [it for it in items[rest_at + 1:]]
        out, off = [], 0
        for it in open_side:
            out.append((it, off, ir.item_width(it)))
            off += ir.item_width(it)
        return tuple(out), off, rest_at is not None, tuple(closed)

    def _roles(self, case: ir.Case, p: tuple[int, int]):
        """Ways a token at abstract position ``p`` can sit in the case's match of its list."""
        k, o = p
        open_items, width, has_rest, closed = self._layout(case, k)
        M = self.M
        if o < M and o < width:
            for it, off, w in open_items:
                if off <= o < off + w:
                    if isinstance(it, ir.Tok):
                        yield ("tok", it.var)
                    else:
                        yield ("block", it.var, o - off)
            return
        if not has_rest:
            if o >= M:  # deep token in an exact pattern longer than M: anywhere in it
                for it, off, w in open_items:
                    if off + w > M:
                        yield ("tok", it.var) if isinstance(it, ir.Tok) else ("block", it.var, None)
            return
        yield ("rest", o - width if o < M else None)
        for it in closed:
            yield ("tok", it.var) if isinstance(it, ir.Tok) else ("block", it.var, None)

    def _moved(self, case: ir.Case, p: tuple[int, int], role) -> list[Pos]:
        """Possible abstract positions after the rewrite of a token in ``role``."""
        k, _ = p
        M = self.M
        target = ir.Rest(case.match[k].list) if role[0] == "rest" else None
        for k2, items in enumerate(case.result):
            seq = list(items)[::-1] if self.open_right[k2] else list(items)
            off = 0
            for idx, it in enumerate(seq):
                w = ir.item_width(it)
                hit = (role[0] == "tok" and isinstance(it, ir.Tok) and it.var == role[1]) or \
                      (role[0] == "block" and isinstance(it, ir.Block) and it.var == role[1]) or \
                      (target is not None and it == target)
                if hit:
                    # everything before this item on the open side has a known width only
                    # when no Rest precedes it
                    exact = not any(isinstance(x, ir.Rest) for x in seq[:idx])
                    if role[0] == "tok":
                        inner = [0]
                    elif role[0] == "block":
                        inner = [role[2]] if role[2] is not None else list(range(w))
                    else:
                        same_dir = self.open_right[k] == self.open_right[k2]
                        inner = [role[1]] if (role[1] is not None and same_dir) else None
                    if exact and inner is not None:
                        return sorted({(k2, min(off + i, M)) for i in inner})
                    low = min(off, M)
                    return [(k2, x) for x in range(low, M + 1)]
                off += w
        return [None]


def _eval(p: ir.Pred, env: dict, facts: dict, tflags: list[str]) -> Optional[bool]:
    """Three-valued evaluation: True, False, or None (unknown)."""
    return _ThreeValued(env, facts, tflags).visit(p)


class _ThreeValued(ir.PredWalker):
    """Evaluates a predicate on abstract token facts (has head, flags, is root): True, False,
    or None where the facts do not decide it (paths, arcs, lengths, comparisons …)."""

    def __init__(self, env: dict, facts: dict, tflags: list[str]):
        self.env, self.facts, self.tflags = env, facts, tflags

    def _fact(self, var: str, k: int):
        who = self.env.get(var)
        return self.facts[who][k] if who else None

    def visit_const(self, p):
        return p.value

    def visit_has_head(self, p):
        return self._fact(p.var, 0)

    def visit_is_root(self, p):
        return self._fact(p.var, 2)

    def visit_token_flag(self, p):
        flags = self._fact(p.var, 1)
        return None if flags is None else flags[self.tflags.index(p.flag)]

    def visit_not(self, p):
        v = self.visit(p.item)
        return None if v is None else not v

    def visit_all(self, p):
        vals = [self.visit(i) for i in p.items]
        if any(v is False for v in vals):
            return False
        return True if all(v is True for v in vals) else None

    def visit_any(self, p):
        vals = [self.visit(i) for i in p.items]
        if any(v is True for v in vals):
            return True
        return False if all(v is False for v in vals) else None

    def _unknown(self, p):
        return None

    visit_global_flag = visit_path = visit_arc_exists = visit_length = visit_cmp = visit_in_list = \
        visit_connected = _unknown


REACH_TABLE_LIMIT = 20_000
"""The most abstract states :func:`reach_table` enumerates (capacity-inf systems on long
sentences have deeper patterns, so more positions: there the compiled search goes without)."""


def reach_table(system: ir.System, n_tokens: int) -> Optional[tuple[int, list[int], int, "np.ndarray"]]:
    """:meth:`PairReachability.reachable` for every abstract state, for the compiled exact
    loss search (``_loss.pxi``): ``(M, open_right, F, table)`` with ``table[index]`` 1 when
    the arc may still be built.  A position is ``list * (M + 1) + offset``, or ``NL * (M +
    1)`` for a token in no list (NL lists, NP = NL * (M + 1) + 1 positions); flags are bits in
    the order of ``system.token_flags``; the index is ``((((((P(h) * NP + P(d)) * 2 + headed(h))
    * 2 + headed(d)) * 2**F + flags(h)) * 2**F + flags(d)) * 2 + is_root(h)) * 2 + is_root(d)``.
    None when there are more than :data:`REACH_TABLE_LIMIT` states."""
    import itertools

    import numpy as np

    r = pair_reachability(system, n_tokens)
    nl, M, F = len(system.lists), r.M, len(r.tflags)
    positions = [(k, o) for k in range(nl) for o in range(M + 1)] + [None]
    NP, NF = len(positions), 1 << F
    if NP * NP * 16 * NF * NF > REACH_TABLE_LIMIT:
        return None
    table = np.zeros(NP * NP * 16 * NF * NF, dtype=np.uint8)
    flags = list(itertools.product((False, True), repeat=F))
    bits = [sum(1 << k for k, v in enumerate(f) if v) for f in flags]
    for (ih, ph), (id_, pd) in itertools.product(enumerate(positions), repeat=2):
        for hh, hd, rh, rd in itertools.product((0, 1), repeat=4):
            for fh, bh in zip(flags, bits):
                for fd, bd in zip(flags, bits):
                    index = (((((ih * NP + id_) * 2 + hh) * 2 + hd) * NF + bh) * NF + bd) * 4 + rh * 2 + rd
                    table[index] = r._search((ph, pd, bool(hh), bool(hd), fh, fd, bool(rh), bool(rd)))
    return M, [int(o) for o in r.open_right], F, table
