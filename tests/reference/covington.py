"""Covington's non-projective list-based parser, as a transition system.

Source: Fernandez-Gonzalez & Gomez-Rodriguez 2017, section 2.1 / Fig. 1
(monotonic) and section 3 / Fig. 2 (non-monotonic).  No root.
Configuration <l1, l2, B, A>; focus words i = end of l1, j = front of B.
Initial <[], [], [1..n], {}>; terminal: B empty.

  SHIFT     <l1, l2, j|B>   => <l1.l2|j, [], B>
  NO-ARC    <l1|i, l2, B>   => <l1, i|l2, B>
  LEFT-ARC  <l1|i, l2, j|B> => <l1, i|l2, j|B>,  adds j -> i
  RIGHT-ARC <l1|i, l2, j|B> => <l1, i|l2, j|B>,  adds i -> j

Monotonic (Fig. 1): LEFT-ARC only if i is headless and not i ->* j;
                    RIGHT-ARC only if j is headless and not j ->* i.
Non-monotonic (Fig. 2): always allowed; the new arc replaces the dependent's old
head, and if it closes a cycle (head was a descendant of the dependent) the arc
into the new arc's head is removed:
  LEFT-ARC:  (A + {j->i}) - {x->i} - {k->j | i ->* k}
  RIGHT-ARC: (A + {i->j}) - {x->j} - {k->i | j ->* k}
"""
from collections import namedtuple

from ._util import has_head, reaches, snapshot

Config = namedtuple("Config", "l1 l2 buffer arcs")


class Covington:
    name = "covington"
    monotonic = True

    def initial(self, n):
        return Config(l1=(), l2=(), buffer=tuple(range(1, n + 1)), arcs=frozenset())

    def terminal(self, c):
        return not c.buffer

    def _arc_ok(self, arcs, head, dep):
        if not self.monotonic:
            return True
        return not has_head(arcs, dep) and not reaches(arcs, dep, head)

    def legal(self, c):
        if self.terminal(c):
            return set()
        acts = {"SHIFT"}  # buffer is nonempty here
        if c.l1:
            acts.add("NO-ARC")
            i, j = c.l1[-1], c.buffer[0]
            if self._arc_ok(c.arcs, j, i):
                acts.add("LEFT-ARC")
            if self._arc_ok(c.arcs, i, j):
                acts.add("RIGHT-ARC")
        return acts

    def _add(self, arcs, head, dep):
        """Add head -> dep; in the non-monotonic variant also repair (Fig. 2)."""
        if self.monotonic:
            return arcs | {(head, dep)}
        closes_cycle = reaches(arcs, dep, head)  # evaluated on the old A
        new = {a for a in arcs if a[1] != dep}   # drop dep's old head
        if closes_cycle:
            new = {a for a in new if a[1] != head}  # drop the arc into head
        return frozenset(new) | {(head, dep)}

    def apply(self, c, action):
        assert action in self.legal(c), (action, c)
        if action == "SHIFT":
            return c._replace(l1=c.l1 + c.l2 + c.buffer[:1], l2=(), buffer=c.buffer[1:])
        i = c.l1[-1]
        moved = c._replace(l1=c.l1[:-1], l2=(i,) + c.l2)
        if action == "NO-ARC":
            return moved
        j = c.buffer[0]
        if action == "LEFT-ARC":
            return moved._replace(arcs=self._add(c.arcs, j, i))
        if action == "RIGHT-ARC":
            return moved._replace(arcs=self._add(c.arcs, i, j))
        raise ValueError(action)

    def snapshot(self, c):
        return snapshot([("lambda1", c.l1), ("lambda2", c.l2), ("beta", c.buffer)], c.arcs)


class CovingtonNM(Covington):
    name = "covington-nm"
    monotonic = False
