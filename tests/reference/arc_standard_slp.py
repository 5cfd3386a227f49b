"""Arc-standard in stack/buffer form, as in Jurafsky & Martin SLP ch. 18
(section 18.2, trace Fig. 18.7).  Root LEFT: token 0 starts on the stack.

  SHIFT      (s, b0|B)     => (s|b0, B)                    B nonempty
  LEFT-ARC   (s|s1|s0, B)  => (s|s0, B),  A + {s0 -> s1}   s1 is not the root
  RIGHT-ARC  (s|s1|s0, B)  => (s|s1, B),  A + {s1 -> s0}

Terminal: empty buffer and stack == [root].
"""
from collections import namedtuple

from ._util import snapshot

Config = namedtuple("Config", "stack buffer arcs")


class ArcStandardSLP:
    name = "arc-standard-slp"

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
        if len(c.stack) >= 2:
            acts.add("RIGHT-ARC")
            if c.stack[-2] != 0:
                acts.add("LEFT-ARC")
        return acts

    def apply(self, c, action):
        assert action in self.legal(c), (action, c)
        if action == "SHIFT":
            return c._replace(stack=c.stack + c.buffer[:1], buffer=c.buffer[1:])
        s1, s0 = c.stack[-2], c.stack[-1]
        if action == "LEFT-ARC":
            return c._replace(stack=c.stack[:-2] + (s0,), arcs=c.arcs | {(s0, s1)})
        if action == "RIGHT-ARC":
            return c._replace(stack=c.stack[:-1], arcs=c.arcs | {(s1, s0)})
        raise ValueError(action)

    def snapshot(self, c):
        return snapshot([("sigma", c.stack), ("beta", c.buffer)], c.arcs)
