"""Monotonic arc-eager (Nivre 2003), in stack/buffer form.

Sources: Jurafsky & Martin, SLP ch. 18 (arc eager, Fig. 18.9);
Nivre & Fernandez-Gonzalez 2014, Fig. 2 / section 2 (the four transitions and
their preconditions).  Root LEFT: token 0 starts on the stack.

  SHIFT      (s, b0|B)    => (s|b0, B)                   B nonempty
  LEFT-ARC   (s|s0, b0|B) => (s, b0|B),   A + {b0 -> s0}  s0 not root, s0 headless
  RIGHT-ARC  (s|s0, b0|B) => (s|s0|b0, B), A + {s0 -> b0}
  REDUCE     (s|s0, B)    => (s, B)                     s0 has a head

`arc-eager`:     terminal = empty buffer (Nivre 2003).
`arc-eager-slp`: terminal = empty buffer and stack == [root] (SLP Fig. 18.9
                 keeps reducing until only the root is left).
"""
from collections import namedtuple

from ._util import has_head, snapshot

Config = namedtuple("Config", "stack buffer arcs")


class ArcEager:
    name = "arc-eager"

    def initial(self, n):
        return Config(stack=(0,), buffer=tuple(range(1, n + 1)), arcs=frozenset())

    def terminal(self, c):
        return not c.buffer

    def legal(self, c):
        if self.terminal(c):
            return set()
        acts = set()
        if c.buffer:
            acts.add("SHIFT")
        if c.stack and c.buffer:
            acts.add("RIGHT-ARC")
            s0 = c.stack[-1]
            if s0 != 0 and not has_head(c.arcs, s0):
                acts.add("LEFT-ARC")
        if c.stack and has_head(c.arcs, c.stack[-1]):
            acts.add("REDUCE")
        return acts

    def apply(self, c, action):
        assert action in self.legal(c), (action, c)
        if action == "SHIFT":
            return c._replace(stack=c.stack + c.buffer[:1], buffer=c.buffer[1:])
        if action == "LEFT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack[:-1], arcs=c.arcs | {(b0, s0)})
        if action == "RIGHT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack + (b0,), buffer=c.buffer[1:],
                              arcs=c.arcs | {(s0, b0)})
        if action == "REDUCE":
            return c._replace(stack=c.stack[:-1])
        raise ValueError(action)

    def snapshot(self, c):
        return snapshot([("sigma", c.stack), ("beta", c.buffer)], c.arcs)


class ArcEagerSLP(ArcEager):
    name = "arc-eager-slp"

    def terminal(self, c):
        return not c.buffer and c.stack == (0,)
