"""What a plain ``pip install .`` ships: every subpackage of ``tsdsl`` is declared in
pyproject.toml (setuptools is given an explicit list, so a new subpackage left out of it
would install without it and fail only on a user's machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_declared():
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "tsdsl").rglob("__init__.py")}
    assert found <= declared, f"subpackages missing from pyproject.toml: {sorted(found - declared)}"
