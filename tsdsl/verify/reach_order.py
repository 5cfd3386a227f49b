"""Pair reachability that also knows the order of two tokens in one list.

:class:`~tsdsl.verify.reach.PairReachability` describes each of the two tokens by its list and
its distance from the list's open end, exact up to a depth ``M`` and "deep" beyond.  Two deep
tokens of one list then lose their order, and for the stack systems that order decides: in
arc-eager as control parameters (``O = [.. s0, b0]``) the plain analysis lets a headless word of
``O`` take any word of ``O`` as head, where only ``last(O)`` (``b0``) or a word of ``U`` can
still be its head (what ``tsdsl derive-oracle arc-eager-cp`` prints).  This analysis adds the
gap between the two tokens when they share a list, ``g = offset(d) - offset(h)``, exact for
``|g| < G`` and "at least ``G``" at ``±G``.  A list's rest moves as a whole, so two tokens that sit in the same
rest keep their gap (its sign flips if the rest lands in a list open at the other end); every
other move allows every gap the two new positions allow.  Like the plain analysis it is a
sound over-approximation: every concrete run maps to an abstract run.

It is used to derive oracle rules (:mod:`.derive_oracle`) and nowhere else: the exact loss
search keeps the plain analysis.
"""

from __future__ import annotations

from typing import Optional

from .. import ir
from ..interp import Config
from .reach import PairReachability


class OrderedPairReachability(PairReachability):
    """Abstract reachability of single arcs, with the gap of two tokens in one list."""

    def __init__(self, system: ir.System, n_tokens: int):
        super().__init__(system, n_tokens)
        self.G = self.M

    # ---- the gap ----------------------------------------------------------------
    def gaps(self, ph, pd) -> list[Optional[int]]:
        """Every gap ``offset(d) - offset(h)`` (capped at ``±G``) two tokens at these abstract
        positions can have; ``[None]`` when they are not in one list."""
        if ph is None or pd is None or ph[0] != pd[0]:
            return [None]
        M, G = self.M, self.G
        oh, od = ph[1], pd[1]
        if oh < M and od < M:
            return [] if oh == od else [max(-G, min(G, od - oh))]
        if oh < M:   # d deep: at least M - oh further from the open end
            return list(range(min(M - oh, G), G + 1))
        if od < M:
            return [-g for g in range(min(M - od, G), G + 1)]
        return [g for g in range(-G, G + 1) if g]

    def abstract(self, c: Config, h: int, d: int, positions: Optional[dict] = None) -> tuple:
        base = super().abstract(c, h, d, positions)
        gap = None
        if base[0] is not None and base[1] is not None and base[0][0] == base[1][0]:
            lst = list(c.lists[base[0][0]])
            raw = lst.index(d) - lst.index(h)
            gap = -raw if self.open_right[base[0][0]] else raw
            gap = max(-self.G, min(self.G, gap))
        return base + (gap,)

    # ---- abstract search -----------------------------------------------------------
    def _successors(self, state):
        ph, pd, hh, hd, fh, fd, rh, rd, gap = state
        if ph is None or pd is None:
            return
        for fired in self._firings(ph, pd, hh, hd, fh, fd, rh, rd, gap):
            if fired is None:
                yield True
                return
            case, bh, bd, heads_h, heads_d, new_fh, new_fd = fired
            together = bh[0] == "rest" and bd[0] == "rest" and ph[0] == pd[0] and gap is not None
            for nh in self._moved(case, ph, bh):
                for nd in self._moved(case, pd, bd):
                    if nh is not None and nh == nd and nh[1] < self.M:
                        continue
                    options = self.gaps(nh, nd)
                    if together and nh is not None and nd is not None and nh[0] == nd[0]:
                        kept = gap if self.open_right[ph[0]] == self.open_right[nh[0]] else -gap
                        options = [g for g in options if g == kept]
                    for g in options:
                        for a in heads_h:
                            for b in heads_d:
                                for x in new_fh:
                                    for y in new_fd:
                                        yield (nh, nd, a, b, x, y, rh, rd, g)

    def _moved(self, case: ir.Case, p: tuple[int, int], role) -> list:
        """As the plain analysis, but a deep token in a list's rest stays at least as deep as
        the rest's new start plus ``M`` minus the width of the items that were before it (the
        plain analysis lets it rise to the rest's start)."""
        out = super()._moved(case, p, role)
        if role[0] != "rest" or role[1] is not None or p[1] < self.M or len(out) < 2:
            return out
        k, M = p[0], self.M
        width = self._layout(case, k)[1]
        target = ir.Rest(case.match[k].list)
        for k2, items in enumerate(case.result):
            seq = list(items)[::-1] if self.open_right[k2] else list(items)
            off = 0
            for idx, it in enumerate(seq):
                if it == target:
                    exact = not any(isinstance(x, ir.Rest) for x in seq[:idx])
                    if exact and self.open_right[k] == self.open_right[k2]:
                        low = min(off + M - width, M)
                        return [(k2, x) for x in range(low, M + 1)]
                    return out
                off += ir.item_width(it)
        return out

    def _fits(self, case: ir.Case, ph, pd, bh, bd, gap) -> bool:
        """Whether the two roles agree with the gap: two named tokens (or block cells) of one
        list's pattern sit at a known distance from each other."""
        if gap is None or ph[0] != pd[0] or abs(gap) >= self.G:
            return True
        open_items, _, _, _ = self._layout(case, ph[0])
        where = {}
        for it, off, w in open_items:
            where[("tok", it.var) if isinstance(it, ir.Tok) else ("block", it.var)] = (off, w)

        def offset(role):
            if role[0] == "tok" and ("tok", role[1]) in where:
                return where[("tok", role[1])][0]
            if role[0] == "block" and role[2] is not None and ("block", role[1]) in where:
                return where[("block", role[1])][0] + role[2]
            return None

        oh, od = offset(bh), offset(bd)
        return oh is None or od is None or od - oh == gap
