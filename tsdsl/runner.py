"""The one API every runner of a transition system offers.

The reference interpreter (:class:`tsdsl.interp.Interpreter`) and a compiled kernel
(:class:`tsdsl.kernels.compiled.CompiledSystem`) both run an :class:`ir.System` one
configuration at a time through these methods, so that the verifier, the oracle checker,
the tracer and the differential tests can take either.  A configuration is opaque: an
interpreter ``Config`` or a kernel state.  Action names are the IR's (``LEFT-ARC(2,1)``),
optionally with an inline label (``LEFT-ARC:det``).  ``tests/test_runner.py`` checks that
both classes satisfy the protocol with the same signatures.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, runtime_checkable

from . import ir
from .treebank.trees import Tree


@runtime_checkable
class Runner(Protocol):
    """Runs one :class:`ir.System`: states are created, copied, advanced and read."""

    system: ir.System

    def initial(self, n: int) -> Any:
        """The initial configuration for a sentence of ``n`` words."""

    def copy(self, c: Any) -> Any:
        """An independent copy of a configuration."""

    def is_terminal(self, c: Any) -> bool:
        """Whether the configuration is terminal (no action applies any more)."""

    def legal(self, c: Any) -> list[str]:
        """Names of the actions that may apply now, in the system's order."""

    def is_legal(self, c: Any, name: str) -> bool:
        """Whether action ``name`` may apply now."""

    def apply(self, c: Any, name: str, label: Optional[str] = None) -> None:
        """Apply action ``name`` (or ``"NAME:label"``) in place; ``UsageError`` if not legal."""

    def output(self, c: Any) -> Tree:
        """The tree built so far, in CoNLL-U numbering, after the system's end-of-parse rule."""

    def snapshot(self, c: Any) -> dict:
        """A comparable view: lists in reading order, arcs, token and global flags."""
