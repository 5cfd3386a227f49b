"""Every example in the documentation is executed.

Each fenced block of ``docs/*.md`` and ``README.md`` declares its kind in its info string,
and each kind is checked:

- ``console``: ``$ tsdsl ...`` commands (a trailing ``\\`` continues a command), each
  followed by its output.  The command runs in process through ``tsdsl.cli.main``, in a
  scratch directory holding the page's example files (below) beside ``systems/``,
  ``docs/`` and ``tests/data/``; stdout then stderr must equal the lines shown, where a line ``...`` stands for
  any number of lines and ``...`` within a line for any text (a running time, a path).  The
  notice of a kernel built on first use is left out of stderr: whether it appears depends
  on the kernel cache, not on the page.
- ``ts``: spec text.  ``ts file=NAME`` is an example file of its page, written to the
  scratch directory for the page's console blocks to use (``ts file=NAME error``: a file
  meant to fail, whose errors a console block shows).  A ``ts`` block that starts with
  ``system`` must load; any other ``ts`` block quotes lines of the shipped specs, and each
  of its lines must occur in one of ``systems/**/*.ts`` (comments and spacing aside; a
  ``...`` line marks lines left out, ``...`` within a line a part left out).
- ``python``: executed, from the repository root.
- Options of a ``console`` block: ``slow`` (a measurement taking minutes: run only with
  ``TSDSL_DOCS_SLOW=1``) and ``needs=PATH`` (run only where PATH, relative to the repository
  root, exists: the shared treebanks, which CI does not have).  Both skip with the reason.
- ``text`` (notation, formats, excerpts of a paper), ``bash`` (shell set-up) and ``yaml``
  (feature-file excerpts, loaded by tests/test_features.py) are not run.

A block without a kind fails, so a new example cannot go unchecked by accident.
"""

from __future__ import annotations

import os
import re
import shlex
import textwrap
from pathlib import Path

import pytest

from tsdsl.cli import main
from tsdsl.errors import SpecError

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
KINDS = ("console", "ts", "python", "text", "bash", "yaml")
BUILD_NOTICE = re.compile(r"tsdsl: building the compiled .* \(first use; cached afterwards in .*\) \.\.\.$")
FENCE = re.compile(r"^([ \t]*)```([^\n`]*)\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)


def load_spec_text(text: str, file: str):
    """The language front end's entry point for spec text (one place to repoint)."""
    from tsdsl.lang import load_system_text

    return load_system_text(text, file)


def blocks(page: Path) -> list[tuple[int, str, list[str], str]]:
    """(line, kind, options, body) of every fenced block of a page."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        info = m.group(2).split()
        line = text.count("\n", 0, m.start()) + 1
        out.append((line, info[0] if info else "", info[1:], textwrap.dedent(m.group(3))))
    return out


def _params(kind: str):
    out = []
    for page in PAGES:
        for line, k, options, body in blocks(page):
            if k == kind:
                out.append(pytest.param(page, line, options, body, id=f"{page.name}:{line}"))
    return out


def test_every_block_declares_a_known_kind():
    bad = [f"{page.name}:{line}: ```{kind}" for page in PAGES for line, kind, _, _ in blocks(page)
           if kind not in KINDS]
    assert not bad, "fenced blocks without a known kind (" + ", ".join(KINDS) + "):\n" + "\n".join(bad)


# ---- console blocks ----------------------------------------------------------------------


def commands(body: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of a console block."""
    out: list[tuple[str, list[str]]] = []
    lines = body.rstrip("\n").split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        if not line.startswith("$ "):
            raise AssertionError(f"console block: output before any command: {line!r}")
        command = line[2:]
        while command.endswith("\\"):
            k += 1
            command = command[:-1] + " " + lines[k].strip()
        k += 1
        expected = []
        while k < len(lines) and not lines[k].startswith("$ "):
            expected.append(lines[k])
            k += 1
        out.append((command, expected))
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected``: a ``...`` line matches any number of lines, and
    ``...`` within a line any text."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and _line_matches(expected[0], actual[0]) and matches(expected[1:], actual[1:])


def _line_matches(expected: str, actual: str) -> bool:
    if "..." not in expected:
        return expected == actual
    return re.fullmatch(".*".join(map(re.escape, expected.split("..."))), actual) is not None


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A directory like the repository root (systems/, docs/, tests/data/) for a page's examples."""
    for name in ("systems", "docs"):
        os.symlink(REPO / name, tmp_path / name)
    (tmp_path / "tests").mkdir()
    os.symlink(REPO / "tests" / "data", tmp_path / "tests" / "data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")  # argparse help wraps at the terminal width
    return tmp_path


def _write_page_files(page: Path, where: Path) -> None:
    for _, kind, options, body in blocks(page):
        for opt in options:
            if kind == "ts" and opt.startswith("file="):
                (where / opt[5:]).write_text(body, encoding="utf-8")


@pytest.mark.parametrize("page, line, options, body", _params("console"))
def test_console_example(page, line, options, body, scratch, capsys, monkeypatch):
    if "slow" in options and os.environ.get("TSDSL_DOCS_SLOW") != "1":
        pytest.skip("a measurement that takes minutes: set TSDSL_DOCS_SLOW=1 to run it")
    for need in (o[6:] for o in options if o.startswith("needs=")):
        if not (REPO / need).exists():
            pytest.skip(f"needs {need}, which is absent here")
        monkeypatch.chdir(REPO)  # its paths are relative to the repository root
    _write_page_files(page, scratch)
    for command, expected in commands(body):
        argv = shlex.split(command)
        assert argv[0] == "tsdsl", f"only tsdsl commands run: {command}"
        main(argv[1:])
        out, err = capsys.readouterr()
        # a kernel built on first use is announced (a cold cache), a cached one is not: the
        # examples show neither
        err = "".join(line for line in err.splitlines(keepends=True) if not BUILD_NOTICE.match(line))
        actual = (out + err).rstrip("\n").split("\n") if (out + err) else []
        assert matches(expected, actual), f"$ {command}\n--- expected\n" + "\n".join(expected) + \
            "\n--- got\n" + "\n".join(actual)


def test_wildcard_matching():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and matches(["a", "..."], ["a"])
    assert not matches(["a", "...", "d"], ["a", "b"]) and not matches(["a"], ["a", "b"])
    assert matches(["x (...) y"], ["x (3 s) y"]) and not matches(["x (...) y"], ["x (3 s) z"])


# ---- spec blocks ----------------------------------------------------------------------------


def _shipped_lines() -> set[str]:
    out = set()
    for spec in (REPO / "systems").rglob("*.ts"):
        for line in spec.read_text(encoding="utf-8").split("\n"):
            norm = _normalise(line)
            if norm:
                out.add(norm)
    return out


def _normalise(line: str) -> str:
    """A spec line without its comment, spacing collapsed."""
    quoted = False
    for k, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            line = line[:k]
            break
    return " ".join(line.split())


@pytest.mark.parametrize("page, line, options, body", _params("ts"))
def test_spec_example(page, line, options, body, tmp_path):
    named = [o[5:] for o in options if o.startswith("file=")]
    if "error" in options:
        with pytest.raises(SpecError):
            load_spec_text(body, str(tmp_path / (named[0] if named else "example.ts")))
        return
    if body.lstrip().startswith("system"):
        # extends resolve beside the shipped specs
        load_spec_text(body, str(REPO / "systems" / (named[0] if named else "example.ts")))
        return
    assert not named, "an example file must be a whole spec (starting with `system`)"
    shipped = _shipped_lines()
    missing = [l for l in body.split("\n") if _normalise(l) not in ("", "...")
               and not any(_line_matches(_normalise(l), line) for line in shipped)]
    assert not missing, "lines quoted from no shipped spec (write a whole spec, or quote one):\n" + "\n".join(missing)


# ---- python blocks ----------------------------------------------------------------------------


@pytest.mark.parametrize("page, line, options, body", _params("python"))
def test_python_example(page, line, options, body, monkeypatch):
    monkeypatch.chdir(REPO)
    exec(compile(body, f"{page.name}:{line}", "exec"), {"__name__": "__doc_example__"})
