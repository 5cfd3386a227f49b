"""The arc diagram: tokens on a baseline, arcs as bows above them (and, optionally, a second
set of arcs below: the gold heads of wrong words).

:class:`Diagram` knows nothing of CoNLL-U or transition systems: tokens are strings in display
order and arcs join token positions.  It chooses the positions (wide enough for every word and
for the label of an arc between neighbours), stacks arcs so that an arc spanning another is
drawn above it, and writes one ``<g class="arc ...">`` element per arc, so that tests and
style sheets can find each arc by its class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from .svg import attr, esc, fmt, text_width

WORD_SIZE = 14.0
SUB_SIZE = 11.0
LABEL_SIZE = 11.0
LEVEL_STEP = 22.0  # vertical distance between stacked arcs
GAP = 22.0  # horizontal space between two words


@dataclass(frozen=True)
class Token:
    """One position on the baseline: the word, a line under it (UPOS), a small index."""

    word: str
    sub: str = ""
    index: str = ""
    css: str = "word"


@dataclass(frozen=True)
class Arc:
    """An arc from token position ``head`` to ``dep``.  ``css`` holds extra classes
    (``root``, ``crossing``, ``wrong-head`` ...); ``title`` is the hover text."""

    head: int
    dep: int
    label: Optional[str] = None
    css: tuple[str, ...] = ()
    title: str = ""

    @property
    def span(self) -> tuple[int, int]:
        return (min(self.head, self.dep), max(self.head, self.dep))


def crossing_pairs(arcs: Sequence[Arc]) -> set[int]:
    """Indices of the arcs that cross at least one other (spans that overlap without one
    containing the other; arcs sharing an end never cross)."""
    out: set[int] = set()
    spans = [a.span for a in arcs]
    for i, (a, b) in enumerate(spans):
        for j in range(i + 1, len(spans)):
            c, d = spans[j]
            if a < c < b < d or c < a < d < b:
                out.update((i, j))
    return out


def arc_levels(arcs: Sequence[Arc]) -> list[int]:
    """The height (1, 2, ...) of each arc: one more than the highest shorter arc that lies
    within its span or crosses it, so nested arcs stack and crossing ones separate."""
    order = sorted(range(len(arcs)), key=lambda i: (arcs[i].span[1] - arcs[i].span[0], arcs[i].span))
    levels = [0] * len(arcs)
    done: list[int] = []
    for i in order:
        a, b = arcs[i].span
        level = 1
        for j in done:
            c, d = arcs[j].span
            inside = a <= c and d <= b and (c, d) != (a, b)
            crosses = a < c < b < d or c < a < d < b
            same = (c, d) == (a, b)
            if inside or crosses or same:
                level = max(level, levels[j] + 1)
        levels[i] = level
        done.append(i)
    return levels


@dataclass
class Diagram:
    """Tokens and arcs, laid out on demand by :meth:`render`."""

    tokens: Sequence[Token]
    arcs: Sequence[Arc]
    below: Sequence[Arc] = field(default_factory=tuple)
    rtl: bool = False  # right to left: token 0 on the right, as a right-to-left script reads

    def positions(self) -> list[float]:
        """The x of each token's centre."""
        widths = [max(text_width(t.word, WORD_SIZE), text_width(t.sub, SUB_SIZE), 24.0) for t in self.tokens]
        need = [0.0] * max(len(self.tokens) - 1, 0)  # extra distance between neighbours for labels
        for a in list(self.arcs) + list(self.below):
            lo, hi = a.span
            if hi - lo == 1 and a.label:
                need[lo] = max(need[lo], text_width(a.label, LABEL_SIZE) + 14.0)
        xs: list[float] = []
        x = 12.0
        for k, w in enumerate(widths):
            if k:
                x = max(x + widths[k - 1] / 2 + GAP + w / 2, xs[-1] + need[k - 1])
            else:
                x += w / 2
            xs.append(x)
        return xs

    def render(self) -> tuple[str, float, float]:
        """The diagram as SVG elements with its origin at (0, 0), and its width and height
        (right to left: laid out left to right, then mirrored)."""
        xs = self.positions()
        width = (xs[-1] if xs else 0.0) + max((text_width(self.tokens[-1].word, WORD_SIZE) / 2 if self.tokens else 0),
                                                12.0) + 14.0
        if self.rtl:
            xs = [width - x for x in xs]
        up = arc_levels(self.arcs)
        down = arc_levels(self.below)
        top = (max(up, default=0)) * LEVEL_STEP + 14.0
        base = top + 4.0  # where the arcs touch the words
        parts: list[str] = []
        for arc, level in zip(self.arcs, up):
            parts.append(self._arc(arc, xs, base, level * LEVEL_STEP, up=True))
        for k, (t, x) in enumerate(zip(self.tokens, xs)):
            parts.append(f'<g class="token" data-position="{k}">'
                         f'<text class={attr(t.css)} x="{fmt(x)}" y="{fmt(base + 16)}" text-anchor="middle">'
                         f'{esc(t.word)}</text>')
            if t.sub:
                parts.append(f'<text class="upos" x="{fmt(x)}" y="{fmt(base + 31)}" text-anchor="middle">'
                             f'{esc(t.sub)}</text>')
            if t.index:
                y = base + (42 if any(t.sub for t in self.tokens) else 30)
                parts.append(f'<text class="index" x="{fmt(x)}" y="{fmt(y)}" text-anchor="middle">'
                             f'{esc(t.index)}</text>')
            parts.append("</g>")
        low = base + (48.0 if any(t.sub for t in self.tokens) else 36.0)
        for arc, level in zip(self.below, down):
            parts.append(self._arc(arc, xs, low, level * LEVEL_STEP * 0.8, up=False))
        height = low + (max(down, default=0) * LEVEL_STEP * 0.8 + 14.0 if self.below else 0.0)
        return "".join(parts), width, height

    @staticmethod
    def _arc(arc: Arc, xs: Sequence[float], y0: float, rise: float, *, up: bool) -> str:
        direction = 1 if xs[arc.dep] > xs[arc.head] else -1
        x1 = xs[arc.head] + direction * 5.0
        x2 = xs[arc.dep]
        sign = -1 if up else 1
        peak = y0 + sign * rise
        r = min(8.0, abs(x2 - x1) / 2, rise / 2)
        d = (f"M{fmt(x1)},{fmt(y0)} V{fmt(peak - sign * r)} Q{fmt(x1)},{fmt(peak)} {fmt(x1 + direction * r)},{fmt(peak)} "
             f"H{fmt(x2 - direction * r)} Q{fmt(x2)},{fmt(peak)} {fmt(x2)},{fmt(peak - sign * r)} V{fmt(y0)}")
        kind = "gold" if not up else "arc"
        marker = next((m for m in ("wrong-head", "wrong-label", "added", "removed", "crossing", "root")
                       if m in arc.css), "gold" if not up else "")
        marker_id = "arrow-" + marker if marker else "arrow"
        cls = " ".join((kind,) + tuple(arc.css))
        out = [f'<g class={attr(cls)} data-head="{arc.head}" data-dep="{arc.dep}">']
        if arc.title:
            out.append(f"<title>{esc(arc.title)}</title>")
        out.append(f'<path d="{d}" marker-end="url(#{marker_id})"/>')
        if arc.label:
            mid = (x1 + x2) / 2
            w = text_width(arc.label, LABEL_SIZE) + 6.0
            out.append(f'<rect class="lab" x="{fmt(mid - w / 2)}" y="{fmt(peak - 7)}" width="{fmt(w)}" height="14" '
                       f'rx="3" style="fill:#fff;opacity:0.85"/>')
            out.append(f'<text x="{fmt(mid)}" y="{fmt(peak + 4)}" text-anchor="middle">{esc(arc.label)}</text>')
        out.append("</g>")
        return "".join(out)
