"""Commands that check a spec by search: verify, coverage, check-oracle."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import UsageError
from ..files import check_output
from ..lang import load_system
from ..verify.coverage import COMPILED_FACTOR, VERIFY_COMPILED_FACTOR
from ..verify.coverage import DEFAULT_BUDGET as COVERAGE_BUDGET
from ..verify.coverage import REACH_BUDGET
from .base import Command, at_least, command_line, parse_overrides, plural, spec_argument, with_set


class Verify(Command):
    name = "verify"
    help = "check soundness, completeness, progress and termination"

    def configure(self, sp) -> None:
        spec_argument(sp, many=True)
        sp.add_argument("--max-n", type=at_least(1), default=7, help="exhaustive up to this sentence length (default 7)")
        sp.add_argument("--random-max-n", type=at_least(1), default=30, help="random checks up to this length (default 30)")
        sp.add_argument("--examples", type=at_least(0), default=50, metavar="N",
                        help="cases of each of the two random checks: N random trees of the class searched for "
                             "(completeness) and N random derivations walked (soundness, progress, termination), "
                             "so up to 2N in all (default 50; 0: no random checks)")
        sp.add_argument("--budget", type=at_least(1), default=5000,
                        help="configurations one derivation search in the interpreter may expand before "
                             f"'undecided'; the random completeness check's compiled search, the default, may "
                             f"expand {VERIFY_COMPILED_FACTOR} times as many (default 5000, so "
                             f"{VERIFY_COMPILED_FACTOR * 5000} compiled)")
        sp.add_argument("--json", action="store_true", help="machine-readable output")
        sp.add_argument("--report", metavar="FILE.md", help="also write the Markdown verdict table to FILE.md "
                                                            "(default: none)")
        sp.add_argument("--repair", action="store_true",
                        help="search for the smallest guard change that restores progress and termination "
                             "(verified exhaustively to --max-n) and print it as an extends spec")
        sp.add_argument("--out", metavar="FILE.ts", help="with --repair: also write the spec to FILE.ts (default: none)")
        sp.add_argument("--max-size", type=at_least(1), default=2,
                        help="with --repair: literals a repair may change at most (default 2)")
        sp.add_argument("--screen-n", type=at_least(1), default=5,
                        help="with --repair: sentence lengths every candidate is screened on (default 5)")
        sp.add_argument("--state-limit", type=at_least(1), default=None,
                        help="configurations one sentence length may have before the exhaustive part stops "
                             "(default 6000000 compiled, 2000000 with --interpreted; compiled, about 130 bytes "
                             "each: n = 7 of arc-standard + SWAP, 4.8 million, peaks at 0.63 GB)")
        sp.add_argument("--interpreted", action="store_true",
                        help="explore and search in the interpreter only (default: the compiled kernel)")
        with_set(sp)

    def run(self, args) -> int:
        if args.repair:
            return self._repair(args)
        if args.out:
            raise UsageError("--out goes with --repair")
        if args.report:
            check_output(args.report)
        from ..files import write_atomic
        from ..verify.report import render_markdown
        from ..verify.verifier import render_verdict, verify_system

        verdicts, claims = [], {}
        for path in args.specs:
            system = load_system(path, parse_overrides(args.set))
            claims[system.source_file] = system.claim
            compiled, build_seconds = (None, 0.0) if args.interpreted else kernel_of(system)
            v = verify_system(system, max_n=args.max_n, random_max_n=args.random_max_n, examples=args.examples,
                              search_budget=args.budget, state_limit=args.state_limit, compiled=compiled)
            v.kernel_build_seconds = round(build_seconds, 2)
            verdicts.append(v)
            if not args.json:
                print(render_verdict(v), flush=True)
        if args.json:
            import json

            print(json.dumps([v.to_dict() for v in verdicts], indent=2))
        if args.report:
            from ..verify.report import hand_written_part

            command = command_line(args)
            old = Path(args.report).read_text(encoding="utf-8") if Path(args.report).is_file() else ""
            write_atomic(args.report, render_markdown(verdicts, claims, command) + hand_written_part(old))
        return 0 if all(v.ok for v in verdicts) or args.report else 1

    def _repair(self, args) -> int:
        from ..files import write_atomic
        from ..verify.repair import (VERIFY_N, check_printed, extends_path, find_repair, render_result,
                                     repair_spec)

        if len(args.specs) != 1:
            raise UsageError("--repair takes one spec")
        if args.out:
            check_output(args.out)
        if args.json or args.report:
            raise UsageError("--repair prints an extends spec; it does not combine with --json or --report")
        max_n = VERIFY_N if args.max_n is None else args.max_n
        system = load_system(args.specs[0], parse_overrides(args.set))
        result = find_repair(system, max_n=max_n, screen_n=args.screen_n, max_size=args.max_size,
                             progress=lambda msg: print(msg, file=sys.stderr, flush=True))
        print(render_result(result), file=sys.stderr, flush=True)
        if result.status != "repaired":
            return 0 if result.status == "nothing" else 1
        text = repair_spec(result, extends_path(system.source_file, None))
        check_printed(result, text, str(Path(system.source_file).with_name("repaired-check.ts")))
        if args.out:
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)  # the relative `extends` is checked through it
            saved = repair_spec(result, extends_path(system.source_file, str(out.resolve().parent)))
            check_printed(result, saved, str(out.resolve()))
            write_atomic(out, saved)
        print(text, end="")
        return 0


def kernel_of(system) -> tuple:
    """The compiled kernel of ``system`` for the searches, or None (with a note on stderr) when
    it cannot be built here: the interpreter then gives the same answers, more slowly; and the
    seconds spent building it (0 when it came from the cache).  Multihead systems get theirs
    too: exhaustive exploration runs compiled for them (their tree coverage and random
    derivation searches stay in the interpreter)."""
    from ..errors import KernelBuildError

    try:
        return timed_kernel(system)
    except KernelBuildError as exc:
        print(f"note: {system.name}: no compiled kernel ({failure_reason(exc)}); searching in the interpreter",
              file=sys.stderr)
        return None, 0.0


def timed_kernel(system) -> tuple:
    """``(kernel, seconds)``: the compiled kernel of ``system`` and the seconds its build took
    (0 on a cache hit), which verify and coverage print beside their own time: a first use
    spends seconds to a minute building, which their time would otherwise hide.

    Raises:
        KernelBuildError: no C compiler, or the build failed.
    """
    import time

    from ..kernels import compile_system

    t0 = time.perf_counter()
    kernel = compile_system(system, fallback=False, profile="explore")
    return kernel, 0.0 if kernel.built.cached else time.perf_counter() - t0


def failure_reason(exc: Exception) -> str:
    """A failure's message in one line that still says why: its first line, and when that
    only introduces what follows (ends in a colon), the first line after it too."""
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    if not lines:
        return f"{type(exc).__name__}, no message"
    if lines[0].endswith(":") and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"
    return lines[0]


class Coverage(Command):
    name = "coverage"
    help = "which gold trees of a CoNLL-U treebank the system derives exactly"

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("file", metavar="FILE.conllu", help="the treebank whose gold trees are searched for")
        sp.add_argument("--json", action="store_true", help="machine-readable output (with every sentence)")
        sp.add_argument("--budget", type=at_least(1, inf=True), default=COVERAGE_BUDGET,
                        help="configurations the interpreter's search (--interpreted, or a multihead spec "
                             "without --deps) may expand per sentence before 'undecided'; the compiled search, "
                             f"the default, may expand {COMPILED_FACTOR} times as many, --deps's graph search "
                             f"--budget itself (default {COVERAGE_BUDGET}, so {COMPILED_FACTOR * COVERAGE_BUDGET} compiled; "
                             "inf for no limit)")
        sp.add_argument("--limit", type=at_least(1), metavar="N", help="only the first N sentences (default: all)")
        sp.add_argument("--max-len", type=at_least(1), metavar="N", help="skip (and count) sentences longer than N words "
                                                                 "(default: none skipped)")
        sp.add_argument("--progress", action="store_true", help="print each sentence's verdict to stderr")
        sp.add_argument("--deps", action="store_true",
                        help="multihead systems: the enhanced graphs of the DEPS column (empty nodes collapsed), "
                             "derived by the compiled search")
        sp.add_argument("--interpreted", action="store_true",
                        help="search in the interpreter only (default: the compiled kernel)")
        sp.add_argument("--reach-budget", type=at_least(0, inf=True), default=REACH_BUDGET,
                        help="configurations the exact-loss search may expand to count the non-projective arcs "
                             f"reached in a non-derivable sentence (default {REACH_BUDGET}; inf for no limit; "
                             "0: do not count them)")
        with_set(sp)

    def run(self, args) -> int:
        import itertools
        import json

        from ..treebank.conllu import read_conllu
        from ..verify.coverage import CoverageInterrupted, coverage

        system = load_system(args.spec, parse_overrides(args.set))
        sentences = read_conllu(args.file, allow_multiple_roots=args.deps)
        if args.limit is not None:
            sentences = list(itertools.islice(sentences, args.limit))
        if args.deps:
            return _graph_coverage(system, sentences, args)  # (refuses a file without DEPS, an empty one too)
        if not sentences:  # as `tsdsl parse` warns of an empty input
            print(f"warning: {args.file}: no sentence to check", file=sys.stderr)

        compiled, build_seconds = (None, 0.0) if args.interpreted else kernel_of(system)
        watch = _CoverageWatch(args.file, len(sentences), args.progress)
        try:
            with watch.status:
                report = coverage(system, sentences, budget=args.budget, max_len=args.max_len, file=args.file,
                                  progress=watch.done, starting=watch.starting, compiled=compiled,
                                  reach_budget=args.reach_budget)
        except CoverageInterrupted as stop:
            report = stop.report
        report.kernel_build_seconds = build_seconds
        print(json.dumps(report.to_dict(), indent=2) if args.json else report.render_text(), flush=True)
        if report.interrupted:
            print(f"tsdsl: interrupted: the report covers the first {len(report.per_sentence)} of "
                  f"{len(sentences)} sentences", file=sys.stderr)
            return 130
        if system.multihead:
            from ..treebank.enhanced import has_deps

            if has_deps(sentences):   # a multihead spec trains on the graphs: the trees are rarely what was meant
                print(f"note: {args.file} has enhanced dependencies (DEPS); these are its basic trees (HEAD): "
                      f"--deps checks the enhanced graphs {system.name} trains on", file=sys.stderr)
        return 0


class _CoverageWatch:
    """What ``coverage`` shows while it runs, on stderr: the status line (sentences decided so
    far, the one being searched and for how long: :class:`~.status.StatusLine`), and with
    ``--progress`` every sentence's verdict on a line of its own."""

    def __init__(self, file: str, total: int, every: bool):
        import time

        from .status import StatusLine

        self.file, self.total, self.every = file, total, every
        self.clock = time.perf_counter
        self.counts = {"derivable": 0, "not derivable": 0, "undecided": 0, "skipped": 0}
        self.current = None  # (line, words, started) of the sentence being decided
        self.status = StatusLine(sys.stderr, self.describe)

    def starting(self, index: int, line: int, words: int) -> None:
        self.current = (line, words, self.clock())

    def done(self, v) -> None:
        self.counts[v.status] += 1
        self.current = None
        if self.every:
            self.status.write(f"{self.file}:{v.line}: {plural(v.words, 'word')}: {v.status} ({v.seconds:.2f} s)")

    def describe(self) -> str:
        decided = sum(self.counts.values())
        c = self.counts
        text = (f"coverage: {decided}/{self.total} sentences ({c['derivable']} derivable, {c['not derivable']} not, "
                f"{c['undecided']} undecided)")
        if self.current is not None:
            line, words, started = self.current
            text += f"; {self.file}:{line}: {plural(words, 'word')}, searching for {self.clock() - started:.0f} s"
        return text


def _graph_coverage(system, sentences, args) -> int:
    """``coverage --deps``: the enhanced graphs, by the compiled graph search."""
    import json

    from ..kernels.graphs import graph_coverage
    from ..treebank.enhanced import has_deps

    if not system.multihead:
        raise UsageError(f"{args.spec}: --deps needs a multihead system (a single-head system derives trees: "
                         "leave --deps out)")
    if not has_deps(sentences):
        raise UsageError(f"{args.file}: no enhanced dependencies (DEPS is _ on every word)")
    if args.max_len is not None or args.progress:
        raise UsageError("--max-len and --progress are for trees; --deps decides every graph in one compiled pass")
    kernel, build_seconds = timed_kernel(system)
    report = graph_coverage(kernel, sentences, file=args.file, budget=args.budget)
    report.kernel_build_seconds = build_seconds
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.render_text())
    return 0


class CheckOracle(Command):
    name = "check-oracle"
    help = "compare declared fast oracles with exact loss by search"

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("--oracle", help="the oracle to check (default: every declared one)")
        sp.add_argument("--configs", type=at_least(1), default=1000, help="configurations to compare (default 1000)")
        sp.add_argument("--max-n", type=at_least(1), default=8, help="longest random sentence (default 8)")
        sp.add_argument("--seed", type=at_least(0), default=0, help="random seed of trees and walks (default 0)")
        sp.add_argument("--budget", type=at_least(1), default=200_000,
                        help="configurations the exact loss search may expand per sentence (default 200000)")
        sp.add_argument("--table1", metavar="FILE.conllu", help="also measure bounds vs exact loss on real sentences "
                                                                 "(default: not measured)")
        sp.add_argument("--table1-configs", type=at_least(1), default=1000, metavar="N",
                        help="with --table1: configurations to measure (default 1000)")
        sp.add_argument("--table1-max-len", type=at_least(1), default=15, metavar="N",
                        help="with --table1: longest sentence used (default 15)")
        sp.add_argument("--json", action="store_true", help="machine-readable output")
        with_set(sp)

    def run(self, args) -> int:
        import json

        from ..verify.oracle_check import bounds_table, check_oracle, render_report

        system = load_system(args.spec, parse_overrides(args.set))
        sentences = _table1_sentences(args) if args.table1 else []  # before the long part: it may refuse
        names = [args.oracle] if args.oracle else [o.name for o in system.oracles] or [None]
        reports = [check_oracle(system, name, configs=args.configs, max_n=args.max_n, seed=args.seed,
                                budget=args.budget) for name in names]
        table = None
        if args.table1:
            table = bounds_table(system, sentences, args.oracle, configs=args.table1_configs, seed=args.seed,
                                 budget=args.budget, exact_loss=_compiled_exact_loss(system))
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
                      f"sentences of at most {args.table1_max_len} words)" +
                      (":" if table.configurations else ": none measured (every configuration reached was a "
                                                         "dead end or over the search budget)"))
                for k, v in table.average.items():
                    rel = table.relative_difference.get(k)
                    print(f"  {k:<10} average {v:.5f}" + (f"  relative difference to loss {rel:.5f}"
                                                           if rel is not None else ""))
        return 0 if all(r.ok for r in reports) else 1


def _compiled_exact_loss(system):
    """``check-oracle --table1``'s exact loss: a factory of the kernel's search per gold tree
    (tsdsl.kernels.exact_loss, with the reachability table of its length), or None for the
    interpreter's (a multihead spec, or no kernel here: kernel_of says so)."""
    if system.multihead:
        return None
    kernel, _ = kernel_of(system)
    if kernel is None:
        return None
    from ..kernels.exact_loss import CompiledLossSearch
    from ..verify.reach import reach_table

    def make(gold):
        n_tokens = len(gold) + (0 if system.root == "none" else 1)
        return CompiledLossSearch(kernel, gold, reach_table(system, n_tokens))

    return make


def _table1_sentences(args) -> list:
    """The gold head vectors ``check-oracle --table1`` measures on: the file's sentences of at
    most ``--table1-max-len`` words.

    Raises:
        UsageError: there is none (averages over nothing would print as zeros).
    """
    from ..treebank.conllu import read_conllu

    sentences = [s.heads for s in read_conllu(args.table1) if 0 < len(s.heads) <= args.table1_max_len]
    if not sentences:
        n = args.table1_max_len
        raise UsageError(f"--table1 {args.table1}: no sentence of {n} word{'' if n == 1 else 's'} or fewer "
                         "(--table1-max-len)")
    return sentences


class DeriveOracle(Command):
    name = "derive-oracle"
    help = ("derive an oracle block from the IR's pair reachability, check it against the exact loss, "
            "and print it")

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("--configs", type=at_least(1), default=300,
                        help="configurations the check compares with the exact loss (default 300)")
        sp.add_argument("--max-n", type=at_least(1), default=6, help="longest sentence of the check (default 6)")
        sp.add_argument("--exhaustive-n", type=at_least(0), default=4,
                        help="also compare every configuration of every gold tree of up to this many words "
                             "(default 4; 0: none)")
        with_set(sp)

    def run(self, args) -> int:
        from pathlib import Path

        from ..verify.derive_oracle import derive_oracle

        overrides = parse_overrides(args.set)
        system = load_system(args.spec, overrides)
        if system.multihead:
            raise UsageError(f"{args.spec}: oracles of multihead systems cannot be derived yet")
        derived = derive_oracle(system, str(Path(system.source_file).resolve()), configs=args.configs,
                                max_n=args.max_n, exhaustive_n=args.exhaustive_n, overrides=overrides)
        from ..verify.oracle_check import NOTHING_CHECKABLE

        verdict = (f"NOT CHECKED: {NOTHING_CHECKABLE}" if not derived.checked else
                   ("exact as far as checked: no configuration differed from the exact loss (not proved for "
                    "longer sentences)") if derived.exact else
                   "a lower bound of the loss (the check found configurations where it is not exact)"
                   if derived.lower else "NOT a lower bound: configurations where it exceeds the exact loss "
                   "(a bug in the reachability analysis: please report it)")
        every = (f"every configuration of up to {args.exhaustive_n} words ({derived.exhaustive}) and "
                 if derived.exhaustive else "")
        print(f"  # derived by `tsdsl derive-oracle` from the IR's pair reachability; checked on {every}"
              f"{derived.configurations - derived.exhaustive} random configurations of up to {args.max_n} words: "
              f"{verdict}")
        print(derived.block, end="")
        return 0 if derived.checked else 1

