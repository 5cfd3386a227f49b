"""The `tsdsl` command line: thin wrappers that parse arguments and call the library.

Each command is a :class:`~tsdsl.cli.base.Command` subclass in one of the modules below
(spec commands, checks by search, parsers, pictures); adding a command is adding one class.  User
mistakes print a located message and exit non-zero, never a traceback (``--debug`` shows
one).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Optional, Sequence

from .._version import __version__
from ..errors import KernelBuildError, TsdslError, UsageError
from ..kernels.build import BUILD_NOTICES
from .base import COMMANDS, CommandParser, parse_overrides
from . import specs, checks, parsers, pictures  # noqa: F401, E402  (defining the commands registers them, in this order)

__all__ = ["build_parser", "main", "parse_overrides"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tsdsl", description="Transition systems for dependency parsing as specs.")
    p.add_argument("--version", action="version", version=f"tsdsl {__version__}")
    p.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = p.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    for cls in COMMANDS:
        command = cls()
        sp = sub.add_parser(command.name, help=command.help)
        command.configure(sp)
        sp.set_defaults(func=command.run)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    argv = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    args = parser.parse_args(argv)
    args.argv = argv  # the command line as given: reports that say how they were made quote it
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING, format="%(message)s")
    notice = _build_notice(args)
    try:
        return args.func(args)
    except TsdslError as exc:
        if args.debug:
            raise
        print(error_message(exc), file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # e.g. `tsdsl show ... | head`; before OSError, its base class
        sys.stderr.close()
        return 0
    except OSError as exc:
        if args.debug:
            raise
        print(f"tsdsl: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 1
    except MemoryError as exc:  # a kernel or numpy that could not allocate: say so, no traceback
        if args.debug:
            raise
        what = f" ({exc})" if str(exc) else ""
        print(f"tsdsl {args.command}: out of memory{what}; a smaller input (fewer or shorter sentences, "
              "a narrower beam, a lower --max-n or --hash-bits) may fit", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        if notice is not None:
            BUILD_NOTICES.remove(notice)


INTERPRETER_HINT = ("(`tsdsl verify`, `coverage`, `check-oracle` and `trace` still work without it, through the "
                    "interpreter)")
"""Said under a kernel build failure: a user without a working C compiler can still check
and trace specs."""


def error_message(exc: TsdslError) -> str:
    """What the command line prints for an error: located spec errors as they are (they begin
    with their file), the others after ``tsdsl:``; a kernel that cannot be built (no C
    compiler, or one that fails) says what still works without it."""
    if isinstance(exc, KernelBuildError):
        return f"tsdsl: {exc}\n{INTERPRETER_HINT}"
    return f"tsdsl: {exc}" if isinstance(exc, UsageError) else str(exc)


def _build_notice(args):
    """Say on stderr when a kernel is compiled (not when it comes from the cache), unless
    --quiet: a first run of a spec waits seconds to a minute for it, which would otherwise pass
    in silence, and a log or a pipe (not only a terminal) should show where the time went.
    Returns the hook registered in BUILD_NOTICES (None: none)."""
    if getattr(args, "quiet", False):
        return None
    notice = lambda message: print(f"tsdsl: {message} ...", file=sys.stderr, flush=True)
    BUILD_NOTICES.append(notice)
    return notice
