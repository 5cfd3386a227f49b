"""``tsdsl draw``: the trees of a CoNLL-U file as one HTML page or one SVG file.

Each sentence becomes a :class:`~.arcs.Diagram` with an artificial ``ROOT`` at position 0 (as
the evaluation counts crossing arcs) and one arc per attached word.  Arcs that cross another
are dashed; with a gold file, a word whose head is wrong gets a red arc (and its gold arc,
dotted, under the words), one whose head is right but label wrong an orange arc.

With ``--deps`` (:func:`draw_graph`) a sentence is drawn from its DEPS column instead: one arc
per ``head:label`` item (a word may have several heads), empty nodes (``8.1``) as tokens of
their own after the word they follow, greyed and italic.  Against gold, arcs are compared as
sets of (head, dependent, label) over the IDs as written (empty nodes not collapsed): an arc
not in gold is red, one whose head and dependent are in gold with another label orange, and a
gold arc missing from the file is drawn dotted under the words.

A sentence in a right-to-left script (Hebrew, Arabic ...: :func:`~.svg.right_to_left`) is laid
out right to left, ``ROOT`` on the right and the first word next to it, as displaCy does with
``direction: rtl``; ``direction`` ("ltr", "rtl") overrides the guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..errors import UsageError
from ..treebank.conllu import Sentence
from ..treebank.enhanced import enhanced_arcs
from ..treebank.evaluate import check_aligned
from ..treebank.trees import cycle_word
from .arcs import Arc, Diagram, Token, crossing_pairs
from .svg import esc, fmt, html_page, right_to_left, svg_document, text_width

LEGEND = (("root", "root arc"), ("crossing", "crossing (non-projective) arc"), ("wrong-head", "wrong head"),
          ("gold", "its gold arc (under the words)"), ("wrong-label", "right head, wrong label"))
GRAPH_LEGEND = (("root", "root arc"), ("crossing", "crossing arc"), ("wrong-head", "arc not in gold"),
                ("gold", "gold arc missing (under the words)"), ("wrong-label", "gold arc, another label"))


@dataclass(frozen=True)
class Drawn:
    """One sentence drawn: its heading, the SVG body, its size and what was counted."""

    number: int
    heading: str
    text: Optional[str]
    body: str
    width: float
    height: float
    arcs: int
    crossing: int
    wrong_heads: int
    wrong_labels: int
    missing: int = 0  # --deps: gold arcs the file lacks
    graph: bool = False  # drawn from DEPS (--deps)
    rtl: bool = False  # laid out right to left
    problems: tuple[str, ...] = ()  # why the tree is not a tree (a parser's broken output is drawn as it is)


def counted(n: int, noun: str) -> str:
    """``counted(1, "wrong head")`` is ``"1 wrong head"``, ``counted(2, ...)`` ``"2 wrong heads"``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def summary(drawn: Sequence[Drawn], *, with_gold: bool) -> str:
    """What was drawn, in words: ``"2 sentences, 13 arcs, 3 crossing"`` (and the errors against gold)."""
    text = (f"{counted(len(drawn), 'sentence')}, {counted(sum(d.arcs for d in drawn), 'arc')}, "
            f"{sum(d.crossing for d in drawn)} crossing")
    if with_gold and any(d.graph for d in drawn):
        text += (f", {sum(d.wrong_heads for d in drawn)} not in gold, "
                 f"{counted(sum(d.wrong_labels for d in drawn), 'wrong label')}, "
                 f"{sum(d.missing for d in drawn)} missing")
    elif with_gold:
        text += (f", {counted(sum(d.wrong_heads for d in drawn), 'wrong head')}, "
                 f"{counted(sum(d.wrong_labels for d in drawn), 'wrong label')}")
    broken = sum(1 for d in drawn if d.problems)
    if broken:
        text += f", {broken} not {'a tree' if broken == 1 else 'trees'}"
    return text


def parse_ranges(text: str) -> list[tuple[int, Optional[int]]]:
    """``"1-10,15,20-"`` to ``[(1, 10), (15, 15), (20, None)]`` (1-based, inclusive).

    Raises:
        UsageError: not a list of N, N-M or N- with 1 <= N <= M.
    """
    out: list[tuple[int, Optional[int]]] = []
    for part in text.replace(" ", "").split(","):
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = (int(hi) if hi else None) if sep else a
        except ValueError:
            raise UsageError(f"--sentences: expected ranges such as 1-10,15,20-, got {text!r}") from None
        if a < 1 or (b is not None and b < a):
            raise UsageError(f"--sentences: {part!r} is not a range of sentence numbers (1-based, N-M with N <= M)")
        out.append((a, b))
    return out


def select(count: int, ranges: Optional[Sequence[tuple[int, Optional[int]]]]) -> list[int]:
    """The 0-based indices ``ranges`` pick out of ``count`` sentences, in file order."""
    if not ranges:
        return list(range(count))
    return [k for k in range(count) if any(a <= k + 1 <= (b if b is not None else count) for a, b in ranges)]


def draw_sentence(sentence: Sentence, number: int, gold: Optional[Sentence] = None, direction: str = "auto") -> Drawn:
    """The diagram of one sentence, compared with ``gold`` when given, laid out in
    ``direction`` (see the module docstring).

    Raises:
        UsageError: ``gold`` has another number of words (naming both files and lines).
    """
    if gold is not None and gold.n != sentence.n:
        raise UsageError(f"{sentence.file}:{sentence.line}: sentence {number} has {sentence.n} words, but "
                         f"{gold.file}:{gold.line} has {gold.n}")
    tokens = [Token("ROOT", css="rootword")]
    tokens += [Token(w.form, w.upos if w.upos != "_" else "", str(k + 1)) for k, w in enumerate(sentence.words)]
    heads, labels, forms = sentence.heads, sentence.deprels, sentence.forms
    name = lambda h: "ROOT" if h == 0 else f"{forms[h - 1]} ({h})"
    plain: list[Arc] = []
    for d, (h, lab) in enumerate(zip(heads, labels), start=1):
        if h is not None and 0 <= h <= sentence.n:
            plain.append(Arc(h, d, None if lab == "_" else lab))
    crossing = crossing_pairs(plain)
    arcs: list[Arc] = []
    below: list[Arc] = []
    wrong_heads = wrong_labels = 0
    for i, a in enumerate(plain):
        css = []
        title = f"{name(a.head)} → {name(a.dep)}" + (f" ({a.label})" if a.label else "")
        if a.head == 0:
            css.append("root")
        if i in crossing:
            css.append("crossing")
            title += "; crosses another arc"
        if gold is not None:
            gh, gl = gold.heads[a.dep - 1], gold.deprels[a.dep - 1]
            if gh != a.head:
                css.append("wrong-head")
                wrong_heads += 1
                title += f"; wrong head: gold is {name(gh) if gh is not None else 'none'}" + (f" ({gl})" if gl != "_" else "")
                if gh is not None:
                    below.append(Arc(gh, a.dep, None if gl == "_" else gl, ("gold-head",),
                                     f"gold: {name(gh)} → {name(a.dep)} ({gl})"))
            elif gl != (a.label or "_"):
                css.append("wrong-label")
                wrong_labels += 1
                title += f"; wrong label: gold is {gl}"
        arcs.append(Arc(a.head, a.dep, a.label, tuple(css), title))
    rtl = right_to_left(forms, direction)
    body, width, height = Diagram(tokens, arcs, below, rtl=rtl).render()
    heading = f"{number}" + (f" · {sentence.sent_id}" if sentence.sent_id else "")
    return Drawn(number, heading, sentence.text, body, width, height, len(arcs), len(crossing), wrong_heads,
                 wrong_labels, problems=not_a_tree(heads), rtl=rtl)


def not_a_tree(heads: Sequence[Optional[int]]) -> tuple[str, ...]:
    """Why the heads (HEAD ``_`` is None) do not make a tree, in words; () for a tree. A
    sentence with several words on the root counts as a tree here, as ``draw`` reads it."""
    n = len(heads)
    out = []
    outside = [(d, h) for d, h in enumerate(heads, 1) if h is not None and not 0 <= h <= n]
    out += [f"word {d}'s head {h} is outside the sentence (not drawn)" for d, h in outside[:3]]
    if len(outside) > 3:
        out.append(f"{len(outside) - 3} more heads outside the sentence")
    loops = [d for d, h in enumerate(heads, 1) if h == d]
    out += [f"word {d} is its own head" for d in loops[:3]]
    kept = [h if h is not None and 0 <= h <= n and h != d else None for d, h in enumerate(heads, 1)]
    cycle = cycle_word(kept)
    if cycle is not None:
        out.append(f"a cycle through word {cycle}")
    if heads and not any(h == 0 for h in heads):
        out.append("no word is attached to the root")
    return tuple(out)


def _id_key(node: str) -> tuple[int, int]:
    """Display order of a node ID: ``0`` (ROOT), ``0.1``, ``1``, ``1.1``, ``1.2``, ``2`` ..."""
    whole, _, sub = node.partition(".")
    return int(whole), int(sub or 0)


def _checked_arcs(sentence: Sentence, number: int):
    """:func:`~tsdsl.treebank.enhanced.enhanced_arcs` of a sentence that has DEPS.

    Raises:
        UsageError: DEPS is ``_`` on every word (naming the file and the sentence's line).
    """
    if all(w.deps == "_" for w in sentence.words):
        raise UsageError(f"{sentence.file}:{sentence.line}: sentence {number} has no enhanced dependencies "
                         f"(DEPS is _ on every word), so --deps has nothing to draw; draw without --deps "
                         f"for its tree")
    return enhanced_arcs(sentence)


def draw_graph(sentence: Sentence, number: int, gold: Optional[Sentence] = None, direction: str = "auto") -> Drawn:
    """The enhanced graph (DEPS) of one sentence, compared with ``gold``'s when given, laid out
    in ``direction`` (see the module docstring).

    Raises:
        UsageError: the sentence (or its gold) has no DEPS, or ``gold`` has another number of words.
        ConlluError: malformed DEPS.
    """
    if gold is not None and gold.n != sentence.n:
        raise UsageError(f"{sentence.file}:{sentence.line}: sentence {number} has {sentence.n} words, but "
                         f"{gold.file}:{gold.line} has {gold.n}")
    empties, triples = _checked_arcs(sentence, number)
    gold_empties, gold_triples = _checked_arcs(gold, number) if gold is not None else ([], [])
    forms = {str(k + 1): w.form for k, w in enumerate(sentence.words)}
    empty_forms = {e.id: e.form for e in gold_empties}
    empty_forms.update({e.id: e.form for e in empties})
    ids = ["0"] + sorted(list(forms) + list(empty_forms), key=_id_key)
    where = {node: k for k, node in enumerate(ids)}
    tokens = [Token("ROOT", css="rootword")]
    for node in ids[1:]:
        if node in forms:
            w = sentence.words[int(node) - 1]
            tokens.append(Token(w.form, w.upos if w.upos != "_" else "", node))
        else:
            form = empty_forms[node]
            tokens.append(Token(form if form != "_" else "\u2205", "", node, css="word empty-node"))

    def name(node: str) -> str:
        if node == "0":
            return "ROOT"
        form = forms.get(node) or empty_forms.get(node, "_")
        return f"{form} ({node})" + (" (empty node)" if node not in forms else "")

    seen: set[tuple[str, str, str]] = set()
    unique = [t for t in triples if not (t in seen or seen.add(t))]
    plain = [Arc(where[h], where[d], lab) for h, d, lab in unique]
    crossing = crossing_pairs(plain)
    gold_set = set(gold_triples)
    gold_pairs: dict[tuple[str, str], list[str]] = {}
    for h, d, lab in gold_triples:
        gold_pairs.setdefault((h, d), []).append(lab)
    arcs: list[Arc] = []
    wrong = wrong_labels = 0
    for i, (h, d, lab) in enumerate(unique):
        css = []
        title = f"{name(h)} → {name(d)} ({lab})"
        if h == "0":
            css.append("root")
        if i in crossing:
            css.append("crossing")
            title += "; crosses another arc"
        if gold is not None and (h, d, lab) not in gold_set:
            if (h, d) in gold_pairs:
                css.append("wrong-label")
                wrong_labels += 1
                title += f"; wrong label: gold is {', '.join(gold_pairs[(h, d)])}"
            else:
                css.append("wrong-head")
                wrong += 1
                title += "; not in gold"
        arcs.append(Arc(where[h], where[d], lab, tuple(css), title))
    below: list[Arc] = []
    if gold is not None:
        pairs = {(h, d) for h, d, _ in unique}
        done: set[tuple[str, str, str]] = set()
        for h, d, lab in gold_triples:
            if (h, d, lab) in seen or (h, d) in pairs or (h, d, lab) in done:
                continue  # drawn above (a wrong label is shown on the file's arc)
            done.add((h, d, lab))
            below.append(Arc(where[h], where[d], lab, ("gold-head",), f"gold, missing: {name(h)} → {name(d)} ({lab})"))
    rtl = right_to_left([t.word for t in tokens[1:]], direction)
    body, width, height = Diagram(tokens, arcs, below, rtl=rtl).render()
    heading = f"{number}" + (f" · {sentence.sent_id}" if sentence.sent_id else "")
    return Drawn(number, heading, sentence.text, body, width, height, len(arcs), len(crossing), wrong,
                 wrong_labels, missing=len(below), graph=True, rtl=rtl)


def draw_sentences(sentences: Sequence[Sentence], gold: Optional[Sequence[Sentence]] = None,
                   ranges: Optional[Sequence[tuple[int, Optional[int]]]] = None,
                   limit: Optional[int] = None, *, deps: bool = False,
                   direction: str = "auto") -> tuple[list[Drawn], int]:
    """Draw the selected sentences (at most ``limit``); also returns how many were selected.
    ``deps`` draws their enhanced graphs (:func:`draw_graph`) instead of their trees;
    ``direction`` lays each out ("auto": by its script; "ltr", "rtl").

    Raises:
        MismatchError: ``gold`` does not hold the same sentences with the same words, checked
            as ``tsdsl eval`` checks them (every sentence, not only the ones drawn).
    """
    if gold is not None:
        check_aligned(gold, sentences, gold_name=gold[0].file if gold else "the gold file",
                      pred_name=sentences[0].file if sentences else "the file")
    chosen = select(len(sentences), ranges)
    shown = chosen if limit is None else chosen[:limit]
    draw = draw_graph if deps else draw_sentence
    return [draw(sentences[k], k + 1, gold[k] if gold is not None else None, direction) for k in shown], len(chosen)


def _legend_svg(with_gold: bool, graph: bool = False) -> tuple[str, float]:
    """The legend as one row of SVG: a short arc sample and its meaning per entry."""
    entries = [(c, t) for c, t in (GRAPH_LEGEND if graph else LEGEND) if with_gold or c not in ("wrong-head", "gold", "wrong-label")]
    parts, x = [], 8.0
    for css, label in entries:
        marker = "arrow-" + css
        shape = f"M{fmt(x)},8 V18 H{fmt(x + 22)} V8" if css == "gold" else f"M{fmt(x)},18 V8 H{fmt(x + 22)} V18"
        kind = "gold" if css == "gold" else f"arc {css}"
        parts.append(f'<g class="legend-{css} {kind}"><path d="{shape}" marker-end="url(#{marker})"/></g>')
        parts.append(f'<text x="{fmt(x + 30)}" y="17">{esc(label)}</text>')
        x += 40 + text_width(label, 12.0)
    if graph:
        parts.append(f'<text class="empty-node" x="{fmt(x)}" y="17">8.1</text>')
        parts.append(f'<text x="{fmt(x + 30)}" y="17">empty node</text>')
        x += 40 + text_width("empty node", 12.0)
    return f'<g class="legend">{"".join(parts)}</g>', x


BOLD_WIDTH = 1.15
"""How much wider the bold caption font runs than :func:`~.svg.text_width`'s estimate for
regular text (DejaVu Sans Bold against DejaVu Sans; trial 31 found long captions cut off)."""


def render_svg(drawn: Sequence[Drawn], *, with_gold: bool) -> str:
    """One standalone SVG: the legend, then every sentence under a caption, stacked."""
    legend, width = _legend_svg(with_gold, any(d.graph for d in drawn))
    parts, y = [legend], 34.0
    for d in drawn:
        caption = d.heading + (f": {d.text}" if d.text else "") + (
            f" [not a tree: {'; '.join(d.problems)}]" if d.problems else "")
        parts.append(f'<text class="caption" x="8" y="{fmt(y + 14)}">{esc(caption)}</text>')
        parts.append(f'<g class="sentence" data-sentence="{d.number}" transform="translate(0,{fmt(y + 20)})">'
                     f"{d.body}</g>")
        y += 20 + d.height + 16
        width = max(width, d.width, text_width(caption, 13.0 * BOLD_WIDTH) + 16)
    return svg_document("".join(parts), width, y, standalone=True) + "\n"


def render_html(drawn: Sequence[Drawn], *, title: str, with_gold: bool, note: str = "") -> str:
    """One self-contained HTML page: style sheet inline, one inline SVG per sentence."""
    legend, lw = _legend_svg(with_gold, any(d.graph for d in drawn))
    sections = []
    for d in drawn:
        stats = summary([d], with_gold=with_gold).split(", ", 1)[1]
        text = f'<p class="text" dir="{"rtl" if d.rtl else "ltr"}">{esc(d.text)}</p>' if d.text else ""
        if d.problems:
            text += f'<p class="problem">not a tree: {esc("; ".join(d.problems))}</p>'
        sections.append(f'<section id="s{d.number}"><h2>{esc(d.heading)} <small>{esc(stats)}</small></h2>{text}'
                        f'<div class="scroll">{svg_document(d.body, d.width, d.height, markers=False)}</div>'
                        f"</section>")
    return html_page(title, svg_document(legend, lw, 26) + (f"<p>{esc(note)}</p>" if note else "")
                     + "\n".join(sections))


__all__ = ["Drawn", "counted", "summary", "draw_graph", "draw_sentence", "draw_sentences", "parse_ranges", "render_html", "render_svg"]
