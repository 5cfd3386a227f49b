"""What every command shares: the :class:`Command` base and registry, ``--set`` parsing,
and small argument helpers (among them the ``type=`` checks that hold every number option to
its valid range, so that a bad number is an argparse usage error, exit 2, before any work).

A command is one :class:`Command` subclass (name, help, ``configure`` adding its
arguments, ``run`` doing the work); defining the class registers it, in definition order.
"""

from __future__ import annotations

import argparse
import math
from typing import Callable, ClassVar, Optional, Sequence

from ..errors import UsageError

COMMANDS: list[type["Command"]] = []


class Command:
    """One ``tsdsl`` subcommand.  Subclasses set ``name`` and ``help`` and define
    ``configure(sp)`` and ``run(args) -> exit status``."""

    name: ClassVar[str]
    help: ClassVar[str]

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if any(c.name == cls.name for c in COMMANDS):
            raise TypeError(f"two commands named {cls.name!r}")
        COMMANDS.append(cls)

    def configure(self, sp: argparse.ArgumentParser) -> None:
        raise NotImplementedError

    def run(self, args: argparse.Namespace) -> int:
        raise NotImplementedError


class CommandParser(argparse.ArgumentParser):
    """The parser of one subcommand: its positionals may come after its options
    (``parse MODEL --text t.txt IN.conllu`` reads IN.conllu as the input, and parse then says
    that IN.conllu and --text do not go together), and anything left over is reported by this
    parser, with the subcommand's usage, not by the top-level one with the list of commands.

    argparse matches an optional positional (``nargs="?"``) as soon as it sees the first
    positional, so an input after an option was "unrecognized" and the top-level parser, which
    collects leftovers, printed its own usage; intermixed parsing collects positionals wherever
    they stand.
    """

    _inside = False  # parse_known_intermixed_args calls parse_known_args itself

    def parse_known_args(self, args=None, namespace=None):
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            namespace, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False
        if extras:
            self.error("unrecognized arguments: " + " ".join(extras))
        return namespace, extras


SPEC_HELP = "a .ts file, or the name of a packaged system (`tsdsl systems` lists them)"


def command_line(args: argparse.Namespace) -> str:
    """``tsdsl verify --report FILE --max-n 5 SPEC``: the command as the user typed it (every
    option, shell-quoted), for files that say how they were generated, so that running the
    line again remakes them.  ``args.argv`` is set by :func:`tsdsl.cli.main`; a namespace built
    elsewhere falls back to the command's name."""
    import shlex

    argv = getattr(args, "argv", None)
    return "tsdsl " + (shlex.join(argv) if argv is not None else str(getattr(args, "command", "")))


def spec_argument(sp: argparse.ArgumentParser, *, many: bool = False) -> None:
    """The positional SPEC (or SPEC...) of commands that load specs."""
    if many:
        sp.add_argument("specs", nargs="+", metavar="SPEC", help=SPEC_HELP + "; one or more")
    else:
        sp.add_argument("spec", metavar="SPEC", help=SPEC_HELP)


def with_set(sp: argparse.ArgumentParser) -> None:
    """The ``--set NAME=VALUE`` option of commands that load a spec."""
    sp.add_argument("--set", action="append", metavar="NAME=VALUE",
                    help="override a parameter, e.g. --set K=4 (repeatable; inf allowed; default: the "
                         "spec's own values)")


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


def at_least(minimum: int, *, maximum: Optional[int] = None,
             inf: bool = False) -> Callable[[str], Optional[int]]:
    """An argparse ``type=`` for an integer option of at least ``minimum`` (and at most
    ``maximum`` when given); with ``inf``, also ``inf`` (or ``none``) for no limit, read as None.

    Counts whose empty value would make a command check or compute nothing (sentences,
    configurations, examples, lengths) take ``at_least(1)``; 0 is let in only where it has a
    documented meaning (``draw --limit 0``: no limit); seeds take ``at_least(0)``.  The
    message names the bound, e.g. ``argument --seed: must be at least 0, got -5``.
    """

    def parse(text: str) -> Optional[int]:
        if inf and text.strip() in ("inf", "none"):
            return None
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer{' or inf' if inf else ''}, got {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bound = (f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}")
            raise argparse.ArgumentTypeError(f"must be {bound}{' or inf' if inf else ''}, got {value}")
        return value

    parse.__name__ = "integer"  # what argparse would call the type in its own messages
    return parse


def number_in(minimum: float, maximum: Optional[float] = None) -> Callable[[str], float]:
    """An argparse ``type=`` for a finite number of at least ``minimum`` (and at most
    ``maximum`` when given): a probability, a weight threshold.  ``inf`` and ``nan`` are
    refused as not finite (``must be a finite number at least 0, got inf``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < minimum or (maximum is not None and value > maximum):
            bound = (f"between {minimum:g} and {maximum:g}" if maximum is not None else f"at least {minimum:g}")
            finite = "" if math.isfinite(value) else "finite "  # `--prune inf` is "at least 0": say why not
            raise argparse.ArgumentTypeError(f"must be a {finite}number {bound}, got {text.strip()}")
        return value

    parse.__name__ = "number"
    return parse


def split_actions(text: str) -> list[str]:
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


def plural(n: int, noun: str, nouns: Optional[str] = None) -> str:
    """A count and its noun, singular for 1: ``plural(1, "sentence")`` is ``"1 sentence"``,
    ``plural(2, "sentence")`` ``"2 sentences"`` (``nouns``: an irregular plural).  For the
    counts in the commands' summaries, which a one-sentence input makes 1."""
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"
