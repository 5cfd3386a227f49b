"""What every command shares: the :class:`Command` base and registry, ``--set`` parsing,
and small argument helpers.

A command is one :class:`Command` subclass (name, help, ``configure`` adding its
arguments, ``run`` doing the work); defining the class registers it, in definition order.
"""

from __future__ import annotations

import argparse
from typing import ClassVar, Optional, Sequence

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


SPEC_HELP = "a .ts file, or the name of a packaged system (`tsdsl systems` lists them)"


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
