"""tsdsl: a declarative language and toolkit for transition-based dependency parsing.

A transition system is a short ``.ts`` spec.  :func:`load_system` checks it and
lowers it to the IR; :class:`~tsdsl.interp.Interpreter` runs it.
"""

from .check import check_spec, load_system, load_system_text
from .errors import SpecError, SpecSemanticError, SpecSyntaxError, TsdslError, UsageError
from .interp import Config, Interpreter
from .trees import Tree

__version__ = "0.1.0"

__all__ = [
    "Config", "Interpreter", "SpecError", "SpecSemanticError", "SpecSyntaxError", "Tree", "TsdslError",
    "UsageError", "__version__", "check_spec", "load_system", "load_system_text",
]
