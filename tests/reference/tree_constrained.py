"""Tree-constrained arc-eager, Nivre & Fernandez-Gonzalez 2014, section 3 / Fig. 3.

No artificial root.  Configuration (stack, buffer, A, e) where e records that the
end of the input has been seen (we have passed through an empty buffer).
Initial ([], [1..n], {}, false).

  SHIFT      only if not e                  (then e := e or buffer empty)
  LEFT-ARC   b0 -> s0, pop; only if s0 headless
  RIGHT-ARC  s0 -> b0, push b0              (then e := e or buffer empty)
  REDUCE     pop; only if s0 has a head
  UNSHIFT    move s0 back to the buffer front; only if s0 headless and buffer empty

Terminal: ([w], [], A, true).  Project convention: n == 0 is terminal too.
"""
from collections import namedtuple

from ._util import has_head, snapshot

Config = namedtuple("Config", "stack buffer arcs e n")


class TreeConstrainedArcEager:
    name = "arc-eager-tree-constrained"

    def initial(self, n):
        return Config(stack=(), buffer=tuple(range(1, n + 1)), arcs=frozenset(), e=False, n=n)

    def terminal(self, c):
        return c.n == 0 or (not c.buffer and len(c.stack) == 1 and c.e)

    def legal(self, c):
        if self.terminal(c):
            return set()
        acts = set()
        if c.buffer and not c.e:
            acts.add("SHIFT")
        if c.stack and c.buffer:
            acts.add("RIGHT-ARC")
            if not has_head(c.arcs, c.stack[-1]):
                acts.add("LEFT-ARC")
        if c.stack and has_head(c.arcs, c.stack[-1]):
            acts.add("REDUCE")
        if c.stack and not c.buffer and not has_head(c.arcs, c.stack[-1]):
            acts.add("UNSHIFT")
        return acts

    def apply(self, c, action):
        assert action in self.legal(c), (action, c)
        if action == "SHIFT":
            buf = c.buffer[1:]
            return c._replace(stack=c.stack + c.buffer[:1], buffer=buf, e=c.e or not buf)
        if action == "RIGHT-ARC":
            s0, b0, buf = c.stack[-1], c.buffer[0], c.buffer[1:]
            return c._replace(stack=c.stack + (b0,), buffer=buf,
                              arcs=c.arcs | {(s0, b0)}, e=c.e or not buf)
        if action == "LEFT-ARC":
            s0, b0 = c.stack[-1], c.buffer[0]
            return c._replace(stack=c.stack[:-1], arcs=c.arcs | {(b0, s0)})
        if action == "REDUCE":
            return c._replace(stack=c.stack[:-1])
        if action == "UNSHIFT":
            return c._replace(stack=c.stack[:-1], buffer=(c.stack[-1],) + c.buffer)
        raise ValueError(action)

    def snapshot(self, c):
        return snapshot([("sigma", c.stack), ("beta", c.buffer)], c.arcs,
                        global_flags={"e": c.e})
