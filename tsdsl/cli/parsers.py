"""Commands that train, run and score parsers: train, parse, eval."""

from __future__ import annotations

import sys

from ..errors import UsageError
from ..kernels.arguments import MAX_BEAM
from .base import Command, at_least, number_in, parse_overrides, plural, spec_argument, with_set


class Train(Command):
    name = "train"
    help = "train a parser for a spec on a CoNLL-U treebank (a multihead spec: on its enhanced dependencies, DEPS)"

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("--train", required=True, metavar="FILE.conllu",
                        help="the training treebank (multihead specs, such as dag, train on its DEPS column: the "
                             "enhanced graphs, empty nodes collapsed; words with DEPS _ in a sentence that has "
                             "DEPS are refused)")
        sp.add_argument("--dev", metavar="FILE.conllu", help="development set: scored after every epoch; the best "
                                                             "epoch is kept (default: none, the last epoch is kept)")
        sp.add_argument("--out", required=True, metavar="DIR", help="model directory to write (written whole, "
                                                                     "then renamed into place)")
        sp.add_argument("--force", action="store_true", help="replace the model already at --out")
        sp.add_argument("--epochs", type=at_least(1), default=None,
                        help="epochs at most (default: 30 with --dev, where --patience stops training earlier; "
                             "15 without)")
        sp.add_argument("--patience", type=at_least(1), default=5, metavar="P",
                        help="with --dev: stop after P epochs without a better dev LAS (default 5)")
        sp.add_argument("--oracle", choices=("auto", "dynamic", "static", "search"), default="auto",
                        help="how training follows the gold trees: a declared oracle, dynamic (with exploration) "
                             "or static, or the oracle by search (search: an action is free when the gold tree is "
                             "still derivable after it; see --search-follow). A single-head spec without an oracle "
                             "block gets the oracle `tsdsl derive-oracle` derives from it, checked against the exact "
                             "loss (cached; not with search). auto (default): the declared oracle, or the derived "
                             "one when the check finds it exact, if following it reproduces 98%% of the training "
                             "trees (dynamic when its loss is exact or an upper bound, static when a lower bound), "
                             "else search; dynamic and static also take a derived lower bound")
        sp.add_argument("--search-budget", type=at_least(1), default=None, metavar="N",
                        help="static oracle by search: configurations expanded per tree before it is skipped "
                             "(default 100000)")
        sp.add_argument("--search-follow", choices=("canonical", "model"), default="canonical",
                        help="oracle by search: follow the one canonical derivation (canonical, default: at each "
                             "step the first free action, arcs first, input last), or the model's best-scoring free "
                             "action, so that the parser learns its own order (model; docs/learning.md in the source "
                             "repository says when it helps)")
        sp.add_argument("--force-oracle", action="store_true",
                        help="train with the declared oracle even if it reproduces too few training trees")
        sp.add_argument("--explore", type=number_in(0.0, 1.0), default=1.0, metavar="P",
                        help="dynamic oracle: follow the model's prediction with probability P (default 1.0)")
        sp.add_argument("--explore-after", type=at_least(0), default=1, metavar="K",
                        help="dynamic oracle: explore from epoch K+1 on (default 1)")
        sp.add_argument("--skip-detours", action="store_true",
                        help="dynamic oracle: count as a mistake a zero-cost step that another zero-cost step makes "
                             "redundant (Covington's NO-ARC once the focus word has no gold arc left in λ1): "
                             "models that take fewer steps and parse faster, at some accuracy (docs/learning.md "
                             "in the source repository gives the figures)")
        sp.add_argument("--beam", type=at_least(1, maximum=MAX_BEAM), default=1,
                        help=f"beam width, at most {MAX_BEAM} (1: greedy; >1: structured perceptron with early "
                             "update; default 1). Published beam parsers use 8 to 64, and the time per sentence "
                             "grows faster than the width")
        sp.add_argument("--features", metavar="FILE.yaml", help="feature templates (default: the family's set, "
                                                                "described in docs/features.md in the source repository)")
        sp.add_argument("--seed", type=at_least(0), default=1, help="random seed: everything random in training draws from it (default 1)")
        sp.add_argument("--nonproj", choices=("lift", "skip"), default=None,
                        help="projective systems on non-projective trees: pseudo-projective lifting (default) "
                             "or skip the sentence (refused for multihead specs, which train on graphs)")
        sp.add_argument("--hash-bits", type=at_least(12, maximum=26), default=19, metavar="N",
                        help="feature hash table of 2**N rows, N from 12 to 26 (default 19)")
        sp.add_argument("--precision", choices=("float32", "float16", "int16", "int8"), default="float16",
                        help="how the saved weights are stored (default float16; int16/int8: per-output scale)")
        sp.add_argument("--prune", type=number_in(0.0), default=0.0, metavar="T",
                        help="leave out saved weights with |w| < T (default 0: keep every non-zero weight). "
                             "The summary gives the share kept; below 10%% a warning, and none kept is an error "
                             "(nothing saved). The scale depends on the treebank (on en_gum the largest weights are a few "
                             "units, and 5 keeps 0.3%%)")
        sp.add_argument("--loss", help="which declared oracle loss to train with: ORACLE, ORACLE/LOSS, or a loss "
                                       "of the first oracle (default: over the declared oracles in order, the first "
                                       "exact loss; else an upper bound, the last one of the first oracle that "
                                       "declares one; else the first loss)")
        sp.add_argument("--no-repair", action="store_true",
                        help="train a spec with dead ends as written (default: its verified guard repair, "
                             "as `tsdsl verify --repair` finds it)")
        sp.add_argument("--repair-max-n", type=at_least(1), default=7, metavar="N",
                        help="the repair trained instead of a dead-ending spec is verified exhaustively up to "
                             "N words (default 7)")
        sp.add_argument("--no-tagger", action="store_true",
                        help="do not train the tagger (UPOS, XPOS, FEATS, lemmas) that `tsdsl parse` uses to fill "
                             "in missing tags; such a model refuses input whose UPOS is _ on any word")
        sp.add_argument("--parser-tags", choices=("mixed", "jackknife", "gold"), default=None,
                        help="the tags the parser trains with: mixed (default: the file's tags, with 30%% of "
                             "the sentences jackknifed: tagged by taggers trained on the other folds of the training "
                             "set, as the parser will see text), jackknife (every sentence; best with predicted tags, "
                             "worse with gold ones) or gold (the file's); --no-tagger implies gold (and refuses "
                             "mixed or jackknife); a training file without tags trains with gold (with a warning "
                             "when another was chosen)")
        sp.add_argument("--quiet", action="store_true", help="no progress bar")
        with_set(sp)

    def run(self, args) -> int:
        from ..learn.train import TrainOptions, train

        options = TrainOptions(epochs=args.epochs, patience=args.patience, oracle=args.oracle, explore=args.explore,
                               explore_after=args.explore_after, beam=args.beam, features=args.features,
                               seed=args.seed, nonproj=args.nonproj or "lift", nonproj_given=args.nonproj is not None,
                               hash_bits=args.hash_bits, loss=args.loss,
                               overrides=parse_overrides(args.set), force_oracle=args.force_oracle,
                               repair=not args.no_repair, repair_max_n=args.repair_max_n,
                               precision=args.precision, prune=args.prune, force=args.force,
                               tagger=not args.no_tagger, parser_tags=args.parser_tags or "mixed",
                               parser_tags_given=args.parser_tags is not None, search_follow=args.search_follow,
                               skip_detours=args.skip_detours)
        if args.search_budget is not None:
            options.search_budget = args.search_budget
        result = train(args.spec, args.train, args.dev, args.out, options,
                       progress=None if args.quiet else sys.stderr)
        best = result.history[result.best_epoch - 1] if result.history else {}
        line = f"{result.model_dir}: best epoch {result.best_epoch} of {len(result.history)}"
        if "dev_elas" in best:
            line += f", dev ELAS {100 * best['dev_elas']:.2f} EULAS {100 * best['dev_eulas']:.2f}"
        elif "dev_las" in best:
            line += f", dev UAS {100 * best['dev_uas']:.2f} LAS {100 * best['dev_las']:.2f}"
        if best and result.dev_tags_predicted:  # the dev file's tags were replaced by the tagger's
            line += " (predicted tags)"
        line += f"; trained in {result.seconds:.1f} s on {plural(result.sentences, 'sentence')}"
        if result.repaired:
            line += " (the spec has dead ends: its verified guard repair was trained, and is saved in the model)"
        elif result.repair_note and args.quiet:
            print(result.repair_note, file=sys.stderr)
        if result.skipped:
            line += f" ({result.skipped} non-projective skipped)"
        line += not_derived_note(result)
        if result.lifted:
            line += f" ({plural(result.lifted, 'arc')} lifted)"
        if result.pruned:
            p = result.pruned
            line += f"; --prune {p['prune']:g} kept {p['stored']:,} of {p['nonzero']:,} weights ({100 * p['share']:.2f}%)"
        print(line)
        if result.tagger:
            acc = result.tagger.get("dev_accuracy") or {}
            if result.dev:
                print("tagger: dev accuracy " + ", ".join(f"{k.upper()} {100 * v:.2f}" for k, v in acc.items()
                                                          if v is not None))
            else:
                print("tagger: " + ", ".join(k.upper() for k in result.tagger.get("columns", ())) + " (no dev set)")
        return 0


def not_derived_note(result) -> str:
    """The training summary's note on the trees (graphs) the search found no derivation for:
    how many, and how many of them only because the search gave up (``--search-budget``)."""
    n = result.not_derived
    if not n:
        return ""
    note = f" ({n} {'graph' if result.graphs else 'tree'}{'' if n == 1 else 's'} without a derivation skipped"
    if result.over_budget:
        note += ("," if n == 1 else f", {result.over_budget} of them") + " over the search budget (--search-budget)"
    return note + ")"


def beam_mismatch(width: int, trained: int) -> str:
    """The warning of `tsdsl parse --beam WIDTH` on a model trained with beam TRAINED (they differ)."""
    said = (f"parsed with beam {width}, but the model was trained with "
            f"{'greedy search (beam 1)' if trained == 1 else f'beam {trained}'}: ")
    if trained == 1:
        return said + ("its scores rank the next action, not partial parses against each other, and a beam "
                       "usually makes it much worse (a user's en_lines arc-standard model: LAS 82.5 greedy, "
                       "75.2 at beam 2, 62.5 at beam 16; docs/learning.md in the source repository); "
                       "leave out --beam to parse greedily")
    return said + ("a model usually parses best at its trained width (a user's en_lines arc-standard beam-8 "
                   "model: LAS 79.4 at beam 8, 74.2 greedy; docs/learning.md in the source repository); "
                   f"leave out --beam to parse with beam {trained}")


def untagged_text(name: str) -> str:
    """Why `tsdsl parse --text` refuses a model without a tagger: plain text has no tags, and
    the model needs UPOS (the CoNLL-U wording, ``UPOS is empty (_ for every word)``, named
    columns a text file does not have)."""
    return (f"{name}: plain text has no tags, and this model has no tagger to predict the UPOS its features "
            "read (it was trained with --no-tagger, or on a file without tags): retrain it with its tagger "
            "(the default of `tsdsl train`), or parse tagged CoNLL-U instead")


class Parse(Command):
    name = "parse"
    help = ("parse a CoNLL-U file (HEAD and DEPREL change; missing tags are predicted; multihead models "
            "also write DEPS) or plain text with a trained model")

    def configure(self, sp) -> None:
        sp.add_argument("model", metavar="DIR", help="a model directory written by tsdsl train")
        sp.add_argument("input", metavar="IN.conllu", nargs="?", default=None, help="default: standard input")
        sp.add_argument("--text", metavar="FILE", help="read plain text instead, one sentence per line "
                                                       "('-': standard input), tokenised by one rule for every "
                                                       "language: split at whitespace, punctuation cut off words "
                                                       "(kept inside well-known, o'clock, 3.5, 1,000, U.S.), "
                                                       "English clitics split off (do n't, John 's); writes CoNLL-U with # sent_id and # text "
                                                       "(default: read IN.conllu)")
        sp.add_argument("--retag", action="store_true", help="predict every tag column the model's tagger has, "
                                                             "replacing the given tags (default: only empty columns)")
        sp.add_argument("-o", "--output", metavar="OUT.conllu", default="-", help="default: standard output")
        sp.add_argument("--beam", type=at_least(1, maximum=MAX_BEAM),
                        help=f"beam width, at most {MAX_BEAM} (default: the one the model was trained with). "
                                                         "Another width usually parses worse, and a beam on a "
                                                         "greedy-trained model much worse (a user's en_lines "
                                                         "arc-standard model: LAS 82.5 greedy, 65.5 at --beam 8); "
                                                         "a warning names the trained width")
        sp.add_argument("--nm-log", metavar="FILE.json", help="log every arc a non-monotonic transition "
                                                               "overwrote, for tsdsl eval --nm-log (default: no log)")
        sp.add_argument("--quiet", action="store_true", help="no summary on stderr")

    def run(self, args) -> int:
        import json

        from ..treebank.conllu import write_conllu
        from ..learn.parser import load_parser
        from ..files import check_input, check_not_input, check_output, write_atomic

        if args.text is not None and args.input is not None:
            raise UsageError("give either IN.conllu or --text FILE, not both")
        given = args.text if args.text is not None else args.input
        if given is not None:  # a missing file or a directory: said as train says it, exit 2, before any work
            check_input(given, "text file" if args.text is not None else "input file")
        for option, output in (("-o", args.output if args.output != "-" else None), ("--nm-log", args.nm_log)):
            if output is not None:
                check_not_input(output, given, option=option)  # a gold file or the only copy of a text
                check_output(output)  # now, not after the parse
        if args.nm_log and args.output != "-" and _same_path(args.output, args.nm_log):
            raise UsageError(f"-o and --nm-log name the same file {args.output}")
        parser = load_parser(args.model)
        if args.text is not None:
            from ..treebank.tokenize import read_text

            sentences = read_text(args.text, warn=lambda message: print(f"warning: {message}", file=sys.stderr))
            if sentences and parser.needs_given_upos:
                raise UsageError(untagged_text(sentences[0].file))
        else:
            sentences = _read_parser_input(args.input or "-")
        if not sentences:
            print(f"warning: {args.text or args.input or '<stdin>'}: no sentence to parse", file=sys.stderr)
        parsed, stats = parser.parse_sentences(sentences, beam=args.beam, log_nonmonotonic=bool(args.nm_log),
                                               retag=args.retag)
        write_conllu(args.output, parsed)
        trained = getattr(parser, "beam", 1)  # multihead models: greedy only
        if args.beam is not None and args.beam != trained:
            print(f"warning: {beam_mismatch(args.beam, trained)}", file=sys.stderr)
        if stats.missing_columns:
            names = ", ".join(c.upper() for c in stats.missing_columns)
            print(f"warning: {names} empty in every sentence and this model has no tagger for it: parsed without "
                  "(less accurately)", file=sys.stderr)
        if stats.unknown_upos is not None and stats.unknown_upos.words:
            print(f"warning: {stats.unknown_upos.message(stats.words)}", file=sys.stderr)
        if args.nm_log:
            events = [{"sentence": s + 1, "word": w, "old_head": h} for s, w, h in stats.nonmonotonic]
            doc = {"model": str(args.model), "output": None if args.output == "-" else str(args.output),
                   "heads_sha256": heads_digest(parsed), "events": events}
            write_atomic(args.nm_log, json.dumps(doc, indent=1) + "\n")
        if not args.quiet:
            msg = (f"parsed {plural(stats.sentences, 'sentence')}, {plural(stats.words, 'word')} "
                   f"in {stats.seconds:.2f} s "
                   f"({stats.words_per_second:,.0f} words/s)")
            if stats.tagged_sentences:
                msg += f"; tagged {plural(stats.tagged_words, 'word')} in {plural(stats.tagged_sentences, 'sentence')}"
            if parser.ignored:  # the training file had none of them: neither read nor predicted
                msg += f"; the model ignores {', '.join(c.upper() for c in parser.ignored)} (absent from its training file)"
            if stats.dropped_empty_nodes:   # the graph is predicted over the words (docs/learning.md)
                msg += (f"; dropped the input's {plural(stats.dropped_empty_nodes, 'empty node')} (the predicted "
                        "graph is over the words; its collapsed paths are written as new empty nodes)")
            if stats.repaired_words:
                msg += (f"; tree fallback re-attached {plural(stats.repaired_words, 'word')} in "
                        f"{plural(stats.repaired_sentences, 'sentence')}")
            if stats.stuck:
                msg += (f"; {plural(stats.stuck, 'sentence')} reached no terminal configuration (a dead end or the "
                        "step limit: the tree fallback attached their words)")
            if args.nm_log:
                msg += f"; {plural(len(stats.nonmonotonic), 'arc')} overwritten"
            print(msg, file=sys.stderr)
        return 0


class Eval(Command):
    name = "eval"
    help = ("score predicted trees against gold ones: UAS, LAS, crossing arcs, roots, arc lengths; "
            "ELAS and EULAS when the gold file has enhanced dependencies (DEPS)")

    def configure(self, sp) -> None:
        sp.add_argument("gold", metavar="GOLD.conllu", help="the gold trees")
        sp.add_argument("pred", metavar="PRED.conllu", help="the predicted trees of the same sentences")
        sp.add_argument("--json", action="store_true", help="machine-readable output")
        sp.add_argument("--nm-log", metavar="FILE.json", help="the --nm-log of `tsdsl parse`: also count "
                                                               "non-monotonic transitions that fired and repaired an arc (default: none)")

    def run(self, args) -> int:
        import json

        from ..treebank.evaluate import evaluate_files

        from ..treebank.conllu import read_conllu
        from ..treebank.enhanced import has_deps, score_graphs
        from ..files import check_input

        check_input(args.gold, "gold file")
        check_input(args.pred, "predicted file")
        if args.nm_log:
            check_input(args.nm_log, "--nm-log file")
        extra = _nonmonotonic_counts(args.gold, args.pred, args.nm_log) if args.nm_log else None
        scores = evaluate_files(args.gold, args.pred, extra=extra)
        gold = read_conllu(args.gold)
        enhanced = None
        copied = False
        if has_deps(gold):
            pred = read_conllu(args.pred, require_heads=False, allow_multiple_roots=True)
            enhanced = score_graphs(gold, pred, gold_name=args.gold, pred_name=args.pred)
            # a tree parser passes its input's DEPS through: then ELAS scores the input, not the parser
            copied = enhanced.correct == enhanced.gold == enhanced.predicted and any(
                g.heads != p.heads or g.deprels != p.deprels for g, p in zip(gold, pred))
        if args.json:
            doc = scores.to_dict()
            if enhanced is not None:
                doc["enhanced"] = dict(enhanced.to_dict(), deps_copied_from_gold=copied)
            print(json.dumps(doc, indent=2))
        else:
            print(scores.render_text() + ("\n" + enhanced.render_text() if enhanced is not None else ""))
            if copied:
                print("note: the predicted DEPS are the gold DEPS while the trees differ: a single-head parser "
                      "keeps its input's DEPS, so ELAS here does not score the parser")
        return 0


NO_TAB = "expected 10 tab-separated columns, found 1"


def _read_parser_input(path: str) -> list:
    """The CoNLL-U input of `tsdsl parse`.  Its HEAD and DEPREL are replaced, so they need not
    form trees.  A line without any tab (found 1 column) is most often a plain-text file given
    without ``--text``: the error then says so."""
    from ..treebank.conllu import ConlluError, read_conllu

    try:
        return read_conllu(path, require_heads=False, check_trees=False)
    except ConlluError as exc:
        if exc.message != NO_TAB:
            raise
        raise ConlluError(exc.file, exc.line, f"{NO_TAB} (plain text? use --text FILE)") from None


def _same_path(a: str, b: str) -> bool:
    """Whether two output paths name one file (the same path once resolved, or, when both
    exist, one file under two names): the second write would replace the first."""
    import os

    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _nonmonotonic_counts(gold_path: str, pred_path: str, log_path: str) -> dict:
    """From a ``tsdsl parse --nm-log`` file: how often a non-monotonic transition overwrote an
    arc (fired), how often the overwritten head was wrong and the word's final head is right
    (repaired), and how often the overwritten head was right and the final one is wrong (broke)."""
    import json

    from ..treebank.conllu import read_conllu

    try:
        doc = json.loads(open(log_path, encoding="utf-8").read())
        events = [(int(e["sentence"]), int(e["word"]), int(e["old_head"])) for e in doc["events"]]
        digest = doc.get("heads_sha256")
        if digest is not None and not isinstance(digest, str):
            raise TypeError(f"heads_sha256 is {type(digest).__name__}, not a string")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsageError(f"{log_path}: not a tsdsl parse --nm-log file ({exc})") from None
    gold = read_conllu(gold_path, allow_multiple_roots=True)
    pred = read_conllu(pred_path, require_heads=False, allow_multiple_roots=True)
    if digest is not None and digest != heads_digest(pred):
        written = doc.get("output")
        of = f"the output {written}" if isinstance(written, str) else "a parse written to standard output"
        raise UsageError(f"{log_path} does not belong to {pred_path}: it was written for {of}, whose heads "
                         f"differ from those of {pred_path} (another model or input); pass the log of the "
                         "parse that wrote it")
    repaired = broke = 0
    for si, w, old in events:
        if not (1 <= si <= min(len(gold), len(pred))) or not 1 <= w <= gold[si - 1].n:
            raise UsageError(f"{log_path}: event for sentence {si}, word {w} does not fit {gold_path}")
        g = gold[si - 1].heads[w - 1]
        p = pred[si - 1].heads[w - 1] if w <= pred[si - 1].n else None
        repaired += old != g and p == g
        broke += old == g and p != g
    if digest is None:  # logs of tsdsl before the digest; after the checks above, so that an error stays alone
        print(f"warning: {log_path} records no digest of the parse it belongs to (an older tsdsl wrote it): "
              f"cannot check that it is the log of {pred_path}", file=sys.stderr)
    return {"nonmonotonic_fired": len(events), "nonmonotonic_repaired": repaired,
            "nonmonotonic_broke": broke}


def heads_digest(sentences) -> str:
    """The SHA-256 (hex) of the HEAD column of ``sentences``: one line per sentence, its words'
    heads joined by commas (``_`` for none).  `tsdsl parse --nm-log` records it, and
    `tsdsl eval --nm-log` compares it with the predicted file's, so that a log is never counted
    against the output of another parse of the same sentences (its positions would fit, its
    counts would describe nothing)."""
    import hashlib

    h = hashlib.sha256()
    for s in sentences:
        h.update((",".join("_" if x is None else str(x) for x in s.heads) + "\n").encode("ascii"))
    return h.hexdigest()
