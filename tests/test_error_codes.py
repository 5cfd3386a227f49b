"""The error catalogue (:mod:`tsdsl.lang.codes`) is the only place codes are written.

Every ``"TS###"`` in the package source is a :class:`~tsdsl.lang.codes.Code` declared in
the catalogue; a bare literal anywhere else (a new error raised without a catalogue entry)
fails here.  That every code is triggered by a malformed spec is checked in
``tests/test_spec_errors.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tsdsl.lang import codes
from tsdsl.lang.codes import CODES, Code

PACKAGE = Path(__file__).resolve().parent.parent / "tsdsl"
CODE_TEXT = re.compile(r"TS\d{3}")


def _code_literals(path: Path) -> list[tuple[int, str]]:
    """Codes in string constants, docstrings (which may name a code) excepted."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out += [(node.lineno, m) for m in CODE_TEXT.findall(node.value)]
    return out


def test_no_code_is_written_outside_the_catalogue():
    stray = [f"{p.relative_to(PACKAGE.parent)}:{line}: {code}"
             for p in sorted(PACKAGE.rglob("*.py")) if p.name != "codes.py"
             for line, code in _code_literals(p)]
    assert not stray, "error codes written outside tsdsl/lang/codes.py:\n" + "\n".join(stray)


def test_catalogue_entries_are_named_codes_with_titles():
    named = {v for v in vars(codes).values() if isinstance(v, Code)}
    assert named == set(CODES.values())  # every entry has a name to raise it by
    for code in CODES.values():
        assert CODE_TEXT.fullmatch(code.code) and code.title and code == code.code


def test_a_code_keeps_its_title_through_pickling():
    import pickle

    again = pickle.loads(pickle.dumps(codes.UNBOUND))
    assert again == "TS210" and again.title == codes.UNBOUND.title


def test_the_error_page_lists_every_code_of_the_catalogue():
    page = (PACKAGE.parent / "docs" / "errors.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(TS\d{3})` \|", page, re.M)
    assert sorted(listed) == sorted(CODES) and len(listed) == len(set(listed))
