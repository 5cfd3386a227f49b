"""Commands that draw: draw (trees of a CoNLL-U file as HTML or SVG).  ``trace --html``
lives with ``trace`` in :mod:`.specs`."""

from __future__ import annotations

import sys

from ..errors import UsageError
from .base import Command, at_least

DEFAULT_LIMIT = 100


class Draw(Command):
    name = "draw"
    help = "draw the trees of a CoNLL-U file (wrong heads and labels marked against a gold file) as HTML or SVG"

    def configure(self, sp) -> None:
        sp.add_argument("file", metavar="FILE.conllu", help="the trees to draw (a parser's output, say)")
        sp.add_argument("gold", metavar="GOLD.conllu", nargs="?", default=None,
                        help="gold trees of the same sentences and words (checked as tsdsl eval checks them): mark "
                             "wrong heads and labels (default: none)")
        sp.add_argument("-o", "--output", metavar="OUT.html|OUT.svg", required=True,
                        help="the picture to write: one HTML page, or one SVG with the sentences stacked "
                             "(chosen by the suffix)")
        sp.add_argument("--sentences", metavar="RANGES", default=None,
                        help="which sentences, 1-based, e.g. 1-10,15,20- (default: all, up to --limit)")
        sp.add_argument("--limit", type=at_least(0), metavar="N", default=DEFAULT_LIMIT,
                        help=f"draw at most N of the chosen sentences; 0 for no limit (default {DEFAULT_LIMIT})")
        sp.add_argument("--title", default=None, help="the page title (default: the file names)")
        sp.add_argument("--deps", action="store_true",
                        help="draw each sentence's enhanced graph from the DEPS column instead of its tree: every "
                             "head:label pair is an arc, empty nodes (8.1) are drawn in grey italics after their "
                             "word; against GOLD.conllu, arcs are compared as (head, dependent, label) sets. "
                             "A sentence whose DEPS is _ on every word is an error")
        sp.add_argument("--direction", choices=("auto", "ltr", "rtl"), default="auto",
                        help="lay each sentence out left to right or right to left (ROOT on the right, as Hebrew "
                             "and Arabic read); auto (default): right to left when most of its letters are of a "
                             "right-to-left script")

    def run(self, args) -> int:
        from ..draw import draw_sentences, parse_ranges, render_html, render_svg
        from ..draw.pages import summary
        from ..files import check_not_input, check_output, write_atomic
        from ..treebank.conllu import read_conllu

        check_not_input(args.output, *(p for p in (args.file, args.gold) if p is not None))
        kind = check_output(args.output).suffix.lower()  # refuses "pred.svg/" too, which Path reads as pred.svg
        if kind not in (".html", ".htm", ".svg"):
            raise UsageError(f"-o {args.output}: the output must end in .html or .svg")
        ranges = parse_ranges(args.sentences) if args.sentences else None
        # a parser's broken output (a cycle, a head out of range) is drawn as it is, and said to be
        # broken: that is when a picture helps most; the gold trees must be trees
        sentences = read_conllu(args.file, require_heads=False, allow_multiple_roots=True, check_trees=False)
        gold = read_conllu(args.gold, allow_multiple_roots=True) if args.gold else None
        drawn, chosen = draw_sentences(sentences, gold, ranges, args.limit or None, deps=args.deps,
                                       direction=args.direction)
        for d in drawn:
            if d.problems:
                s = sentences[d.number - 1]
                print(f"{args.file}:{s.line}: sentence {d.number} is not a tree ({'; '.join(d.problems)}): "
                      "drawn as it is", file=sys.stderr)
        if not drawn:
            raise UsageError(f"{args.file}: no sentence to draw ({len(sentences)} in the file"
                             + (f", none in --sentences {args.sentences})" if ranges else ")"))
        note = ""
        if len(drawn) < chosen:
            note = f"drew the first {len(drawn)} of {chosen} sentences (--limit {args.limit}; --limit 0 for all)"
            print(f"tsdsl: {note}", file=sys.stderr)
        with_gold = gold is not None
        if kind == ".svg":
            text = render_svg(drawn, with_gold=with_gold)
        else:
            title = args.title or (f"{args.file} against {args.gold}" if args.gold else args.file)
            text = render_html(drawn, title=title, with_gold=with_gold, note=note)
        write_atomic(args.output, text)
        print(f"{args.output}: {summary(drawn, with_gold=with_gold)}")
        return 0
