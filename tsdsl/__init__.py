"""tsdsl: a declarative language and toolkit for transition-based dependency parsing.

A transition system is a short ``.ts`` spec.  :func:`load_system` checks it and
lowers it to the IR; :class:`~tsdsl.interp.Interpreter` runs it.
"""

from .lang import check_spec, load_system, load_system_text
from .errors import SpecError, SpecSemanticError, SpecSyntaxError, TsdslError, UsageError
from .interp import Config, Interpreter
from .treebank.trees import Tree
from ._version import __version__


def __getattr__(name: str):
    """``tsdsl.load_parser`` without importing numpy and the kernels on ``import tsdsl``."""
    if name == "load_parser":
        from .learn.parser import load_parser

        return load_parser
    raise AttributeError(f"module 'tsdsl' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"load_parser"})


__all__ = [
    "Config", "Interpreter", "load_parser", "SpecError", "SpecSemanticError", "SpecSyntaxError", "Tree", "TsdslError",
    "UsageError", "__version__", "check_spec", "load_system", "load_system_text",
]
