"""Commands about one spec: check, show, trace, compile."""

from __future__ import annotations

import sys

from ..errors import TsdslError, UsageError
from ..files import check_input, check_not_input, check_output, check_output_dir
from ..interp import Interpreter
from ..lang import load_system, packaged_systems
from ..show import render_json, render_text
from ..trace import TraceError, render_steps, run_trace
from .gold import GOLD_BUDGET
from .base import Command, at_least, parse_overrides, spec_argument, split_actions, with_set


class Check(Command):
    name = "check"
    help = "parse and check specs; print path: OK or the errors"

    def configure(self, sp) -> None:
        spec_argument(sp, many=True)
        with_set(sp)

    def run(self, args) -> int:
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


class Systems(Command):
    name = "systems"
    help = ("list the packaged specs with their claims and declared oracles (or none); commands accept these "
            "names instead of a path")

    def configure(self, sp) -> None:
        sp.add_argument("--readings", action="store_true", help="also list the alternative readings "
                                                                "(systems/readings/)")

    def run(self, args) -> int:
        for name, path in packaged_systems(readings=args.readings):
            system = load_system(path)
            oracles = ", ".join(o.name for o in system.oracles) or "none"
            print(f"{name}: {system.title}   [oracle: {oracles}]")
            print(f"    {system.claim or '(no claim)'}")
        return 0


class Show(Command):
    name = "show"
    help = "print the lowered system: every action with its guards and effects"

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("--json", action="store_true", help="machine-readable output")
        sp.add_argument("--n", type=at_least(1), default=None,
                        help="tokens to instantiate for capacity inf (default 6)")
        with_set(sp)

    def run(self, args) -> int:
        system = load_system(args.spec, parse_overrides(args.set))
        print(render_json(system, args.n) if args.json else render_text(system, args.n))
        return 0


class Trace(Command):
    name = "trace"
    help = "run an action sequence on a sentence and print the step table"

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("--words", help='the sentence, e.g. "Book the flight through Houston" (default: --n '
                                        'placeholder words)')
        sp.add_argument("--n", type=at_least(0), help="a sentence of N placeholder words w1..wN when --words is not given "
                                              "(default 0)")
        sp.add_argument("--actions", help='actions separated by spaces or commas; "NAME:label" for a label '
                                          '(default: none)')
        sp.add_argument("--actions-file", metavar="FILE", help="read the actions from a file (default: --actions)")
        sp.add_argument("--gold", metavar="FILE.conllu", help="drive the trace by an oracle for a gold tree instead "
                                                             "of given actions (default: none)")
        sp.add_argument("--sentence", type=at_least(1), default=None, help="which sentence of --gold (1-based, default 1)")
        sp.add_argument("--costs", action="store_true", help="with --gold (costs are measured against a gold tree): "
                                                             "print every legal action's cost; inf marks an action "
                                                             "after which no terminal configuration can be reached")
        sp.add_argument("--budget", type=at_least(1), default=None,
                        help=f"with --gold: configurations the exact loss search may expand per step (default {GOLD_BUDGET})")
        sp.add_argument("--html", metavar="OUT.html", default=None,
                        help="also write the trace as an HTML page with one picture per step: the lists as "
                             "boxes, the arcs so far, the action highlighted (default: none)")
        with_set(sp)

    def run(self, args) -> int:
        system = load_system(args.spec, parse_overrides(args.set))
        if args.html == "":
            raise UsageError("--html needs a file name ending in .html (it was given an empty one)")
        if args.html:
            check_output(args.html)
            if not args.html.lower().endswith((".html", ".htm")):
                raise UsageError(f"--html {args.html}: the page must end in .html")
        if args.costs and not args.gold:
            raise UsageError("--costs needs --gold FILE.conllu: a cost is measured against a gold tree")
        # options of the other mode would be ignored silently: refuse them instead
        if args.gold:
            given = [o for o, v in (("--words", args.words), ("--n", args.n), ("--actions", args.actions),
                                    ("--actions-file", args.actions_file)) if v is not None]
            if given:
                raise UsageError(f"{', '.join(given)} cannot be combined with --gold: the words come from "
                                 "the gold file and the oracle chooses the actions")
        else:
            given = [o for o, v in (("--sentence", args.sentence), ("--budget", args.budget)) if v is not None]
            if given:
                raise UsageError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --gold FILE.conllu")
            _check_given_actions(args)
        it = Interpreter(system)
        if args.gold:
            return _trace_gold(args, system, it)
        if args.words is not None:
            words = args.words.split()
        else:
            words = [f"w{k}" for k in range(1, (args.n or 0) + 1)]
        if args.actions_file is not None:
            path = check_input(args.actions_file, "actions file")
            try:
                actions = split_actions(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError as exc:
                raise UsageError(f"cannot read the actions file {args.actions_file}: not UTF-8 text ({exc.reason})") from None
        else:
            actions = split_actions(args.actions or "")
        names = [d.name for d in system.lists]
        try:
            steps, final = run_trace(it, words, actions)
        except TraceError as exc:
            print(render_steps(exc.steps, exc.list_names))
            # the page too: the steps done, the configuration it stopped at, and why
            _write_html(args, system, exc.steps, words, it.initial(len(words)).root, False, f"tsdsl: {exc}")
            raise
        print(render_steps(steps, names, terminal=it.is_terminal(final)))
        if not it.is_terminal(final):
            legal = it.legal(final)
            last = f"(not terminal; legal next: {', '.join(legal) if legal else 'nothing: dead end'})"
        else:
            tree = it.output(final)
            last = "heads: " + " ".join("_" if h is None else str(h) for h in tree.heads)
            if any(lab is not None for lab in tree.labels):
                last += "\nlabels: " + " ".join("_" if lab is None else lab for lab in tree.labels)
            added = _finally_arcs(final, tree, words)
            if added:
                last += f"\nfinally (the spec's end rule): {', '.join(added)}"
        print(last)
        _write_html(args, system, steps, words, final.root, it.is_terminal(final), last)
        return 0


def _check_given_actions(args) -> None:
    """``trace`` without ``--gold``: refuse what would be ignored or do nothing.  A sentence
    comes from ``--words`` or ``--n`` (not both: one would be dropped silently), the actions
    from ``--actions`` or ``--actions-file`` (the same), and a command line with neither a
    sentence nor actions would print an empty table of 0 words."""
    for first, second in (("--words", "--n"), ("--actions", "--actions-file")):
        if getattr(args, first.lstrip("-").replace("-", "_")) is not None and \
                getattr(args, second.lstrip("-").replace("-", "_")) is not None:
            raise UsageError(f"{first} and {second} cannot be combined: give one of them")
    if all(v is None for v in (args.words, args.n, args.actions, args.actions_file)):
        raise UsageError("trace needs a sentence (--words \"W1 W2 ...\" or --n N) and the actions to run on it "
                         "(--actions \"A1 A2 ...\" or --actions-file FILE), or --gold FILE.conllu to follow an oracle")


def _finally_arcs(c, tree, words) -> list[str]:
    """The arcs the spec's end rule (``finally attach headless to root``, say) added to the
    output of terminal configuration ``c``: they are in no step of the table."""
    if c.multi is not None:
        return []
    out = []
    for d, (h, lab) in enumerate(zip(tree.heads, tree.labels), 1):
        if h is not None and c.heads[d] < 0:
            head = "root" if h == 0 else words[h - 1]
            out.append(f"{head} {'-' + lab + '-> ' if lab else '-> '}{words[d - 1]}")
    return out


def _trace_gold(args, system, it) -> int:
    from .gold import trace_gold

    def write_html(steps, words, root, terminal, footer):
        _write_html(args, system, steps, words, root, terminal, footer)

    return trace_gold(args, system, it, write_html)


def _write_html(args, system, steps, words, root, terminal: bool, footer: str) -> None:
    """``trace --html``: the recorded steps as a page of pictures."""
    if not args.html:
        return
    from ..draw import render_trace_html
    from ..files import write_atomic

    title = f"{system.title or system.name}: {' '.join(words)}"
    write_atomic(args.html, render_trace_html(steps, [d.name for d in system.lists], words, root, title=title,
                                              terminal=terminal, footer=footer))


class Compile(Command):
    name = "compile"
    help = "generate the Cython kernel of a spec, build it and cache it"

    def configure(self, sp) -> None:
        spec_argument(sp)
        sp.add_argument("-o", "--output", metavar="DIR", help="kernel cache directory (default: $TSDSL_CACHE_DIR or "
                                                              "~/.cache/tsdsl/kernels)")
        sp.add_argument("--emit-pyx", nargs="?", const="-", metavar="FILE",
                        help="write the generated .pyx to FILE, with the shared .pxi files it includes next to it "
                             "(stdout without FILE: the .pyx alone) instead of building (default: build only)")
        sp.add_argument("--build", action="store_true", help="with --emit-pyx: build as well")
        sp.add_argument("--force", action="store_true", help="rebuild even when the cache has the kernel")
        with_set(sp)

    def run(self, args) -> int:
        import time
        from pathlib import Path

        from ..kernels.build import build, kernel_cache_dir, load_module
        from ..kernels.codegen import generate

        # every output path is checked before the work, and its errors name the path given
        if args.emit_pyx not in (None, "-"):
            check_output_dir(check_output(args.emit_pyx).parent, named=args.emit_pyx)
            _check_emit_pyx(args.emit_pyx)
        building = args.emit_pyx is None or args.build
        cache = check_output_dir(args.output) if args.output and building else None
        system = load_system(args.spec, parse_overrides(args.set))
        if args.emit_pyx not in (None, "-"):
            # the spec (or a file it extends) under a .pyx name, or through a link
            check_not_input(args.emit_pyx, *(system.sources or (system.source_file,)), option="--emit-pyx")
        gen = generate(system)
        if args.emit_pyx is not None:
            if args.emit_pyx == "-":
                sys.stdout.write(gen.source)
            else:
                try:
                    gen.write(Path(args.emit_pyx))
                except OSError as exc:
                    raise UsageError(f"cannot write {args.emit_pyx}: {exc.strerror or exc}") from None
                shared = ", ".join(name for name, _ in gen.includes)
                print(f"{args.spec}: generated Cython written to {args.emit_pyx} "
                      f"({len(gen.source.splitlines())} lines; it includes {shared}, written next to it)")
            if not args.build:
                return 0
        t0 = time.perf_counter()
        if cache is None:
            cache = check_output_dir(kernel_cache_dir())
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


def _check_emit_pyx(path: str) -> None:
    """Refuse an ``--emit-pyx`` path that is not a ``.pyx`` file, before any work: a slip such as
    ``--emit-pyx arc.ts`` would replace a spec with generated Cython, and a name of one of the
    shared include files (``_api.pxi``, ...), which are written next to the ``.pyx``, would
    leave a kernel that includes itself."""
    import os

    from ..kernels.codegen import INCLUDES

    name = os.path.basename(path)
    if name in INCLUDES:
        raise UsageError(f"--emit-pyx {path}: {name} is a shared include file, written next to the .pyx "
                         "(the kernel would include itself); choose a name ending in .pyx")
    if not name.endswith(".pyx") or name == ".pyx":
        raise UsageError(f"--emit-pyx {path}: the generated Cython must go to a file ending in .pyx "
                         "(this keeps a spec or another file from being overwritten by mistake)")
