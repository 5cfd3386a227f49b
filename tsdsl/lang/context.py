"""The shared lowering context: the merged spec, where errors go, parameter values,
flags and list names.  Every lowering module (guards, patterns, rules, control
parameters, oracles) takes one :class:`Context` and reports through it, so none of them
imports another to find these facts."""

from __future__ import annotations

from typing import Optional

from ..errors import DiagnosticSink, Span, UsageError
from . import codes
from . import syntax as S
from .chain import Merged
from .hints import close_names
from .style import spec_style


class Context:
    """One spec being lowered: its merged statements and everything found so far."""

    def __init__(self, m: Merged, sink: DiagnosticSink, texts: dict[str, str], overrides: dict):
        self.m = m
        self.sink = sink
        self.texts = texts
        self.overrides = overrides
        self.env: dict[str, Optional[int]] = {}  # parameter values (None is inf)
        self.setting_values: dict[str, Optional[int]] = {}  # capacity, distance, start
        self.token_flags = {n: f for n, f in m.flags.items() if f.index is not None}
        self.global_flags = {n: f for n, f in m.flags.items() if f.index is None}
        self.style = spec_style(m)  # "cp" or "rewrite"

    def err(self, code: str, message: str, span: Span) -> None:
        """Report a problem (collected; all are raised together at the end)."""
        self.sink.error(code, message, span)

    def eval_int(self, e: S.Expr) -> Optional[int]:
        """Evaluate an integer expression; ``None`` stands for infinity."""
        if isinstance(e, S.IntLit):
            return e.value
        if isinstance(e, S.InfLit):
            return None
        if isinstance(e, S.ParamRef):
            if e.name in self.env:
                return self.env[e.name]
            self.err(codes.UNKNOWN_PARAMETER, f"unknown parameter {e.name!r}" + _known(self.env), e.span)
            return 0
        if isinstance(e, S.GCall):
            self.err(codes.FUNCTION, f"{e.name}(...) is not a number here", e.span)
            return 0
        a, b = self.eval_int(e.left), self.eval_int(e.right)
        if a is None or b is None:
            if e.op == "-" and b is None:
                self.err(codes.BAD_VALUE, "cannot subtract inf", e.span)
                return 0
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b

    def read_params(self) -> None:
        """Parameter values: overrides from the command line, else the spec's; then the settings
        (capacity, distance, start), which may use them."""
        alias = {"capacity": "K", "distance": "D"}
        ov = {alias.get(k, k): v for k, v in self.overrides.items()}
        known = set(self.m.params) | ({"K", "D", "start"} if self.style == "cp" else set())
        unknown = sorted(k for k in ov if k not in known)
        if unknown:
            raise UsageError(
                f"--set: unknown parameter {unknown[0]!r} for {self.m.name}; "
                + (f"known: {', '.join(sorted(known))}" if known else "this system has no parameters")
            )
        for name, p in self.m.params.items():
            self.env[name] = ov[name] if name in ov else self.eval_int(p.value)
        self.setting_values: dict[str, Optional[int]] = {}
        for key, short in (("capacity", "K"), ("distance", "D"), ("start", "start")):
            st = self.m.singles.get(key)
            if short in ov and short not in self.m.params:
                self.setting_values[key] = ov[short]
            elif st is not None:
                before = len(self.sink.items)
                value = self.eval_int(st.value)
                if len(self.sink.items) == before:  # else already reported: no "K must be >= 1" cascade
                    self.setting_values[key] = value
            # K and D may be used by the settings that follow (distance K - 1) and by guards
            if short in ("K", "D") and short not in self.env and key in self.setting_values:
                self.env[short] = self.setting_values[key]

    def unknown_flag(self, name: str, span: Span, indexed: bool) -> None:
        """Report a flag used in a way its declaration does not allow."""
        if indexed and name in self.global_flags:
            self.err(codes.FLAG, f"{name!r} is a global flag; write it without [token]", span)
        elif not indexed and name in self.token_flags:
            self.err(codes.FLAG, f"{name!r} is a per-token flag; write {name}[x]", span)
        else:
            decl = f"flag {name}[token]" if indexed else f"flag {name}"
            near = close_names(name, self.token_flags if indexed else self.global_flags)
            self.err(codes.FLAG, f"undeclared flag {name!r}{near} (declare it with `{decl}`)", span)

    def list_arg(self, call: S.GCall) -> str:
        """The list named by a one-argument function call (``len(σ)``), checked."""
        name, span = call.args[0]
        known = self.known_lists()
        if name not in known:
            self.err(codes.LIST_SHAPE, f"unknown list {name!r}; the lists are {', '.join(known)}", span)
        return name

    def known_lists(self) -> tuple[str, ...]:
        """The list names a guard may use: O and U for control parameters."""
        if self.style == "cp":
            return ("O", "U")
        return self.list_names()

    def list_names(self) -> tuple[str, ...]:
        """The declared lists of a rewrite-rule system (σ, β when none are declared)."""
        st = self.m.singles.get("lists")
        if st is None:
            return ("sigma", "beta")
        seen = set()
        for name, span in st.names:
            if name in seen:
                self.err(codes.TWICE, f"list {name!r} is declared twice", span)
            seen.add(name)
        if len(st.names) < 1:
            self.err(codes.LIST_SHAPE, "declare at least one list", st.span)
        return tuple(n for n, _ in st.names)


def _known(env: dict) -> str:
    return f"; known: {', '.join(sorted(env))}" if env else "; no parameters are declared"
