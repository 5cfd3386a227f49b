"""The `tsdsl` command line: thin wrappers that parse arguments and call the library.

User mistakes print a located message and exit non-zero, never a traceback
(``--debug`` shows one).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Optional, Sequence

from . import __version__
from .check import load_system
from .errors import TsdslError, UsageError
from .interp import Interpreter
from .show import render_json, render_text
from .trace import TraceError, render_steps, run_trace

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
        count = f"{len(system.actions)} actions" if not system.unbounded else "actions grow with the sentence"
        print(f"{path}: OK ({system.style}, {count})")
    return status


def cmd_show(args) -> int:
    system = load_system(args.spec, parse_overrides(args.set))
    print(render_json(system, args.n) if args.json else render_text(system, args.n))
    return 0


def cmd_trace(args) -> int:
    system = load_system(args.spec, parse_overrides(args.set))
    it = Interpreter(system)
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

    sp = sub.add_parser("trace", help="run an action sequence on a sentence and print the step table")
    sp.add_argument("spec")
    sp.add_argument("--words", help='the sentence, e.g. "Book the flight through Houston"')
    sp.add_argument("--n", type=int, help="a sentence of N placeholder words (when --words is not given)")
    sp.add_argument("--actions", help='actions separated by spaces or commas; "NAME:label" for a label')
    sp.add_argument("--actions-file", help="read the actions from a file")
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
