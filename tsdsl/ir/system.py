"""A checked, lowered transition system: the root record of the IR."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .family import instantiate
from .nodes import Action, Family, Initial, ListDecl, Oracle, Terminal

@dataclass(frozen=True)
class System:
    """A checked, lowered transition system (see module docstring)."""

    name: str
    title: str
    cite: str
    produces: str
    covers: str
    root: str  # "left" | "right" | "none"
    lists: tuple[ListDecl, ...]
    token_flags: tuple[tuple[str, bool], ...]
    global_flags: tuple[tuple[str, bool], ...]
    multihead: bool
    initial: Initial
    terminal: Terminal
    attach_headless_to_root: bool
    params: tuple[tuple[str, Optional[int]], ...]
    source_file: str
    source_hash: str
    style: str  # "control-parameters" | "rewrite"
    settings: tuple[tuple[str, object], ...] = ()
    claim: str = ""
    oracles: tuple[Oracle, ...] = ()
    fixed_actions: Optional[tuple[Action, ...]] = None
    families: tuple[Family, ...] = ()
    sources: tuple[str, ...] = ()

    @property
    def unbounded(self) -> bool:
        """True when the action set grows with the sentence (capacity ``inf``): the actions
        are ``families``, instantiated per sentence length."""
        return self.fixed_actions is None

    def actions_for(self, n_tokens: int) -> tuple[Action, ...]:
        """The concrete actions for a configuration with ``n_tokens`` tokens (root included)."""
        if self.fixed_actions is not None:
            return self.fixed_actions
        return instantiate(self.families, max(n_tokens, 1))

    @property
    def actions(self) -> tuple[Action, ...]:
        if self.fixed_actions is None:
            raise ValueError(f"{self.name}: capacity is unbounded; use actions_for(n)")
        return self.fixed_actions

    def list_index(self, name: str) -> int:
        for k, decl in enumerate(self.lists):
            if decl.name == name:
                return k
        raise KeyError(name)

    def is_monotonic(self, n_tokens: int = 8) -> bool:
        """True when no action can change or remove an existing arc."""
        return not self.nonmonotonic_actions(n_tokens)

    def nonmonotonic_actions(self, n_tokens: int = 8) -> set[str]:
        """The names of the actions that can change or remove an existing arc (``overwrite``,
        ``break cycle``)."""
        return {a.name for a in self.actions_for(n_tokens)
                if any(op.overwrite or op.break_cycle for c in a.cases for op in c.arcs)}

    @property
    def param_dict(self) -> dict[str, Optional[int]]:
        return dict(self.params)

    @property
    def headless_rule(self) -> Optional[str]:
        """Which headless words the end-of-parse rule attaches to the root: ``"all"`` (with
        ``finally attach headless to root``), ``"single"`` (a rootless system: the headless
        word when it is the only one), or None."""
        if self.attach_headless_to_root:
            return "all"
        return "single" if self.root == "none" else None

    def finish(self, heads: list, labels: list, root_label: str = "root") -> None:
        """Apply the system's end-of-parse rule to an output (CoNLL-U numbering, None or a
        negative head for none), in place: the words :attr:`headless_rule` names get head 0
        and ``root_label``."""
        headless = [k for k, h in enumerate(heads) if h is None or h < 0]
        rule = self.headless_rule
        if rule == "all" or (rule == "single" and len(headless) == 1):
            for k in headless:
                heads[k], labels[k] = 0, root_label
