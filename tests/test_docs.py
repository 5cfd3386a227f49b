"""The command examples in docs/language.md and README.md are real.

Every fenced block that starts with ``$ tsdsl ...`` and shows its whole output (no
``...`` line) is run through ``tsdsl.cli.main`` from the repository root; stdout
followed by stderr must equal the lines shown.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path

import pytest

from tsdsl.cli import main

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "docs" / "language.md", REPO / "README.md"]


def examples():
    out = []
    for doc in DOCS:
        if not doc.is_file():
            continue
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"^[ \t]*```[a-z]*\n(.*?)^[ \t]*```", text, re.S | re.M):
            block = textwrap.dedent(block)
            if not block.startswith("$ tsdsl ") or "\n...\n" in block:
                continue
            lines = block.rstrip("\n").splitlines()
            command = lines.pop(0)
            while command.endswith("\\"):
                command = command[:-1] + " " + lines.pop(0).strip()
            out.append(pytest.param(command[2:], lines, id=f"{doc.name}:{command[8:50]}"))
    return out


@pytest.mark.parametrize("command, expected", examples())
def test_doc_example(command, expected, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    argv = shlex.split(command)
    assert argv[0] == "tsdsl"
    main(argv[1:])
    out, err = capsys.readouterr()
    assert (out + err).splitlines() == expected


def python_examples():
    out = []
    for doc in DOCS:
        if doc.is_file():
            for k, block in enumerate(re.findall(r"^```python\n(.*?)^```", doc.read_text(encoding="utf-8"),
                                                 re.S | re.M)):
                out.append(pytest.param(block, id=f"{doc.name}:python-{k}"))
    return out


@pytest.mark.parametrize("code", python_examples())
def test_doc_python_example(code, capsys, monkeypatch):
    """Python blocks run; a ``print(...)  # expected`` line prints what its comment says."""
    monkeypatch.chdir(REPO)
    exec(compile(code, "<doc>", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    expected = [line.split("#", 1)[1].strip() for line in code.splitlines()
                if line.startswith("print(") and "#" in line]
    assert printed == expected
