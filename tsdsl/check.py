"""Semantic checks and lowering: spec AST (with its `extends` chain) to IR.

Every problem is collected as a :class:`Diagnostic` with its location and all
are raised together in one :class:`SpecSemanticError`.  The lowering follows
the papers: control-parameter transitions (Bohnet et al. 2016) are instantiated
per index pair into rewrite cases over the lists ``O`` and ``U``; rewrite rules
are checked and translated directly.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from . import ir
from . import spec as S
from .errors import Diagnostic, DiagnosticSink, Span, SpecSemanticError, UsageError, source_line
from .parse import parse_file, parse_spec

ROOT_POSITIONS = ("left", "right", "none")
PERIPHERY_READINGS = ("active", "capacity")
CP_BASES = {
    "left_arc": "left", "←": "left", "<-": "left", "left-arc": "left",
    "right_arc": "right", "→": "right", "->": "right", "right-arc": "right",
    "reduce": "reduce", "−": "reduce", "–": "reduce", "-": "reduce",
    "shift": "shift", "+": "shift",
}
CP_KEYS = {"B": "B", "bottom_up": "B", "bottom-up": "B", "S": "S", "arc_shift": "S", "arc-shift": "S",
           "P": "P", "periphery": "P"}
TRUTH = {"true": True, "t": True, "false": False, "f": False}
PERIPHERIES = {"left": "left", "l": "left", "right": "right", "r": "right", "na": "na"}
ARC_OPTIONS = {"overwrite": "overwrite", "break_cycle": "break_cycle", "break-cycle": "break_cycle",
               "unlabeled": "unlabeled"}
TREE_CLASS_ALIASES = {"projective": "projective", "nonprojective": "nonprojective", "non-projective": "nonprojective",
                      "trees": "nonprojective", "dag": "dag", "projective-dag": "projective-dag", "any": "any"}
FUNCTIONS = ("has_head", "is_root", "empty", "len", "path", "arc")
MAX_CAPACITY = 64  # a finite K beyond this is rejected (K = inf instantiates per sentence instead)


# ---------------------------------------------------------------------------------
# loading and merging the extends chain
# ---------------------------------------------------------------------------------


@dataclass
class _Merged:
    """The statements in force after applying every `extends` (parents first)."""

    name: str = ""
    title: Optional[str] = None
    header_span: Span = field(default_factory=lambda: Span("<none>", 0, 0))
    singles: dict = field(default_factory=dict)  # key -> statement
    params: dict = field(default_factory=dict)  # name -> Param
    flags: dict = field(default_factory=dict)  # name -> FlagDecl
    transitions: dict = field(default_factory=dict)  # name -> CPTransition | RuleTransition
    oracles: dict = field(default_factory=dict)  # name -> [OracleDecl, rules...]
    texts: list = field(default_factory=list)
    files: list = field(default_factory=list)


_SINGLE_KEYS = {
    S.Cite: "cite", S.Claim: "claim", S.Produces: "produces", S.RootPos: "root", S.Periphery: "periphery",
    S.Multihead: "multihead", S.ListsDecl: "lists", S.Initial: "initial", S.Terminal: "terminal",
    S.Finally: "finally",
}


def _load_chain(spec: S.Spec, sink: DiagnosticSink, seen: tuple[str, ...] = ()) -> list[S.Spec]:
    """The spec and its ancestors, root ancestor first."""
    ext = [st for st in spec.statements if isinstance(st, S.Extends)]
    if len(ext) > 1:
        sink.error("TS224", "`extends` given more than once", ext[1].span)
    if not ext:
        return [spec]
    st = ext[0]
    base = Path(spec.file).parent if spec.file not in ("<spec>", "<string>") else Path.cwd()
    target = _resolve_extends(st.path, base)
    if target is None:
        sink.error("TS216", f"cannot find the extended spec {st.path!r}", st.span)
        return [spec]
    key = str(target.resolve())
    if key in seen or key == str(Path(spec.file).resolve()):
        sink.error("TS216", f"`extends` cycle through {st.path!r}", st.span)
        return [spec]
    parent = parse_file(target)
    return _load_chain(parent, sink, seen + (key,)) + [spec]


def _resolve_extends(name: str, base: Path) -> Optional[Path]:
    for cand in (base / name, base / f"{name}.ts", Path(name)):
        if _is_file(cand):
            return cand
    try:
        from importlib.resources import files

        packaged = files("tsdsl.systems").joinpath(name if name.endswith(".ts") else f"{name}.ts")
        if _is_file(packaged):
            return Path(str(packaged))
    except ModuleNotFoundError:
        pass
    return None


def _is_file(p) -> bool:
    """``p.is_file()``, false instead of an OSError (name too long, permission denied...)."""
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def _merge(chain: list[S.Spec], sink: DiagnosticSink) -> _Merged:
    m = _Merged()
    for spec in chain:
        sink.text = spec.text
        m.name, m.header_span = spec.name, spec.span
        m.title = spec.title if spec.title is not None else m.title
        m.texts.append(spec.text)
        m.files.append(spec.file)
        seen_here: dict[str, Span] = {}
        current_oracle: Optional[str] = None

        def once(key: str, span: Span) -> None:
            if key in seen_here:
                sink.error("TS200", f"{key} is declared twice in this file (first at line {seen_here[key].line})", span)
            seen_here[key] = span

        for st in spec.statements:
            if isinstance(st, S.Extends):
                continue
            if type(st) in _SINGLE_KEYS:
                key = _SINGLE_KEYS[type(st)]
                once(key, st.span)
                m.singles[key] = st
            elif isinstance(st, S.Setting):
                once(st.key, st.span)
                m.singles[st.key] = st
            elif isinstance(st, S.Param):
                once(f"parameter {st.name!r}", st.span)
                m.params[st.name] = st
            elif isinstance(st, S.FlagDecl):
                once(f"flag {st.name!r}", st.span)
                m.flags[st.name] = st
            elif isinstance(st, (S.CPTransition, S.RuleTransition)):
                once(f"transition {st.name!r}", st.span)
                m.transitions[st.name] = st
            elif isinstance(st, S.OracleDecl):
                once(f"oracle {st.name!r}", st.span)
                if current_oracle is None:  # a file that declares oracles replaces the inherited ones
                    m.oracles = {}
                m.oracles[st.name] = [st]
                current_oracle = st.name
            elif isinstance(st, (S.ReachRule, S.LossRule, S.PenaltyRule)):
                if current_oracle is None:
                    sink.error("TS230", "oracle rules must follow an `oracle NAME` line", st.span)
                else:
                    m.oracles[current_oracle].append(st)
            elif isinstance(st, S.Drop):
                if st.name in m.transitions:
                    del m.transitions[st.name]
                elif st.name in m.oracles:
                    del m.oracles[st.name]
                else:
                    sink.error("TS217", f"cannot drop {st.name!r}: no such transition or oracle", st.span)
    return m


# ---------------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------------


def load_system(path: str | Path, overrides: Optional[dict[str, int | None]] = None) -> ir.System:
    """Parse, check and lower the spec at ``path``.

    Args:
        path: a ``.ts`` file, or the stem of a packaged system such as ``"arc-eager"``.
        overrides: parameter values from the command line (``{"K": 4}``); ``None`` means inf.

    Raises:
        SpecSyntaxError, SpecSemanticError: the spec is wrong (all problems at once).
        UsageError: an override names an unknown parameter.
    """
    p = Path(path)
    if not _is_file(p):
        packaged = _resolve_extends(str(path), Path.cwd())
        if packaged is not None:
            p = packaged
    return check_spec(parse_file(p), overrides)


def load_system_text(text: str, file: str = "<string>", overrides=None) -> ir.System:
    """Like :func:`load_system` for spec text held in memory."""
    return check_spec(parse_spec(text, file), overrides)


def check_spec(spec: S.Spec, overrides: Optional[dict[str, int | None]] = None) -> ir.System:
    """Check an AST (and its ancestors) and lower it to the IR."""
    sink = DiagnosticSink(spec.text)
    chain = _load_chain(spec, sink)
    merged = _merge(chain, sink)
    sink.text = spec.text
    texts = {s.file: s.text for s in chain}
    lowerer = _Lowerer(merged, sink, texts, dict(overrides or {}))
    system = lowerer.lower()
    if sink.items:
        # locate each diagnostic's source line in the file it points at
        fixed = [
            Diagnostic(d.code, d.message, d.span, d.expected, source_line(texts.get(d.span.file, ""), d.span.line))
            for d in sink.items
        ]
        raise SpecSemanticError(fixed)
    return system


# ---------------------------------------------------------------------------------
# lowering
# ---------------------------------------------------------------------------------


class _Lowerer:
    def __init__(self, m: _Merged, sink: DiagnosticSink, texts: dict[str, str], overrides: dict):
        self.m = m
        self.sink = sink
        self.texts = texts
        self.overrides = overrides
        self.env: dict[str, Optional[int]] = {}

    def err(self, code: str, message: str, span: Span) -> None:
        self.sink.error(code, message, span)

    # ---- parameters -----------------------------------------------------------
    def _eval(self, e: S.Expr) -> Optional[int]:
        """Evaluate an integer expression; ``None`` stands for infinity."""
        if isinstance(e, S.IntLit):
            return e.value
        if isinstance(e, S.InfLit):
            return None
        if isinstance(e, S.ParamRef):
            if e.name in self.env:
                return self.env[e.name]
            self.err("TS201", f"unknown parameter {e.name!r}" + _known(self.env), e.span)
            return 0
        if isinstance(e, S.GCall):
            self.err("TS212", f"{e.name}(...) is not a number here", e.span)
            return 0
        a, b = self._eval(e.left), self._eval(e.right)
        if a is None or b is None:
            if e.op == "-" and b is None:
                self.err("TS206", "cannot subtract inf", e.span)
                return 0
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b

    def _params(self) -> None:
        alias = {"capacity": "K", "distance": "D"}
        ov = {alias.get(k, k): v for k, v in self.overrides.items()}
        is_cp = any(isinstance(t, S.CPTransition) for t in self.m.transitions.values())
        known = set(self.m.params) | ({"K", "D", "start"} if is_cp else set())
        unknown = sorted(k for k in ov if k not in known)
        if unknown:
            raise UsageError(
                f"--set: unknown parameter {unknown[0]!r} for {self.m.name}; "
                + (f"known: {', '.join(sorted(known))}" if known else "this system has no parameters")
            )
        for name, p in self.m.params.items():
            self.env[name] = ov[name] if name in ov else self._eval(p.value)
        self.setting_values: dict[str, Optional[int]] = {}
        for key, short in (("capacity", "K"), ("distance", "D"), ("start", "start")):
            st = self.m.singles.get(key)
            if short in ov and short not in self.m.params:
                self.setting_values[key] = ov[short]
            elif st is not None:
                before = len(self.sink.items)
                value = self._eval(st.value)
                if len(self.sink.items) == before:  # else already reported: no "K must be >= 1" cascade
                    self.setting_values[key] = value
            # K and D may be used by the settings that follow (distance K - 1) and by guards
            if short in ("K", "D") and short not in self.env and key in self.setting_values:
                self.env[short] = self.setting_values[key]

    # ---- top level -------------------------------------------------------------
    def lower(self) -> Optional[ir.System]:
        m = self.m
        self._params()
        root = self._root()
        produces, covers = self._produces()
        multihead = "multihead" in m.singles
        cp = [t for t in m.transitions.values() if isinstance(t, S.CPTransition)]
        rules = [t for t in m.transitions.values() if isinstance(t, S.RuleTransition)]
        if cp and rules:
            self.err("TS214", "a system uses either control-parameter transitions (NAME = ...) or rewrite rules "
                              "(NAME : ...), not both", rules[0].span)
        if not m.transitions:
            self.err("TS215", "the system has no transitions", m.header_span)
        self.token_flags = {n: f for n, f in m.flags.items() if f.index is not None}
        self.global_flags = {n: f for n, f in m.flags.items() if f.index is None}
        for f in m.flags.values():
            if f.index is not None and f.index != "token":
                self.err("TS207", f"a per-token flag is declared as {f.name}[token], not [{f.index}]", f.span)
        attach = self._finally()
        common = dict(
            name=m.name, title=m.title or m.name, cite=m.singles["cite"].text if "cite" in m.singles else "",
            claim=m.singles["claim"].text if "claim" in m.singles else "",
            produces=produces, covers=covers, root=root,
            token_flags=tuple((n, f.default) for n, f in self.token_flags.items()),
            global_flags=tuple((n, f.default) for n, f in self.global_flags.items()),
            multihead=multihead, attach_headless_to_root=attach,
            source_file=m.files[-1], sources=tuple(m.files),
            source_hash=hashlib.sha256(
                ("\0".join(m.texts) + repr(sorted(self.overrides.items()))).encode("utf-8")
            ).hexdigest(),
        )
        if cp or not rules:
            system = self._lower_cp(cp, common, multihead, root)
        else:
            system = self._lower_rules(rules, common, multihead, root)
        if system is not None and m.oracles:
            system = dataclasses.replace(system, oracles=self._oracles(system, root))
        return system

    # ---- declared fast oracles ---------------------------------------------------
    def _oracles(self, system: ir.System, root: str) -> tuple[ir.Oracle, ...]:
        out = []
        actions = {a.name: a for a in system.actions_for(8)}
        for name, (decl, *rules) in self.m.oracles.items():
            reach = None
            losses: list[ir.LossExpr] = []
            penalties = []
            for r in rules:
                if isinstance(r, S.ReachRule):
                    if reach is not None:
                        self.err("TS200", f"oracle {name!r} has two reachability rules", r.span)
                        continue
                    if r.head == r.dep:
                        self.err("TS200", "the head and dependent variables of a reachability rule must differ",
                                 r.span)
                    reach = (r.positive, r.head, r.dep, self._guard(r.guard, {r.head, r.dep}, root, oracle=True))
                elif isinstance(r, S.LossRule):
                    lname = r.name or "loss"
                    if any(l.name == lname for l in losses):
                        self.err("TS200", f"loss {lname!r} is declared twice in oracle {name!r}", r.span)
                    for t in r.terms:
                        if t not in ir.LOSS_TERMS:
                            self.err("TS232", f"unknown loss term {t!r}; known: {', '.join(ir.LOSS_TERMS)}", r.span)
                    bound = r.bound or "exact"
                    if bound not in ("exact", "lower", "upper"):
                        self.err("TS232", f"a loss is `bound lower` or `bound upper` (or exact), not {bound!r}",
                                 r.span)
                    losses.append(ir.LossExpr(lname, r.terms, bound))
                else:
                    action = actions.get(r.action)
                    if action is None:
                        self.err("TS233", f"penalty for unknown action {r.action!r}", r.span)
                        continue
                    bound_vars = {v for c in action.cases[:1] for m in c.match for i in m.items
                                  if isinstance(i, ir.Tok) for v in [i.var]}
                    penalties.append((r.action, self._guard(r.guard, bound_vars, root, oracle=True)))
            if reach is None:
                self.err("TS234", f"oracle {name!r} needs a `reachable h -> d if ...` or "
                                  "`unreachable h -> d if ...` rule", decl.span)
            if not losses:
                losses.append(ir.LossExpr("loss", ("unreachable",), "exact"))
            out.append(ir.Oracle(name, decl.title or name, reach, tuple(losses), tuple(penalties), decl.span))
        return tuple(out)

    def _root(self) -> str:
        st = self.m.singles.get("root")
        if st is None:
            return "none"
        if st.position not in ROOT_POSITIONS:
            self.err("TS213", f"root must be left, right or none, not {st.position!r}", st.span)
            return "none"
        return st.position

    def _produces(self) -> tuple[str, str]:
        st = self.m.singles.get("produces")
        if st is None:
            return "any", "any"
        out = []
        for value in (st.tree_class,) if st.covers is None else (st.tree_class, st.covers):
            if value not in TREE_CLASS_ALIASES:
                self.err("TS213", f"unknown tree class {value!r}; use one of: {', '.join(sorted(TREE_CLASS_ALIASES))}",
                         st.span)
                out.append("any")
            else:
                out.append(TREE_CLASS_ALIASES[value])
        return out[0], out[-1]

    def _finally(self) -> bool:
        st = self.m.singles.get("finally")
        if st is None:
            return False
        if " ".join(st.words) != "attach headless to root":
            self.err("TS223", "the only `finally` rule is `finally attach headless to root`", st.span)
            return False
        return True

    # ---- control-parameter systems --------------------------------------------------
    def _lower_cp(self, cp: list[S.CPTransition], common: dict, multihead: bool, root: str):
        sv = self.setting_values
        K = sv.get("capacity", 2)
        D = sv.get("distance", 1)
        span_of = lambda key: self.m.singles[key].span if key in self.m.singles else self.m.header_span
        if "capacity" in sv and K is not None and K < 1:
            self.err("TS202", f"capacity K must be at least 1, not {K}", span_of("capacity"))
            K = 2
        elif K is not None and K > MAX_CAPACITY:  # K*K actions: a huge K would hang the checker
            self.err("TS202", f"capacity K must be at most {MAX_CAPACITY}, not {K} (write `capacity inf` for an "
                              "unbounded capacity)", span_of("capacity"))
            K = 2
        if D is None:
            D = 10**9
        elif D < 1:
            self.err("TS203", f"distance D must be at least 1, not {D}", span_of("distance"))
            D = 1
        start = sv.get("start", K)
        if start is not None and start < 0:
            self.err("TS202", f"start must be at least 0, not {start}", span_of("start"))
            start = 0
        reading = "active"
        if "periphery" in self.m.singles:
            st = self.m.singles["periphery"]
            if st.reading not in PERIPHERY_READINGS:
                self.err("TS213", f"periphery reading must be active or capacity, not {st.reading!r}", st.span)
            else:
                reading = st.reading
        for key in ("lists", "initial"):
            if key in self.m.singles:
                self.err("TS214", f"`{key}` is for rewrite-rule systems; control-parameter systems use O and U",
                         self.m.singles[key].span)
        specs = [self._cp_params(t) for t in cp]
        lists = (ir.ListDecl("O", "R"), ir.ListDecl("U", "L"))
        seq = ("root", "words") if root == "left" else ("words", "root") if root == "right" else ("words",)
        initial = ir.Initial((seq, ()), split=start if start is not None else 10**9)
        terminal = self._cp_terminal(lists, root)
        params = tuple(sorted(self.env.items()))
        settings = (("capacity", K), ("distance", None if D >= 10**9 else D), ("start", start),
                    ("periphery", reading))

        def build(k_eff: int, report: bool) -> tuple[ir.Action, ...]:
            actions = []
            for t, ps in zip(cp, specs):
                if ps is None:
                    continue
                made = _cp_instances(t, ps, k_eff, D, reading, multihead=multihead, root=root)
                if not made and report:
                    self.err("TS208", f"transition {t.name!r} can never apply: no index pair fits "
                                      f"K={_inf(K)}, D={_inf(D if D < 10**9 else None)}, P={ps['P']}", t.span)
                actions.extend(made)
            return tuple(actions)

        if K is None:
            fixed = None
            families = tuple(f for t, ps in zip(cp, specs) if ps is not None
                             for f in _cp_families(t, ps, D, multihead=multihead, root=root))
        else:
            fixed, families = build(K, report=True), ()
        return ir.System(lists=lists, initial=initial, terminal=terminal, params=params, style="control-parameters",
                         settings=settings, fixed_actions=fixed, families=families, **common)

    def _cp_params(self, t: S.CPTransition) -> Optional[dict]:
        base = CP_BASES.get(t.base)
        if base is None:
            self.err("TS205", f"unknown base operation {t.base!r}; use ←, →, −, + (or left_arc, right_arc, reduce, "
                              "shift)", t.span)
            return None
        out = {"base": base, "B": True, "S": False, "P": "na", "cls": t.classes[0][0] if t.classes else None}
        for p in t.params:
            key = CP_KEYS.get(p.key)
            if key is None:
                self.err("TS205", f"unknown control parameter {p.key!r}; use B (bottom-up), S (arc-shift) or "
                                  "P (periphery)", p.span)
                continue
            if base == "shift":
                what = {"P": "periphery", "B": "bottom-up", "S": "arc-shift"}[key]
                self.err("TS204", f"{what} ({p.key}) does not apply to a shift", p.span)
                continue
            if base == "reduce" and key in ("B", "S"):
                self.err("TS219", f"{p.key} does not apply to a reduce (only P does)", p.span)
                continue
            if key in ("B", "S"):
                if p.value.lower() not in TRUTH:
                    self.err("TS206", f"{p.key} takes true or false, not {p.value!r}", p.span)
                    continue
                out[key] = TRUTH[p.value.lower()]
            else:
                if p.value.lower() not in PERIPHERIES:
                    self.err("TS206", f"P takes left, right or na, not {p.value!r}", p.span)
                    continue
                out["P"] = PERIPHERIES[p.value.lower()]
        return out

    def _cp_terminal(self, lists, root: str) -> ir.Terminal:
        st = self.m.singles.get("terminal")
        if st is None:
            return ir.Terminal((ir.ListMatch("O", (ir.Tok("x"),)), ir.ListMatch("U", ())), ir.TRUE,
                               self.m.header_span)
        return self._terminal(st, lists, root)

    # ---- rewrite-rule systems ---------------------------------------------------------
    def _lower_rules(self, rules: list[S.RuleTransition], common: dict, multihead: bool, root: str):
        names = self._list_names()
        for key in ("capacity", "distance", "start", "periphery"):
            if key in self.m.singles:
                self.err("TS214", f"`{key}` is a control parameter; it has no meaning in a rewrite-rule system",
                         self.m.singles[key].span)
        open_ends = self._open_ends(rules, names)
        lists = tuple(ir.ListDecl(n, open_ends[n]) for n in names)
        initial = self._initial(names, root)
        st = self.m.singles.get("terminal")
        if st is None:
            self.err("TS215", "a rewrite-rule system needs a `terminal` line, e.g. `terminal (σ, [])`",
                     self.m.header_span)
            terminal = ir.Terminal(tuple(ir.ListMatch(n, ()) for n in names), ir.TRUE, self.m.header_span)
        else:
            terminal = self._terminal(st, lists, root)
        actions = []
        for t in rules:
            a = self._rule_action(t, lists, multihead, root)
            if a is not None:
                actions.append(a)
        return ir.System(lists=lists, initial=initial, terminal=terminal, params=tuple(sorted(self.env.items())),
                         style="rewrite", fixed_actions=tuple(actions), **common)

    def _list_names(self) -> tuple[str, ...]:
        st = self.m.singles.get("lists")
        if st is None:
            return ("sigma", "beta")
        seen = set()
        for name, span in st.names:
            if name in seen:
                self.err("TS200", f"list {name!r} is declared twice", span)
            seen.add(name)
        if len(st.names) < 1:
            self.err("TS209", "declare at least one list", st.span)
        return tuple(n for n, _ in st.names)

    def _open_ends(self, rules, names) -> dict[str, str]:
        """Stack-like lists (rest written first: σ|s) open at the right; buffer-like at the left."""
        votes = {n: [0, 0] for n in names}
        for t in rules:
            for c in t.cases:
                for k, lp in enumerate(c.lhs.lists[: len(names)]):
                    if lp.kind != "open":
                        continue
                    idx = [i for i, it in enumerate(lp.items) if it.name == names[k]]
                    if idx and idx[0] == 0 and len(lp.items) > 1:
                        votes[names[k]][0] += 1
                    elif idx and idx[0] == len(lp.items) - 1 and len(lp.items) > 1:
                        votes[names[k]][1] += 1
        out = {}
        for k, n in enumerate(names):
            r, l_ = votes[n]
            out[n] = "R" if r > l_ else "L" if l_ > r else ("L" if k == len(names) - 1 else "R")
        return out

    def _initial(self, names, root: str) -> ir.Initial:
        st = self.m.singles.get("initial")
        if st is None:
            lists = [() for _ in names]
            lists[-1] = ("words", "root") if root == "right" else ("words",)
            if root == "left":
                lists[0] = ("root",) + (lists[0] if len(names) == 1 else ())
            return ir.Initial(tuple(lists))
        cfg = st.config
        if len(cfg.lists) != len(names):
            self.err("TS209", f"`initial` gives {len(cfg.lists)} lists but the system has {len(names)} "
                              f"({', '.join(names)})", cfg.span)
            return ir.Initial(tuple(() for _ in names))
        out, used = [], []
        for lp in cfg.lists:
            items = []
            for it in lp.items:
                word = "words" if it.name in ("1..n", "words") else it.name
                if word not in ("words", "root"):
                    self.err("TS222", f"an initial list holds only `root` and `1..n` (the words), not {it.name!r}",
                             it.span)
                    continue
                if word == "root" and root == "none":
                    self.err("TS222", "`root` in the initial configuration, but the system says `root none`",
                             it.span)
                    continue
                if word in used:
                    self.err("TS222", f"{it.name!r} appears twice in the initial configuration", it.span)
                used.append(word)
                items.append(word)
            out.append(tuple(items))
        if "words" not in used:
            self.err("TS222", "the initial configuration must place the words (1..n)", cfg.span)
        if root in ("left", "right") and "root" not in used:
            self.err("TS222", f"`root {root}` but the initial configuration does not place `root`", cfg.span)
        return ir.Initial(tuple(out))

    def _terminal(self, st: S.Terminal, lists, root: str) -> ir.Terminal:
        names = tuple(d.name for d in lists)
        match, bound = self._lhs(st.config, names)
        guard = self._guard(st.guard, bound, root) if st.guard is not None else ir.TRUE
        return ir.Terminal(tuple(match), guard, st.span)

    def _lhs(self, cfg: S.ConfigPat, names: tuple[str, ...]) -> tuple[list[ir.ListMatch], set[str]]:
        if len(cfg.lists) != len(names):
            self.err("TS209", f"this configuration has {len(cfg.lists)} lists but the system has {len(names)} "
                              f"({', '.join(names)})", cfg.span)
        bound: set[str] = set()
        out = []
        for k, name in enumerate(names):
            if k >= len(cfg.lists):
                out.append(ir.ListMatch(name, (ir.Rest(name),)))
                continue
            lp = cfg.lists[k]
            items: list[ir.Item] = []
            for it in lp.items:
                if it.name == name and lp.kind == "open":
                    if any(isinstance(x, ir.Rest) for x in items):
                        self.err("TS211", f"{name} appears twice in one pattern", it.span)
                    items.append(ir.Rest(name))
                elif it.name in names or it.name == "1..n":
                    self.err("TS209", f"{it.name!r} cannot appear in the pattern of list {name}", it.span)
                else:
                    if it.name in bound:
                        self.err("TS200", f"token variable {it.name!r} is bound twice", it.span)
                    bound.add(it.name)
                    items.append(ir.Tok(it.name))
            if lp.kind == "open" and not any(isinstance(x, ir.Rest) for x in items) and items:
                self.err("TS209", f"the pattern of list {name} must mention {name} (e.g. {name}|x) or be written "
                                  "in brackets for an exact shape", lp.span)
            out.append(ir.ListMatch(name, tuple(items)))
        return out, bound

    def _rule_action(self, t: S.RuleTransition, lists, multihead: bool, root: str) -> Optional[ir.Action]:
        names = tuple(d.name for d in lists)
        cases = []
        classes = []
        for c in t.cases:
            case = self._rule_case(t, c, names, multihead, root)
            classes.extend(c.classes)
            if case is not None:
                cases.append(case)
        cls_names = {n for n, _ in classes}
        if len(cls_names) > 1:
            self.err("TS221", f"transition {t.name!r} is given two classes: {', '.join(sorted(cls_names))}",
                     classes[1][1])
        if not cases:
            return None
        return ir.Action(t.name, classes[0][0] if classes else t.name, tuple(cases), t.span, family=t.name)

    def _rule_case(self, t, c: S.RuleCase, names, multihead: bool, root: str) -> Optional[ir.Case]:
        before = len(self.sink.items)
        match, bound = self._lhs(c.lhs, names)
        has_rest = {m.list for m in match if m.has_rest}
        result: list[tuple[ir.Item, ...]] = []
        used_tok: set[str] = set()
        used_rest: set[str] = set()
        if len(c.rhs.lists) != len(names):
            self.err("TS209", f"the right-hand side has {len(c.rhs.lists)} lists but the system has {len(names)} "
                              f"({', '.join(names)})", c.rhs.span)
        for k in range(len(names)):
            if k >= len(c.rhs.lists):
                result.append(())
                continue
            items: list[ir.Item] = []
            for it in c.rhs.lists[k].items:
                if it.name in names:
                    if it.name not in has_rest:
                        self.err("TS211", f"{it.name} has no rest here: its left-hand pattern is exact", it.span)
                    elif it.name in used_rest:
                        self.err("TS211", f"the rest of {it.name} is used twice", it.span)
                    used_rest.add(it.name)
                    items.append(ir.Rest(it.name))
                elif it.name not in bound:
                    self.err("TS210", f"token variable {it.name!r} is not bound on the left-hand side", it.span)
                else:
                    if it.name in used_tok:
                        self.err("TS211", f"token {it.name!r} would be in two places at once", it.span)
                    used_tok.add(it.name)
                    items.append(ir.Tok(it.name))
            result.append(tuple(items))
        for lost in sorted(has_rest - used_rest):
            self.err("TS211", f"the rest of {lost} disappears on the right-hand side (tokens would be lost)",
                     c.rhs.span)
        guard = ir.conj(*[self._guard(g, bound, root) for g in c.guards])
        arcs, implicit = [], []
        for a in c.arcs:
            for v in (a.head, a.dep):
                if v not in bound:
                    self.err("TS210", f"token variable {v!r} in the arc is not bound on the left-hand side", a.span)
            opts = set()
            for o, ospan in a.options:
                if o not in ARC_OPTIONS:
                    self.err("TS218", f"unknown arc option {o!r}; use overwrite, break_cycle or unlabeled", ospan)
                else:
                    opts.add(ARC_OPTIONS[o])
            op = ir.ArcOp(a.head, a.dep, "unlabeled" not in opts, "overwrite" in opts, "break_cycle" in opts)
            arcs.append(op)
            implicit.append(_arc_implicit(op, multihead, root))
        sets = []
        for asg in c.assigns:
            value = self._guard(asg.value, bound, root)
            if asg.index is None:
                if asg.flag not in self.global_flags:
                    self._unknown_flag(asg.flag, asg.span, indexed=False)
            else:
                if asg.flag not in self.token_flags:
                    self._unknown_flag(asg.flag, asg.span, indexed=True)
                if asg.index not in bound:
                    self.err("TS210", f"token variable {asg.index!r} is not bound on the left-hand side", asg.span)
            sets.append(ir.SetFlag(asg.flag, asg.index, value))
        if len(self.sink.items) > before:
            return None
        case = ir.Case(tuple(match), guard, ir.conj(*implicit), tuple(arcs), tuple(result), tuple(sets), c.span)
        why = never_applies(case, root)
        if why:
            self.err("TS208", f"transition {t.name!r} can never apply: {why}", c.span)
        return case

    def _unknown_flag(self, name: str, span: Span, indexed: bool) -> None:
        if indexed and name in self.global_flags:
            self.err("TS207", f"{name!r} is a global flag; write it without [token]", span)
        elif not indexed and name in self.token_flags:
            self.err("TS207", f"{name!r} is a per-token flag; write {name}[x]", span)
        else:
            decl = f"flag {name}[token]" if indexed else f"flag {name}"
            self.err("TS207", f"undeclared flag {name!r} (declare it with `{decl}`)", span)

    # ---- guards ------------------------------------------------------------------------
    def _guard(self, g: S.Guard, bound: set[str], root: str, oracle: bool = False) -> ir.Pred:
        def var(name: str, span: Span) -> str:
            if name not in bound:
                self.err("TS210", f"token variable {name!r} is not bound by the pattern", span)
            return name

        if isinstance(g, S.GAnd):
            return ir.conj(*[self._guard(i, bound, root, oracle) for i in g.items])
        if isinstance(g, S.GOr):
            return ir.Any_(tuple(self._guard(i, bound, root, oracle) for i in g.items))
        if isinstance(g, S.GNot):
            return ir.Not(self._guard(g.item, bound, root, oracle))
        if isinstance(g, S.GConst):
            return ir.Const(g.value)
        if isinstance(g, S.GPath):
            return ir.Path(var(g.ancestor, g.span), var(g.descendant, g.span))
        if isinstance(g, S.GArc):
            return ir.ArcExists(var(g.head, g.span), var(g.dep, g.span))
        if isinstance(g, S.GTokenFlag):
            if g.flag not in self.token_flags:
                self._unknown_flag(g.flag, g.span, indexed=True)
            return ir.TokenFlag(g.flag, var(g.var, g.span))
        if isinstance(g, S.GGlobalFlag):
            if g.flag not in self.global_flags:
                self._unknown_flag(g.flag, g.span, indexed=False)
            return ir.GlobalFlag(g.flag)
        if isinstance(g, S.GMember):
            term = self._term(g.term, bound, oracle)
            known = self._known_lists()
            if g.list not in known:
                self.err("TS209", f"unknown list {g.list!r}; the lists are {', '.join(known)}", g.span)
            return ir.InList(term, g.list)
        if isinstance(g, S.GCompare) and not (isinstance(g.call, S.GCall) and g.call.name == "len"
                                              and not _mentions_vars(g.value, bound)):
            return ir.Cmp(g.op, self._term(g.call, bound, oracle), self._term(g.value, bound, oracle))
        if isinstance(g, S.GCompare):
            call = g.call
            if len(call.args) != 1:
                self.err("TS212", "len takes one list", g.span)
                return ir.TRUE
            lst = self._list_arg(call)
            value = self._eval(g.value)
            if value is None:
                self.err("TS206", "a length is compared with a finite number", g.span)
                return ir.TRUE
            return ir.Length(lst, g.op, value)
        if isinstance(g, S.GCall):
            arity = {"has_head": 1, "is_root": 1, "empty": 1, "path": 2, "arc": 2, "connected": 2}
            if g.name not in arity:
                hint = " (compare it: len(σ) == 1)" if g.name == "len" else ""
                self.err("TS212", f"unknown guard function {g.name!r}{hint}; known: has_head(x), is_root(x), "
                                  "empty(LIST), len(LIST) OP N, path(x, y), arc(x, y), connected(x, y), "
                                  "x in LIST, comparisons of first/last/len/pos/max/min/gold_head", g.span)
                return ir.TRUE
            if len(g.args) != arity[g.name]:
                self.err("TS212", f"{g.name} takes {arity[g.name]} argument(s), not {len(g.args)}", g.span)
                return ir.TRUE
            if g.name == "empty":
                return ir.Length(self._list_arg(g), "==", 0)
            vs = [var(a, s) for a, s in g.args]
            if g.name == "has_head":
                return ir.HasHead(vs[0])
            if g.name == "is_root":
                return ir.IsRoot(vs[0])
            if g.name == "path":
                return ir.Path(vs[0], vs[1])
            if g.name == "connected":
                return ir.Connected(vs[0], vs[1])
            return ir.ArcExists(vs[0], vs[1])
        raise TypeError(g)

    _TERM_FUNCS = {"first": 1, "front": 1, "last": 1, "top": 1, "len": 1, "pos": 1, "gold_head": 1, "max": 2,
                   "min": 2}

    def _term(self, e, bound: set[str], oracle: bool) -> ir.Term:
        """A token term: a bound variable, a number, or a term function (first, last, len, pos,
        max, min, and gold_head in oracle rules)."""
        if isinstance(e, S.ParamRef):
            if e.name in bound:
                return ir.TVar(e.name)
            if e.name in self.env:
                v = self.env[e.name]
                return ir.TInt(v if v is not None else 10**9)
            self.err("TS210", f"{e.name!r} is neither a bound token variable nor a parameter", e.span)
            return ir.TInt(0)
        if isinstance(e, S.IntLit):
            return ir.TInt(e.value)
        if isinstance(e, S.BinOp):
            if e.op not in ("+", "-"):
                self.err("TS212", f"only + and - combine token terms, not {e.op!r}", e.span)
                return ir.TInt(0)
            return ir.TFunc(e.op, self._term(e.left, bound, oracle), self._term(e.right, bound, oracle))
        if isinstance(e, S.GCall):
            arity = self._TERM_FUNCS.get(e.name)
            if arity is None:
                self.err("TS212", f"unknown term function {e.name!r}; known: "
                                  f"{', '.join(sorted(self._TERM_FUNCS))}", e.span)
                return ir.TInt(0)
            if len(e.args) != arity:
                self.err("TS212", f"{e.name} takes {arity} argument(s), not {len(e.args)}", e.span)
                return ir.TInt(0)
            if e.name in ("first", "front", "last", "top", "len"):
                lst = self._list_arg(e)
                return {"first": ir.TFirst, "front": ir.TFirst, "last": ir.TLast, "top": ir.TLast,
                        "len": ir.TLen}[e.name](lst)
            args = [self._term(S.ParamRef(a, s), bound, oracle) for a, s in e.args]
            if e.name == "gold_head":
                if not oracle:
                    self.err("TS231", "gold_head is only known to oracle rules", e.span)
                return ir.TGold(args[0])
            if e.name == "pos":
                return ir.TPos(args[0])
            return ir.TFunc(e.name, args[0], args[1])
        self.err("TS212", "expected a token term", getattr(e, "span", self.m.header_span))
        return ir.TInt(0)

    def _list_arg(self, call: S.GCall) -> str:
        name, span = call.args[0]
        known = self._known_lists()
        if name not in known:
            self.err("TS209", f"unknown list {name!r}; the lists are {', '.join(known)}", span)
        return name

    def _known_lists(self) -> tuple[str, ...]:
        if any(isinstance(t, S.CPTransition) for t in self.m.transitions.values()):
            return ("O", "U")
        return self._list_names()


# ---------------------------------------------------------------------------------
# control-parameter instantiation (Bohnet et al. 2016, §3.4 and §4)
# ---------------------------------------------------------------------------------


def _arc_implicit(op: ir.ArcOp, multihead: bool, root: str) -> ir.Pred:
    """The standard preconditions of an arc: the root is never a dependent; single head
    (unless overwriting or multihead); in DAG systems no duplicate arc and no cycle."""
    parts: list[ir.Pred] = []
    if root != "none":
        parts.append(ir.Not(ir.IsRoot(op.dep)))
    if multihead:
        parts += [ir.Not(ir.ArcExists(op.head, op.dep)), ir.Not(ir.Path(op.dep, op.head))]
    elif not op.overwrite:
        parts.append(ir.Not(ir.HasHead(op.dep)))
    return ir.conj(*parts)


def _o_pattern(indexes: list[int]) -> tuple[tuple[ir.Item, ...], dict[int, str]]:
    """Items binding O[i] for each i in ``indexes`` (O[1] is the rightmost), with blocks between."""
    top = max(indexes)
    items: list[ir.Item] = [ir.Rest("O")]
    names = {}
    k = top
    while k >= 1:
        if k in indexes:
            names[k] = f"o{k}"
            items.append(ir.Tok(f"o{k}"))
            k -= 1
        else:
            low = max([i for i in indexes if i < k], default=0)
            items.append(ir.Block(f"g{k}", k - low))
            k = low
    return tuple(items), names


def _without(items: tuple[ir.Item, ...], var: str) -> tuple[ir.Item, ...]:
    return tuple(i for i in items if not (isinstance(i, ir.Tok) and i.var == var))


_SHIFT_U = ir.ListMatch("U", (ir.Tok("u"), ir.Rest("U")))


def _cp_instances(t: S.CPTransition, ps: dict, K: int, D: int, reading: str, *, multihead: bool,
                  root: str) -> list[ir.Action]:
    """The actions of one transition for a finite capacity K (capacity inf: :func:`_cp_families`)."""
    base, P, name = ps["base"], ps["P"], t.name
    if base == "shift":
        return [_cp_shift(t, ps)]
    if base == "reduce":
        return _cp_reduce(t, ps, K, reading)
    pairs = [(i, j) for i in range(2, K + 1) for j in range(1, i) if i - j <= D]
    if P == "right":
        pairs = [(i, j) for i, j in pairs if j == 1]
    elif P == "left" and reading == "capacity":
        pairs = [(i, j) for i, j in pairs if i == K]
    out = []
    for i, j in pairs:
        items, var = _o_pattern([i, j])
        guard = ir.Length("O", "==", i) if P == "left" and i < K else ir.TRUE
        out.append((i, j, _cp_arc_case(t, ps, items, var[i], var[j], guard, multihead, root)))
    many = len(out) > 1
    actions = []
    for i, j, case in out:
        action_name = f"{name}({i},{j})" if many else name
        actions.append(ir.Action(action_name, ps["cls"] or action_name, (case,), t.span, family=name,
                                 indexes=(i, j)))
    return actions


def _cp_shift(t: S.CPTransition, ps: dict) -> ir.Action:
    case = ir.Case((ir.ListMatch("O", (ir.Rest("O"),)), _SHIFT_U), ir.TRUE, ir.TRUE, (),
                   ((ir.Rest("O"), ir.Tok("u")), (ir.Rest("U"),)), (), t.span)
    return ir.Action(t.name, ps["cls"] or t.name, (case,), t.span, family=t.name)


def _cp_arc_case(t: S.CPTransition, ps: dict, items: tuple[ir.Item, ...], oi: str, oj: str, guard: ir.Pred,
                 multihead: bool, root: str) -> ir.Case:
    """The case of an arc between O[i] (variable ``oi``) and O[j] (``oj``), i > j."""
    head, dep = (oj, oi) if ps["base"] == "left" else (oi, oj)
    o_after = _without(items, dep) if ps["B"] else items
    match = [ir.ListMatch("O", items), ir.ListMatch("U", (ir.Rest("U"),))]
    result = [o_after, (ir.Rest("U"),)]
    if ps["S"]:
        match[1] = _SHIFT_U
        result = [o_after + (ir.Tok("u"),), (ir.Rest("U"),)]
    op = ir.ArcOp(head, dep)
    return ir.Case(tuple(match), guard, _arc_implicit(op, multihead, root), (op,), tuple(result), (), t.span)


def _reduce_case(t: S.CPTransition, items: tuple[ir.Item, ...], guard: ir.Pred = ir.TRUE) -> ir.Case:
    """Reduce the token ``x`` bound by ``items`` in O, once it has a head."""
    return ir.Case((ir.ListMatch("O", items), ir.ListMatch("U", (ir.Rest("U"),))), guard, ir.HasHead("x"), (),
                   (_without(items, "x"), (ir.Rest("U"),)), (), t.span)


def _reduce_at(i: int) -> tuple[ir.Item, ...]:
    items, _ = _o_pattern([i])
    return tuple(ir.Tok("x") if isinstance(it, ir.Tok) else it for it in items)


_LEFTMOST = (ir.Tok("x"), ir.Rest("O"))


def _cp_reduce(t: S.CPTransition, ps: dict, K: int, reading: str) -> list[ir.Action]:
    name, P = t.name, ps["P"]
    cls = ps["cls"] or name
    if P == "right":
        return [ir.Action(name, cls, (_reduce_case(t, _reduce_at(1)),), t.span, family=name, indexes=(1,))]
    if P == "left":
        if reading == "capacity":
            return [ir.Action(name, cls, (_reduce_case(t, _reduce_at(K)),), t.span, family=name, indexes=(K,))]
        short = _reduce_case(t, _LEFTMOST, ir.Length("O", "<", K))
        return [ir.Action(name, cls, (_reduce_case(t, _reduce_at(K)), short), t.span, family=name)]
    many = K > 1
    return [ir.Action(f"{name}({i})" if many else name, ps["cls"] or (f"{name}({i})" if many else name),
                      (_reduce_case(t, _reduce_at(i)),), t.span, family=name, indexes=(i,)) for i in range(1, K + 1)]


# ---- capacity inf: families (Bohnet et al.'s unbounded K), as IR data ------------------

_I, _J = ir.Affine.of("i0"), ir.Affine.of("i1")


def _cp_families(t: S.CPTransition, ps: dict, D: int, *, multihead: bool, root: str) -> list[ir.Family]:
    """One transition with capacity inf: one family whose instances cover every position
    (pair) of O that fits the sentence; the numbers are affine in the indexes i0 > i1."""
    base, P, name = ps["base"], ps["P"], t.name
    if base == "shift":
        return [ir.Family(_cp_shift(t, ps))]
    if base == "reduce":
        cls = ps["cls"] or name
        if P == "right":
            return [ir.Family(ir.Action(name, cls, (_reduce_case(t, _reduce_at(1)),), t.span),
                              indexes=("i0",), bounds=((1, 1),))]
        if P == "left":
            return [ir.Family(ir.Action(name, cls, (_reduce_case(t, _LEFTMOST),), t.span))]
        # REDUCE(i): O[i] reduced, with the i - 1 tokens above it as a block
        items = (ir.Rest("O"), ir.Tok("x"), ir.Block("gI", _I - 1))
        return [ir.Family(ir.Action(name, ps["cls"], (_reduce_case(t, items),), t.span), indexes=("i0",),
                          bounds=((1, ir.Affine.of("n")),), renames=(("gI", "g", _I - 1),), naming="if-many")]
    # O[i] and O[j] with the blocks between them and below O[j] (either may be empty)
    items = (ir.Rest("O"), ir.Tok("oI"), ir.Block("gI", _I - _J - 1), ir.Tok("oJ"), ir.Block("gJ", _J - 1))
    guard = ir.Length("O", "==", _I) if P == "left" else ir.TRUE  # O[i] is the left periphery when |O| = i
    case = _cp_arc_case(t, ps, items, "oI", "oJ", guard, multihead, root)
    j_bounds = (1, 1) if P == "right" else (1, _I - 1)
    return [ir.Family(ir.Action(name, ps["cls"], (case,), t.span), indexes=("i0", "i1"),
                      bounds=((2, ir.Affine.of("n")), j_bounds),
                      limits=((_I - _J, D),) if D < 10**9 else (),
                      renames=(("oI", "o", _I), ("gI", "g", _I - 1), ("oJ", "o", _J), ("gJ", "g", _J - 1)),
                      naming="indexed")]


# ---------------------------------------------------------------------------------
# static "can never apply" detection
# ---------------------------------------------------------------------------------


def never_applies(case: ir.Case, root: str) -> Optional[str]:
    """A reason why ``case`` can never fire, found from its guard and shape alone."""
    lits = _literals(case.full_guard)
    for atom, positive in lits:
        if (atom, not positive) in lits:
            return f"it requires both {ir.pred_text(atom)} and not {ir.pred_text(atom)}"
        if positive and atom == ir.Const(False):
            return "its guard is false"
        if positive and isinstance(atom, ir.IsRoot) and root == "none":
            return f"it requires is_root({atom.var}) but the system has no root"
    for m in case.match:
        lo, hi = m.min_len, (None if m.has_rest else m.min_len)
        for atom, positive in lits:
            if not isinstance(atom, ir.Length) or atom.list != m.list:
                continue
            lo, hi = _narrow(lo, hi, atom.op, atom.value, positive)
        if hi is not None and lo > hi:
            return f"list {m.list} cannot have the length the pattern and guard require"
    return None


def _literals(p: ir.Pred) -> set[tuple[ir.Pred, bool]]:
    if isinstance(p, ir.All):
        out = set()
        for i in p.items:
            out |= _literals(i)
        return out
    if isinstance(p, ir.Not) and not isinstance(p.item, (ir.All, ir.Any_, ir.Not)):
        return {(p.item, False)}
    if isinstance(p, (ir.Any_, ir.Not)):
        return set()
    if isinstance(p, ir.Const):
        return {(ir.Const(False), True)} if not p.value else set()
    return {(p, True)}


def _narrow(lo: int, hi: Optional[int], op: str, v: int, positive: bool):
    if not positive:
        op = {"==": "!=", "!=": "==", ">=": "<", "<=": ">", ">": "<=", "<": ">="}[op]
    if op == "==":
        return max(lo, v), v if hi is None else min(hi, v)
    if op == ">=":
        return max(lo, v), hi
    if op == ">":
        return max(lo, v + 1), hi
    if op == "<=":
        return lo, v if hi is None else min(hi, v)
    if op == "<":
        return lo, v - 1 if hi is None else min(hi, v - 1)
    return lo, hi


def _mentions_vars(e, bound: set[str]) -> bool:
    """Whether an expression refers to token variables or term functions (not just numbers)."""
    if isinstance(e, S.ParamRef):
        return e.name in bound
    if isinstance(e, S.GCall):
        return True
    if isinstance(e, S.BinOp):
        return _mentions_vars(e.left, bound) or _mentions_vars(e.right, bound)
    return False


def _known(env: dict) -> str:
    return f"; known: {', '.join(sorted(env))}" if env else "; no parameters are declared"


def _inf(v) -> str:
    return "inf" if v is None else str(v)
