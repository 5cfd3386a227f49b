"""The XML side of the pictures: escaping, text width estimates, the shared style sheet, the
SVG element and the HTML page around them.

Every piece of user text (word forms, labels, sentence ids) goes through :func:`esc`, which
also replaces the characters XML 1.0 forbids, so any CoNLL-U file gives well-formed SVG.
"""

from __future__ import annotations

import re
import unicodedata
from xml.sax.saxutils import escape, quoteattr

SVG_NS = "http://www.w3.org/2000/svg"

_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")

#: one style sheet for the HTML pages and the standalone SVG files
CSS = """
svg.tsdsl { font-family: "DejaVu Sans", "Helvetica", "Arial", sans-serif; }
.tsdsl .word { font-size: 14px; fill: #111; }
.tsdsl .upos { font-size: 11px; fill: #666; }
.tsdsl .index { font-size: 9px; fill: #999; }
.tsdsl .empty-node { fill: #888; font-style: italic; }
.tsdsl .rootword { font-size: 12px; fill: #555; font-style: italic; }
.tsdsl .arc path { fill: none; stroke: #333; stroke-width: 1.4; }
.tsdsl .arc text, .tsdsl .gold text { font-size: 11px; fill: #333; }
.tsdsl .arc .lab { fill: #fff; opacity: 0.85; }
.tsdsl .arc.root path { stroke: #1f5fbf; stroke-width: 2; }
.tsdsl .arc.root text { fill: #1f5fbf; font-weight: bold; }
.tsdsl .arc.crossing path { stroke: #8a2be2; stroke-dasharray: 6 3; }
.tsdsl .arc.crossing text { fill: #8a2be2; }
.tsdsl .arc.wrong-label path { stroke: #e08000; stroke-width: 2.2; }
.tsdsl .arc.wrong-label text { fill: #c06000; font-weight: bold; }
.tsdsl .arc.wrong-head path { stroke: #d62020; stroke-width: 2.2; }
.tsdsl .arc.wrong-head text { fill: #d62020; font-weight: bold; }
.tsdsl .arc.added path { stroke: #119a3a; stroke-width: 2.6; }
.tsdsl .arc.added text { fill: #119a3a; font-weight: bold; }
.tsdsl .arc.removed path { stroke: #d62020; stroke-dasharray: 3 3; }
.tsdsl .arc.removed text { fill: #d62020; text-decoration: line-through; }
.tsdsl .gold path { fill: none; stroke: #999; stroke-width: 1.2; stroke-dasharray: 2 3; }
.tsdsl .gold text { fill: #888; }
.tsdsl .caption { font-size: 13px; fill: #222; font-weight: bold; }
.tsdsl .legend text { font-size: 12px; fill: #333; }
.tsdsl .listname { font-size: 13px; fill: #333; font-style: italic; }
.tsdsl .box rect { fill: #eef3fb; stroke: #7a97c4; }
.tsdsl .box text { font-size: 13px; fill: #111; }
.tsdsl .empty { font-size: 12px; fill: #999; }
"""


def esc(text: object) -> str:
    """``text`` as XML character data: ``& < >`` escaped, forbidden characters replaced."""
    return escape(_FORBIDDEN.sub("\ufffd", str(text)))


def attr(text: object) -> str:
    """``text`` as a quoted XML attribute value (quotes included)."""
    return quoteattr(_FORBIDDEN.sub("\ufffd", str(text)))


def text_width(text: str, size: float = 14.0) -> float:
    """An estimate of the rendered width of ``text`` in pixels at font ``size``: wide East
    Asian characters count double, combining marks nothing (no font metrics at hand)."""
    units = 0.0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        units += 2.0 if unicodedata.east_asian_width(ch) in ("W", "F") else 1.0
    return units * size * 0.58


DIRECTIONS = ("auto", "ltr", "rtl")
"""How ``tsdsl draw --direction`` lays a sentence out: from its script (auto), or as asked."""


def right_to_left(words, direction: str = "auto") -> bool:
    """Whether to lay ``words`` out right to left: ``direction`` "rtl" or "ltr" as asked, or
    "auto" when more of their letters belong to right-to-left scripts (Unicode bidirectional
    class R or AL: Hebrew, Arabic, Syriac, Thaana, N'Ko ...) than to left-to-right ones (class
    L).  Counted over every word, not from the first strong letter as a browser's
    ``dir="auto"`` does, so that an Arabic sentence opening with a Latin name or a number is
    still drawn as Arabic reads."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
    if direction != "auto":
        return direction == "rtl"
    rtl = ltr = 0
    for word in words:
        for ch in word:
            kind = unicodedata.bidirectional(ch)
            if kind in ("R", "AL"):
                rtl += 1
            elif kind == "L":
                ltr += 1
    return rtl > ltr


def fmt(x: float) -> str:
    """A coordinate with at most one decimal."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def svg_document(body: str, width: float, height: float, *, standalone: bool = False, markers: bool = True) -> str:
    """An ``<svg>`` element around ``body``; ``standalone`` adds the XML declaration and the
    style sheet (an HTML page carries the style sheet once in its head instead).  The
    arrowheads are defined when ``markers``: in an HTML page, once, by its first SVG (ids are
    shared by the whole page)."""
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' if standalone else ""
    style = f"<style>{CSS}</style>" if standalone else ""
    defs = _markers() if markers else ""
    return (f'{head}<svg xmlns="{SVG_NS}" class="tsdsl" width="{fmt(width)}" height="{fmt(height)}" '
            f'viewBox="0 0 {fmt(width)} {fmt(height)}">{style}{defs}{body}</svg>')


def _markers() -> str:
    """Arrowheads (one per colour, since a marker does not inherit its path's stroke)."""
    colours = {"arrow": "#333", "arrow-root": "#1f5fbf", "arrow-crossing": "#8a2be2", "arrow-wrong-label": "#e08000",
               "arrow-wrong-head": "#d62020", "arrow-added": "#119a3a", "arrow-removed": "#d62020",
               "arrow-gold": "#999"}
    marks = "".join(f'<marker id="{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
                    f'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
                    for k, c in colours.items())
    return f"<defs>{marks}</defs>"


PAGE_CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.05em; margin: 1.2em 0 0.2em; }
h2 small { font-weight: normal; color: #777; margin-left: 1em; }
p.text { margin: 0.2em 0 0.4em; color: #333; }
p.problem { margin: 0.2em 0 0.4em; color: #b00020; font-weight: 600; }
div.scroll { overflow-x: auto; }
section { border-top: 1px solid #ddd; }
.action { background: #ffe066; border-radius: 4px; padding: 1px 6px; font-family: monospace; font-size: 1.05em; }
.panel h2 .arcs { font-weight: normal; color: #555; }
"""


def html_page(title: str, body: str) -> str:
    """An HTML5 page carrying its style sheets; nothing is loaded from elsewhere."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
            f"<title>{esc(title)}</title><style>{PAGE_CSS}{CSS}</style></head>\n"
            f"<body><h1>{esc(title)}</h1>\n{body}\n</body></html>\n")
