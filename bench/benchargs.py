"""What every bench script does alike with its arguments: where the table goes, and what
happens when the data is missing.

Where the table goes.  A run prints its table; ``--out FILE`` writes it to FILE, and
``--write-docs`` writes it into the published file under ``docs/`` (``docs/results.md``, ...).
Writing into the documentation is opt-in, as in ``bench/kernels.py``: a quick trial run (few
epochs, one treebank) must not replace the committed figures.

Missing data.  The shared data (``../shared/data/ud``, ``$TSDSL_UD_DATA``) is not part of the
repository: when the default data is simply absent a script says ``skipped: ...`` and exits 0
(there is nothing to measure here, which is no error).  A path or treebank the user named
(``--data FILE``, ``--treebanks X``) that does not exist is a mistake: the same message on
stderr, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable, Optional

ROOT = Path(__file__).resolve().parent.parent


class Given(argparse.Action):
    """``store``, and remember that the user gave the option (``given(args, dest)``), so that
    a default can keep its ``%(default)s`` in the help while a named path is told apart."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        named = set(getattr(namespace, "given_options", ()) or ())
        named.add(self.dest)
        namespace.given_options = named


def given(args: argparse.Namespace, *dests: str) -> bool:
    """Whether the user gave any of the options ``dests`` (declared with ``action=Given``)."""
    return any(d in (getattr(args, "given_options", None) or ()) for d in dests)


def no_data(args: argparse.Namespace, dests: Iterable[str], message: str) -> int:
    """The exit code for missing data, after saying so: 2 (on stderr) when the user named it
    with one of the options ``dests``, else 0 after ``skipped: message`` (the default shared
    data is absent: nothing to measure)."""
    if given(args, *dests):
        print(f"bench/{Path(sys.argv[0]).name}: {message}", file=sys.stderr)
        return 2
    print(f"skipped: {message}")
    return 0


def add_output_options(ap: argparse.ArgumentParser, docs_file: Path, what: str = "the table") -> None:
    """``--out FILE`` and ``--write-docs`` (into ``docs_file``); without either, ``what`` is
    printed only."""
    rel = docs_file.relative_to(ROOT) if docs_file.is_relative_to(ROOT) else docs_file
    ap.add_argument("--out", type=Path, metavar="FILE",
                    help=f"write {what} to FILE (default: none, print it; --write-docs writes {rel})")
    ap.add_argument("--write-docs", action="store_true",
                    help=f"write {what} into {rel}, the published figures (default: off, so that a trial run "
                         "leaves the docs alone)")


def output_path(ap: argparse.ArgumentParser, args: argparse.Namespace, docs_file: Path) -> Optional[Path]:
    """Where the table goes: ``docs_file`` with ``--write-docs``, ``--out FILE``, or None
    (print only).  Both options at once is refused (``ap.error``: exit 2)."""
    if args.write_docs and args.out is not None:
        ap.error("--out and --write-docs both say where the table goes: give one")
    return docs_file if args.write_docs else args.out


def produced_by(script: str, args: argparse.Namespace, *extra: str) -> str:
    """``python bench/learn.py --write-docs``: the command that regenerates the file, for the
    "Produced by" line of a generated table (``extra``: options that belong in it); a table
    written with ``--out FILE`` names FILE (relative to the repository when inside it)."""
    where = ["--write-docs"] if args.write_docs else []
    out = getattr(args, "out", None)
    if not where and out is not None:
        path = Path(out).resolve()
        where = ["--out", str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else out)]
    return " ".join(["python", f"bench/{script}", *extra, *where])
