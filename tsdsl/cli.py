"""The `tsdsl` command line: thin wrappers that parse arguments and call the library.

User mistakes print a located message and exit non-zero, never a traceback
(``--debug`` shows one).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Optional, Sequence

from ._version import __version__
from .check import load_system
from .errors import TsdslError, UsageError
from .interp import Interpreter
from .show import render_json, render_text
from .trace import TraceError, render_steps, run_trace
from .verify.coverage import DEFAULT_BUDGET as COVERAGE_BUDGET

log = logging.getLogger("tsdsl")


def parse_overrides(items: Optional[Sequence[str]]) -> dict[str, Optional[int]]:
    """``["K=4", "D=inf"]`` to ``{"K": 4, "D": None}``.

    Raises:
        UsageError: an item is not NAME=INTEGER or NAME=inf.
    """
    out: dict[str, Optional[int]] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        if value in ("inf", "∞"):
            out[name] = None
            continue
        try:
            out[name] = int(value)
        except ValueError:
            raise UsageError(f"--set {name}: expected an integer or inf, got {value!r}") from None
    return out


def _split_actions(text: str) -> list[str]:
    """Split on spaces and commas, except inside an index list: ``LEFT-ARC(3, 2)`` is one action."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth and ch.isspace():
            continue
        elif not depth and (ch == "," or ch.isspace()):
            if cur:
                out.append("".join(cur))
                cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def cmd_check(args) -> int:
    status = 0
    for path in args.specs:
        try:
            system = load_system(path, parse_overrides(args.set))
        except TsdslError as exc:
            print(str(exc), file=sys.stderr)
            status = 1
            continue
        k = len(system.actions) if not system.unbounded else 0
        count = f"{k} action{'s' if k != 1 else ''}" if not system.unbounded else "actions grow with the sentence"
        print(f"{path}: OK ({system.style}, {count})")
    return status


def cmd_show(args) -> int:
    system = load_system(args.spec, parse_overrides(args.set))
    print(render_json(system, args.n) if args.json else render_text(system, args.n))
    return 0


def cmd_trace(args) -> int:
    system = load_system(args.spec, parse_overrides(args.set))
    it = Interpreter(system)
    if args.gold:
        return cmd_trace_gold(args, system, it)
    if args.words is not None:
        words = args.words.split()
    else:
        words = [f"w{k}" for k in range(1, (args.n or 0) + 1)]
    if args.actions_file:
        with open(args.actions_file, encoding="utf-8") as fh:
            actions = _split_actions(fh.read())
    else:
        actions = _split_actions(args.actions or "")
    names = [d.name for d in system.lists]
    try:
        steps, final = run_trace(it, words, actions)
    except TraceError as exc:
        print(render_steps(exc.steps, exc.list_names))
        raise
    print(render_steps(steps, names, terminal=it.is_terminal(final)))
    if not it.is_terminal(final):
        legal = it.legal(final)
        print(f"(not terminal; legal next: {', '.join(legal) if legal else 'nothing: dead end'})")
    else:
        tree = it.output(final)
        heads = " ".join("_" if h is None else str(h) for h in tree.heads)
        print(f"heads: {heads}")
    return 0


def cmd_verify(args) -> int:
    from .verify.report import render_markdown, write_atomic
    from .verify.verifier import render_verdict, verify_system

    verdicts, claims = [], {}
    for path in args.specs:
        system = load_system(path, parse_overrides(args.set))
        claims[system.source_file] = system.claim
        v = verify_system(system, max_n=args.max_n, random_max_n=args.random_max_n, examples=args.examples,
                          search_budget=args.budget)
        verdicts.append(v)
        if not args.json:
            print(render_verdict(v), flush=True)
    if args.json:
        import json

        print(json.dumps([v.to_dict() for v in verdicts], indent=2))
    if args.report:
        command = "tsdsl verify --report " + args.report + " " + " ".join(args.specs)
        write_atomic(args.report, render_markdown(verdicts, claims, command))
    return 0 if all(v.ok for v in verdicts) or args.report else 1


def cmd_coverage(args) -> int:
    import itertools
    import json

    from .treebank.conllu import read_conllu
    from .verify.coverage import coverage

    system = load_system(args.spec, parse_overrides(args.set))
    sentences = read_conllu(args.file)
    if args.limit is not None:
        sentences = list(itertools.islice(sentences, max(args.limit, 0)))
    progress = None
    if args.progress:
        def progress(v):
            print(f"{args.file}:{v.line}: {v.words} words: {v.status} ({v.seconds:.2f} s)", file=sys.stderr, flush=True)
    report = coverage(system, sentences, budget=args.budget, max_len=args.max_len, file=args.file,
                      progress=progress)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.render_text())
    return 0


def cmd_eval(args) -> int:
    import json

    from .treebank.evaluate import evaluate_files

    extra = _nonmonotonic_counts(args.gold, args.pred, args.nm_log) if args.nm_log else None
    scores = evaluate_files(args.gold, args.pred, extra=extra)
    print(json.dumps(scores.to_dict(), indent=2) if args.json else scores.render_text())
    return 0


def _nonmonotonic_counts(gold_path: str, pred_path: str, log_path: str) -> dict:
    """From a ``tsdsl parse --nm-log`` file: how often a non-monotonic transition overwrote an
    arc (fired), how often the overwritten head was wrong and the word's final head is right
    (repaired), and how often the overwritten head was right and the final one is wrong (broke)."""
    import json

    from .treebank.conllu import read_conllu

    try:
        doc = json.loads(open(log_path, encoding="utf-8").read())
        events = [(int(e["sentence"]), int(e["word"]), int(e["old_head"])) for e in doc["events"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{log_path}: not a tsdsl parse --nm-log file ({exc})") from None
    gold = read_conllu(gold_path, allow_multiple_roots=True)
    pred = read_conllu(pred_path, require_heads=False, allow_multiple_roots=True)
    repaired = broke = 0
    for si, w, old in events:
        if not (1 <= si <= min(len(gold), len(pred))) or not 1 <= w <= gold[si - 1].n:
            raise UsageError(f"{log_path}: event for sentence {si}, word {w} does not fit {gold_path}")
        g = gold[si - 1].heads[w - 1]
        p = pred[si - 1].heads[w - 1] if w <= pred[si - 1].n else None
        repaired += old != g and p == g
        broke += old == g and p != g
    return {"nonmonotonic_fired": len(events), "nonmonotonic_repaired": repaired,
            "nonmonotonic_broke": broke}


def cmd_train(args) -> int:
    from .learn.train import TrainOptions, train

    options = TrainOptions(epochs=args.epochs, oracle=args.oracle, explore=args.explore,
                           explore_after=args.explore_after, beam=args.beam, features=args.features,
                           seed=args.seed, nonproj=args.nonproj, hash_bits=args.hash_bits, loss=args.loss,
                           overrides=parse_overrides(args.set))
    result = train(args.spec, args.train, args.dev, args.out, options,
                   progress=None if args.quiet else sys.stderr)
    best = result.history[result.best_epoch - 1] if result.history else {}
    line = f"{result.model_dir}: best epoch {result.best_epoch} of {len(result.history)}"
    if "dev_las" in best:
        line += f", dev UAS {100 * best['dev_uas']:.2f} LAS {100 * best['dev_las']:.2f}"
    line += f"; trained in {result.seconds:.1f} s on {result.sentences} sentences"
    if result.skipped:
        line += f" ({result.skipped} non-projective skipped)"
    if result.lifted:
        line += f" ({result.lifted} arcs lifted)"
    print(line)
    return 0


def cmd_parse(args) -> int:
    import json

    from .treebank.conllu import read_conllu, write_conllu
    from .learn.parser import load_parser
    from .verify.report import write_atomic

    parser = load_parser(args.model)
    sentences = read_conllu(args.input, require_heads=False, allow_multiple_roots=True)
    parsed, stats = parser.parse_sentences(sentences, beam=args.beam, log_nonmonotonic=bool(args.nm_log))
    write_conllu(args.output, parsed)
    if args.nm_log:
        events = [{"sentence": s + 1, "word": w, "old_head": h} for s, w, h in stats.nonmonotonic]
        write_atomic(args.nm_log, json.dumps({"model": str(args.model), "events": events}, indent=1) + "\n")
    if not args.quiet:
        msg = (f"parsed {stats.sentences} sentences, {stats.words} words in {stats.seconds:.2f} s "
               f"({stats.words_per_second:,.0f} words/s)")
        if stats.repaired_words:
            msg += f"; tree fallback re-attached {stats.repaired_words} words in {stats.repaired_sentences} sentences"
        if stats.stuck:
            msg += f"; {stats.stuck} searches stopped early"
        if args.nm_log:
            msg += f"; {len(stats.nonmonotonic)} arcs overwritten"
        print(msg, file=sys.stderr)
    return 0


def _budget(text: str) -> Optional[int]:
    if text in ("inf", "none"):
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer or inf, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer or inf, got {text!r}")
    return value


def cmd_check_oracle(args) -> int:
    import json

    from .verify.oracle_check import bounds_table, check_oracle, render_report

    system = load_system(args.spec, parse_overrides(args.set))
    names = [args.oracle] if args.oracle else [o.name for o in system.oracles] or [None]
    reports = [check_oracle(system, name, configs=args.configs, max_n=args.max_n, seed=args.seed,
                            budget=args.budget) for name in names]
    table = None
    if args.table1:
        from .treebank.conllu import read_conllu

        sentences = [s.heads for s in read_conllu(args.table1) if 0 < len(s.heads) <= args.table1_max_len]
        table = bounds_table(system, sentences, args.oracle, configs=args.table1_configs, seed=args.seed,
                             budget=args.budget)
    if args.json:
        out = {"reports": [r.to_dict() for r in reports]}
        if table is not None:
            out["table1"] = {"configurations": table.configurations, "average": table.average,
                             "relative_difference": table.relative_difference}
        print(json.dumps(out, indent=2))
    else:
        for r in reports:
            print(render_report(r))
        if table is not None:
            print(f"Table 1 style measurement on {args.table1} ({table.configurations} configurations, "
                  f"sentences of at most {args.table1_max_len} words):")
            for k, v in table.average.items():
                rel = table.relative_difference.get(k)
                print(f"  {k:<10} average {v:.5f}" + (f"  relative difference to loss {rel:.5f}"
                                                       if rel is not None else ""))
    return 0 if all(r.ok for r in reports) else 1


def cmd_trace_gold(args, system, it) -> int:
    from .treebank.conllu import read_conllu
    from .oracle import FastOracle
    from .trace import apply_recorded, final_step
    from .verify.loss import LossSearch

    sentences = read_conllu(args.gold)
    if not 1 <= args.sentence <= len(sentences):
        raise UsageError(f"--sentence must be between 1 and {len(sentences)}")
    sent = sentences[args.sentence - 1]
    gold = list(sent.heads)
    words = list(sent.forms)
    exact_oracles = [o for o in system.oracles if o.losses and o.losses[0].bound == "exact"]
    fast = FastOracle(it, exact_oracles[0], gold) if exact_oracles else None
    search = LossSearch(it, gold, budget=args.budget)
    c = it.initial(len(gold))
    steps = []
    k = 0
    names = [d.name for d in system.lists]
    searched = 0
    while not it.is_terminal(c):
        costs = fast.costs(c) if fast is not None else None
        if costs is None or not any(v == 0 for v in costs.values()):
            # no declared exact oracle, or gold outside what it is exact for: search
            searched += fast is not None
            costs = {a: (int(v) if v != float("inf") else v) for a, v in search.costs(c).items()}
        zero = [a for a, v in costs.items() if v == 0]
        if not zero:
            print(render_steps(steps, names))
            raise UsageError(f"step {k}: no zero-cost action (costs {costs})")
        mono = [a for a in zero if a not in search.nonmonotonic]
        action = (mono or zero)[0]
        steps.append(apply_recorded(it, c, words, k, action, costs if args.costs else None))
        k += 1
    steps.append(final_step(it, c, words, k))
    print(render_steps(steps, names, terminal=True))
    out = it.output(c).heads
    wrong = sum(1 for h, g in zip(out, gold) if h != g)
    source = f"fast oracle {exact_oracles[0].name}" if fast is not None else "exact loss search"
    if searched:
        source += f" (exact loss search at {searched} step(s) where it had no zero-cost action)"
    print(f"oracle: {source}; {wrong} of {len(gold)} heads differ from gold")
    return 0


def cmd_compile(args) -> int:
    import time
    from pathlib import Path

    from .kernels.build import build, kernel_cache_dir, load_module
    from .kernels.codegen import generate
    from .verify.report import write_atomic

    system = load_system(args.spec, parse_overrides(args.set))
    gen = generate(system)
    if args.emit_pyx is not None:
        if args.emit_pyx == "-":
            sys.stdout.write(gen.source)
        else:
            write_atomic(args.emit_pyx, gen.source)
            print(f"{args.spec}: generated Cython written to {args.emit_pyx} ({len(gen.source.splitlines())} lines)")
        if not args.build:
            return 0
    t0 = time.perf_counter()
    cache = Path(args.output) if args.output else kernel_cache_dir()
    built = build(gen, cache, force=args.force)
    load_module(built)
    seconds = time.perf_counter() - t0
    how = "cache hit" if built.cached else "built"
    costs = ", ".join(f"{o}/{l}: {'incremental' if inc else 'scratch copy'}"
                      for (o, l), inc in zip(gen.losses, gen.incremental)) or "no declared oracle"
    print(f"{args.spec}: {how} in {seconds:.2f} s: {built.extension}")
    actions = f"{len(gen.unit_keys)} action families" if system.unbounded else f"{len(gen.action_names)} actions"
    print(f"  {actions}; oracle costs: {costs}; source {built.pyx}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tsdsl", description="Transition systems for dependency parsing as specs.")
    p.add_argument("--version", action="version", version=f"tsdsl {__version__}")
    p.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = p.add_subparsers(dest="command", required=True)

    def with_set(sp):
        sp.add_argument("--set", action="append", metavar="NAME=VALUE",
                        help="override a parameter, e.g. --set K=4 (repeatable; inf allowed)")

    sp = sub.add_parser("check", help="parse and check specs; print path: OK or the errors")
    sp.add_argument("specs", nargs="+")
    with_set(sp)
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("show", help="print the lowered system: every action with its guards and effects")
    sp.add_argument("spec")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.add_argument("--n", type=int, default=None, help="tokens to instantiate for capacity inf (default 6)")
    with_set(sp)
    sp.set_defaults(func=cmd_show)

    sp = sub.add_parser("verify", help="check soundness, completeness, progress and termination")
    sp.add_argument("specs", nargs="+")
    sp.add_argument("--max-n", type=int, default=6, help="exhaustive up to this sentence length (default 6)")
    sp.add_argument("--random-max-n", type=int, default=30, help="random checks up to this length (default 30)")
    sp.add_argument("--examples", type=int, default=50, help="Hypothesis examples per random check (default 50)")
    sp.add_argument("--budget", type=int, default=5000,
                    help="configurations one derivation search may expand before 'undecided' (default 5000)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--report", metavar="FILE.md", help="also write the Markdown verdict table to FILE.md")
    with_set(sp)
    sp.set_defaults(func=cmd_verify)

    sp = sub.add_parser("coverage", help="which gold trees of a CoNLL-U treebank the system derives exactly")
    sp.add_argument("spec")
    sp.add_argument("file", metavar="FILE.conllu")
    sp.add_argument("--json", action="store_true", help="machine-readable output (with every sentence)")
    sp.add_argument("--budget", type=_budget, default=COVERAGE_BUDGET,
                    help="configurations one search may expand per sentence before 'undecided' "
                         f"(default {COVERAGE_BUDGET}; inf for no limit)")
    sp.add_argument("--limit", type=int, metavar="N", help="only the first N sentences")
    sp.add_argument("--max-len", type=int, metavar="N", help="skip (and count) sentences longer than N words")
    sp.add_argument("--progress", action="store_true", help="print each sentence's verdict to stderr")
    with_set(sp)
    sp.set_defaults(func=cmd_coverage)

    sp = sub.add_parser("eval", help="score predicted trees against gold ones: UAS, LAS, crossing arcs, roots, "
                                     "arc lengths")
    sp.add_argument("gold", metavar="GOLD.conllu")
    sp.add_argument("pred", metavar="PRED.conllu")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    sp.add_argument("--nm-log", metavar="FILE.json", help="the --nm-log of `tsdsl parse`: also count "
                                                           "non-monotonic transitions that fired and repaired an arc")
    sp.set_defaults(func=cmd_eval)

    sp = sub.add_parser("train", help="train a parser for a spec on a CoNLL-U treebank")
    sp.add_argument("spec")
    sp.add_argument("--train", required=True, metavar="FILE.conllu")
    sp.add_argument("--dev", metavar="FILE.conllu", help="development set: scored after every epoch; the best "
                                                         "epoch is kept (without it, the last)")
    sp.add_argument("--out", required=True, metavar="DIR", help="model directory to write")
    sp.add_argument("--epochs", type=int, default=15)
    sp.add_argument("--oracle", choices=("auto", "dynamic", "static"), default="auto",
                    help="dynamic (with exploration) or static training; auto (default): dynamic unless "
                         "the loss is declared a lower bound")
    sp.add_argument("--explore", type=float, default=1.0, metavar="P",
                    help="dynamic oracle: follow the model's prediction with probability P (default 1.0)")
    sp.add_argument("--explore-after", type=int, default=1, metavar="K",
                    help="dynamic oracle: explore from epoch K+1 on (default 1)")
    sp.add_argument("--beam", type=int, default=1, help="beam width (1: greedy; >1: structured perceptron "
                                                       "with early update)")
    sp.add_argument("--features", metavar="FILE.yaml", help="feature templates (default: the family's set, "
                                                            "see docs/features.md)")
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--nonproj", choices=("lift", "skip"), default="lift",
                    help="projective systems on non-projective trees: pseudo-projective lifting (default) "
                         "or skip the sentence")
    sp.add_argument("--hash-bits", type=int, default=20, help="feature hash table of 2**N rows (default 20)")
    sp.add_argument("--loss", help="which declared oracle loss to train with (default: the first)")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    with_set(sp)
    sp.set_defaults(func=cmd_train)

    sp = sub.add_parser("parse", help="parse a CoNLL-U file with a trained model (only HEAD and DEPREL change)")
    sp.add_argument("model", metavar="DIR")
    sp.add_argument("input", metavar="IN.conllu", nargs="?", default="-", help="default: standard input")
    sp.add_argument("-o", "--output", metavar="OUT.conllu", default="-", help="default: standard output")
    sp.add_argument("--beam", type=int, help="beam width (default: the one the model was trained with)")
    sp.add_argument("--nm-log", metavar="FILE.json", help="log every arc a non-monotonic transition "
                                                           "overwrote (for tsdsl eval --nm-log)")
    sp.add_argument("--quiet", action="store_true", help="no summary on stderr")
    sp.set_defaults(func=cmd_parse)

    sp = sub.add_parser("compile", help="generate the Cython kernel of a spec, build it and cache it")
    sp.add_argument("spec")
    sp.add_argument("-o", "--output", metavar="DIR", help="kernel cache directory (default: $TSDSL_CACHE_DIR or "
                                                          "~/.cache/tsdsl/kernels)")
    sp.add_argument("--emit-pyx", nargs="?", const="-", metavar="FILE",
                    help="write the generated .pyx to FILE (stdout without FILE) instead of building")
    sp.add_argument("--build", action="store_true", help="with --emit-pyx: build as well")
    sp.add_argument("--force", action="store_true", help="rebuild even when the cache has the kernel")
    with_set(sp)
    sp.set_defaults(func=cmd_compile)

    sp = sub.add_parser("check-oracle", help="compare declared fast oracles with exact loss by search")
    sp.add_argument("spec")
    sp.add_argument("--oracle", help="the oracle to check (default: every declared one)")
    sp.add_argument("--configs", type=int, default=1000, help="configurations to compare (default 1000)")
    sp.add_argument("--max-n", type=int, default=8, help="longest random sentence (default 8)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--budget", type=int, default=200_000, help="search budget per sentence")
    sp.add_argument("--table1", metavar="FILE.conllu", help="also measure bounds vs exact loss on real sentences")
    sp.add_argument("--table1-configs", type=int, default=1000)
    sp.add_argument("--table1-max-len", type=int, default=15)
    sp.add_argument("--json", action="store_true")
    with_set(sp)
    sp.set_defaults(func=cmd_check_oracle)

    sp = sub.add_parser("trace", help="run an action sequence on a sentence and print the step table")
    sp.add_argument("spec")
    sp.add_argument("--words", help='the sentence, e.g. "Book the flight through Houston"')
    sp.add_argument("--n", type=int, help="a sentence of N placeholder words (when --words is not given)")
    sp.add_argument("--actions", help='actions separated by spaces or commas; "NAME:label" for a label')
    sp.add_argument("--actions-file", help="read the actions from a file")
    sp.add_argument("--gold", metavar="FILE.conllu", help="drive the trace by the static oracle for a gold tree")
    sp.add_argument("--sentence", type=int, default=1, help="which sentence of --gold (1-based, default 1)")
    sp.add_argument("--costs", action="store_true", help="with --gold: print every legal action's cost")
    sp.add_argument("--budget", type=int, default=200_000, help="with --gold: exact search budget")
    with_set(sp)
    sp.set_defaults(func=cmd_trace)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING, format="%(message)s")
    try:
        return args.func(args)
    except TsdslError as exc:
        if args.debug:
            raise
        print(f"tsdsl: {exc}" if isinstance(exc, UsageError) else str(exc), file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # e.g. `tsdsl show ... | head`; before OSError, its base class
        sys.stderr.close()
        return 0
    except OSError as exc:
        if args.debug:
            raise
        print(f"tsdsl: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
