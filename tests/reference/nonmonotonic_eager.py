"""Non-monotonic arc-eager systems.

1. `arc-eager-nm-2013`: Honnibal, Goldberg & Johnson 2013, as summarised in
   Honnibal & Johnson 2015, section 2.  Root LEFT, initial ([0], [1..n]).
     SHIFT      B nonempty
     RIGHT-ARC  s0 -> b0, push b0
     LEFT-ARC   b0 -> s0, pop; s0 not the root; a previous head of s0 is
                replaced ("clobbered")
     REDUCE     pop s0 (not the root); if s0 is headless, first add s1 -> s0
   Terminal: empty buffer and stack == [0].

2. `arc-eager-unshift`: Honnibal & Johnson 2015, Table 1.  No root; bit vector S
   (token flag "shifted").  Initial ([], [1..n], A, S = 0).
     SHIFT      only if S(b0) = 0; sets S(b0) = 1
     RIGHT-ARC  s0 -> b0, push b0
     REDUCE     pop; only if s0 has a head
     UNSHIFT    move s0 to the buffer front; only if s0 is headless
     LEFT-ARC   A(s0) = b0 (overwrites any head of s0), pop
   Terminal: empty buffer and exactly one word on the stack.
   Project convention: n == 0 is terminal too.
"""
from collections import namedtuple

from ._util import has_head, snapshot

Config = namedtuple("Config", "stack buffer arcs")
UConfig = namedtuple("UConfig", "stack buffer arcs shifted n")


def _set_head(arcs, h, d):
    """Replace every arc into d by h -> d."""
    return frozenset(a for a in arcs if a[1] != d) | {(h, d)}


class ArcEagerNM2013:
    name = "arc-eager-nm-2013"

    def initial(self, n):
        return Config(stack=(0,), buffer=tuple(range(1, n + 1)), arcs=frozenset())

    def terminal(self, c):
        return not c.buffer and c.stack == (0,)

    def legal(self, c):
        if self.terminal(c):
            return set()
        acts = set()
        if c.buffer:
            acts.add("SHIFT")
        if c.stack and c.buffer:
            acts.add("RIGHT-ARC")
            if c.stack[-1] != 0:
                acts.add("LEFT-ARC")
        if c.stack and c.stack[-1] != 0:
            if has_head(c.arcs, c.stack[-1]) or len(c.stack) >= 2:
                acts.add("REDUCE")
        return acts

    def apply(self, c, action):
        assert action in self.legal(c), (action, c)
        if action == "SHIFT":
            return c._replace(stack=c.stack + c.buffer[:1], buffer=c.buffer[1:])
        if action == "RIGHT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack + (b0,), buffer=c.buffer[1:],
                              arcs=c.arcs | {(s0, b0)})
        if action == "LEFT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack[:-1], arcs=_set_head(c.arcs, b0, s0))
        if action == "REDUCE":
            s0 = c.stack[-1]
            arcs = c.arcs
            if not has_head(arcs, s0):
                arcs = arcs | {(c.stack[-2], s0)}
            return c._replace(stack=c.stack[:-1], arcs=arcs)
        raise ValueError(action)

    def snapshot(self, c):
        return snapshot([("sigma", c.stack), ("beta", c.buffer)], c.arcs)


class ArcEagerUnshift:
    name = "arc-eager-unshift"

    def initial(self, n):
        return UConfig(stack=(), buffer=tuple(range(1, n + 1)), arcs=frozenset(),
                       shifted=frozenset(), n=n)

    def terminal(self, c):
        return c.n == 0 or (not c.buffer and len(c.stack) == 1)

    def legal(self, c):
        if self.terminal(c):
            return set()
        acts = set()
        if c.buffer and c.buffer[0] not in c.shifted:
            acts.add("SHIFT")
        if c.stack and c.buffer:
            acts.add("RIGHT-ARC")
            acts.add("LEFT-ARC")
        if c.stack:
            acts.add("REDUCE" if has_head(c.arcs, c.stack[-1]) else "UNSHIFT")
        return acts

    def apply(self, c, action):
        assert action in self.legal(c), (action, c)
        if action == "SHIFT":
            b0 = c.buffer[0]
            return c._replace(stack=c.stack + (b0,), buffer=c.buffer[1:],
                              shifted=c.shifted | {b0})
        if action == "RIGHT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack + (b0,), buffer=c.buffer[1:],
                              arcs=c.arcs | {(s0, b0)})
        if action == "REDUCE":
            return c._replace(stack=c.stack[:-1])
        if action == "UNSHIFT":
            return c._replace(stack=c.stack[:-1], buffer=(c.stack[-1],) + c.buffer)
        if action == "LEFT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack[:-1], arcs=_set_head(c.arcs, b0, s0))
        raise ValueError(action)

    def snapshot(self, c):
        return snapshot([("sigma", c.stack), ("beta", c.buffer)], c.arcs,
                        token_flags={"shifted": c.shifted})
