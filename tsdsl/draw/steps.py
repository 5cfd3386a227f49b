"""``tsdsl trace --html``: a derivation as one panel per step.

Each panel shows the configuration *before* the step's action, as the text table does: every
list of the spec (names and contents come from the recorded steps, so any spec's lists are
drawn, not a fixed stack and buffer) as a row of boxes, then the words with the arcs built so
far; the action is highlighted, the arcs it adds are drawn in green and those it removes
(``overwrite``, ``break_cycle``) in dashed red.
"""

from __future__ import annotations

from typing import Optional, Sequence

from .arcs import Arc, Diagram, Token
from .svg import esc, fmt, html_page, svg_document, text_width

BOX_SIZE = 13.0
ROW = 26.0


def _token_order(n: int, root: Optional[int]) -> list[int]:
    ids = list(range(1, n + 1))
    if root is not None:
        ids = [root] + ids if root == 0 else ids + [root]
    return ids


def _lists_svg(step, list_names: Sequence[str]) -> tuple[str, float, float]:
    """The lists as rows of boxes: name, then one box per token, in list order."""
    name_w = max((text_width(n, BOX_SIZE) for n in list_names), default=0.0) + 20.0
    parts, width = [], 0.0
    for row, (name, shown) in enumerate(zip(list_names, step.lists)):
        y = 4.0 + row * ROW
        parts.append(f'<text class="listname" x="8" y="{fmt(y + 16)}">{esc(name)}</text>')
        x = name_w
        if not shown:
            parts.append(f'<text class="empty" x="{fmt(x)}" y="{fmt(y + 16)}">(empty)</text>')
            x += 60.0
        for k, tok in enumerate(shown):
            w = text_width(tok, BOX_SIZE) + 14.0
            ident = step.tokens[row][k] if step.tokens and row < len(step.tokens) else ""
            parts.append(f'<g class="box" data-token="{ident}"><rect x="{fmt(x)}" y="{fmt(y)}" width="{fmt(w)}" '
                         f'height="22" rx="3"/><text x="{fmt(x + w / 2)}" y="{fmt(y + 16)}" text-anchor="middle">'
                         f"{esc(tok)}</text></g>")
            x += w + 4.0
        width = max(width, x)
    return "".join(parts), width + 8.0, 8.0 + len(list_names) * ROW


def _diagram(step, words: Sequence[str], root: Optional[int]) -> tuple[str, float, float]:
    order = _token_order(len(words), root)
    where = {t: k for k, t in enumerate(order)}
    tokens = [Token("root", css="rootword") if t == root else Token(words[t - 1], index=str(t)) for t in order]
    name = lambda t: "root" if t == root else f"{words[t - 1]} ({t})" if 1 <= t <= len(words) else str(t)
    removed = set(step.removed_arcs)
    arcs = []
    for h, d, lab in list(step.arcs) + list(step.added_arcs):
        if h not in where or d not in where:
            continue
        added = (h, d, lab) in step.added_arcs
        css = ("added",) if added else ("removed",) if (h, d, lab) in removed else ()
        css += ("root",) if h == root else ()
        what = " (added by this step)" if added else " (removed by this step)" if "removed" in css else ""
        arcs.append(Arc(where[h], where[d], lab, css, f"{name(h)} → {name(d)}" + (f" ({lab})" if lab else "") + what))
    return Diagram(tokens, arcs).render()


def render_trace_html(steps: Sequence, list_names: Sequence[str], words: Sequence[str], root: Optional[int], *,
                      title: str, terminal: bool = False, footer: str = "") -> str:
    """The page: one panel per recorded step (see the module docstring)."""
    panels = []
    for k, step in enumerate(steps):
        action = step.action or ("(terminal)" if terminal and k == len(steps) - 1 else "(end)")
        lists, lw, lh = _lists_svg(step, list_names)
        body, dw, dh = _diagram(step, words, root)
        svg = svg_document(lists + f'<g transform="translate(0,{fmt(lh + 6)})">{body}</g>', max(lw, dw),
                           lh + 6 + dh, markers=k == 0)
        added = ", ".join(step.added) + "".join(f" (removed {r})" for r in step.removed)
        costs = ""
        if step.costs is not None:
            costs = '<p class="costs">costs: ' + esc(" ".join(f"{a}={v}" for a, v in step.costs.items())) + "</p>"
        panels.append(f'<section class="panel" id="step{step.index}"><h2>step {step.index} '
                      f'<span class="action">{esc(action)}</span> '
                      f'<span class="arcs">{esc(added)}</span></h2>{costs}'
                      f'<div class="scroll">{svg}</div></section>')
    foot = f"<p>{esc(footer)}</p>" if footer else ""
    return html_page(title, "\n".join(panels) + foot)
