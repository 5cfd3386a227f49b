"""`tsdsl verify --repair`: the smallest change to a spec's guards, built from the language's
own predicates, that restores progress (no dead ends) and termination (no cycles) while
soundness and completeness keep holding, verified exhaustively, and printed as an
``extends`` spec.

**The candidate space.**  A *single edit* changes the explicit guard ``G`` of one case of
one action (implicit guards, such as an arc's "the dependent has no head", are never
touched) in one of three ways:

- ``drop``: delete one literal (an atom or a negated atom) that occurs in ``G``;
- ``and``: add a literal as a conjunct (the action is allowed in fewer configurations);
- ``or``:  add a literal as a disjunct (the action is allowed in more configurations).

The literals that may be added are the predicates of the language over the case's own
operands, each as written and negated, in this order: for every token variable the case's
pattern binds (in pattern order) ``has_head(x)``, ``is_root(x)`` (systems with a root),
``FLAG[x]`` for every token flag; ``x -> y`` for every ordered pair of those variables;
every global flag; then for every declared list ``empty(L)`` and ``len(L) == 1``.  A literal
whose atom already stands at the top level of ``G`` is not added (that would be a drop or
make the guard constant), nor is a disjunct added to a guard that is ``true``, nor a
conjunct that the language's static check proves the case can then never apply (``empty(β)``
for a pattern ``b|β``; the language refuses such a case, TS208).

A *candidate* is a set of single edits (at most one drop of each literal occurrence);
the edits to one guard combine as ``((G without the dropped literals) and A1 and ...) or
O1 or ...``.  Its *size* is the number of literals it adds or drops.

**Smallest.**  Candidates are ordered by size, then by the position of their edits in the
enumeration order: actions in spec order, cases in order, for each case its drops (in the
guard's reading order), then its disjuncts, then its conjuncts (each in the literal order
above): a dead end is a missing move, so allowing a move is tried before forbidding one.
The repair is the first candidate in that order that passes the checks below; candidates
that yield the same guards as an earlier one are skipped.  A candidate must also keep
every action usable: an action that applies somewhere in the original (at the screened
lengths) must still apply somewhere, so that disabling an action outright never passes for
a guard repair.

**Not removing a guard.**  Likewise a candidate must not make an edited guard *valid*: if,
in every configuration explored up to ``screen_n`` where the case's pattern (and implicit
guard) matches, the edited guard holds while the original one fails somewhere there, the
edit deletes the user's constraint rather than repairing it (``not (is_root(t) and rooted)
or not has_head(t)`` is always true, as the root never has a head).  Such candidates are
set aside (:attr:`RepairResult.set_aside`), never chosen, and named in the report.

**Checking.**  Every candidate is screened cheaply: sentence lengths 1, 2, ... up to
``screen_n`` are explored exhaustively and the candidate is dropped at its first failure
(a dead end, a cycle, an output outside the ``produces`` class, a tree of the ``covers``
class that is not derived, more than :data:`SCREEN_LIMIT` configurations, or an action no
longer usable).  Survivors of the smallest size that has any are then verified, in order,
by :func:`~tsdsl.verify.verifier.verify_system` exhaustively up to ``max_n`` (all four
properties; no random cases) until one holds.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .. import ir
from ..errors import UsageError
from ..interp import Interpreter, _Compiled
from ..ir.walk import pred_text
from ..lang import load_system_text, parse_file
from ..lang.static import never_applies
from ..lang.syntax import GREEK
from .classes import class_trees
from .space import SpaceTooLarge, explore, find_cycle
from .verifier import Verdict, output_problem, verify_system

SCREEN_N = 5
"""Sentence lengths every candidate is screened on (exhaustively, stopping at the first failure)."""
VERIFY_N = 7
"""Sentence lengths the chosen repair is verified on exhaustively."""
SCREEN_LIMIT = 300_000
"""Configurations one screened sentence length may have; beyond, the candidate is dropped."""
VERIFY_LIMIT = 2_000_000
"""Configurations one sentence length of the original spec may have (as for `tsdsl verify`)."""
TOO_LARGE = "exploration size"


# ---- edits -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """One literal dropped from, or added to, the guard of one case of one action."""

    action: str
    case: int
    kind: str          # "drop" | "and" | "or"
    literal: ir.Pred
    occurrence: int = -1   # drop: which literal of the guard, in reading order

    def describe(self, cases: int = 1, names: Optional[dict[str, str]] = None) -> str:
        where = self.action + (f" (case {self.case + 1})" if cases > 1 else "")
        lit = guard_text(self.literal, names)
        return {"drop": f"{where}: drop `{lit}` from the guard",
                "and": f"{where}: add `and {lit}` to the guard",
                "or": f"{where}: add `or {lit}` to the guard"}[self.kind]


def _atom(p: ir.Pred) -> ir.Pred:
    return p.item if isinstance(p, ir.Not) else p


def _is_literal(p: ir.Pred) -> bool:
    return not isinstance(_atom(p), (ir.All, ir.Any_, ir.Not, ir.Const))


def guard_literals(g: ir.Pred) -> list[ir.Pred]:
    """The literals of a guard (atoms or negated atoms) in reading order."""
    if _is_literal(g):
        return [g]
    if isinstance(g, ir.Not):
        return guard_literals(g.item)
    if isinstance(g, (ir.All, ir.Any_)):
        return [lit for item in g.items for lit in guard_literals(item)]
    return []


def _without(g: ir.Pred, drop: set[int], counter: list[int]) -> Optional[ir.Pred]:
    """``g`` with the literal occurrences ``drop`` deleted; None when nothing is left."""
    if _is_literal(g):
        k = counter[0]
        counter[0] += 1
        return None if k in drop else g
    if isinstance(g, ir.Not):
        inner = _without(g.item, drop, counter)
        return None if inner is None else ir.Not(inner)
    if isinstance(g, (ir.All, ir.Any_)):
        items = [x for x in (_without(i, drop, counter) for i in g.items) if x is not None]
        if not items:
            return None
        return items[0] if len(items) == 1 else type(g)(tuple(items))
    return g


def _top_items(g: ir.Pred) -> tuple[ir.Pred, ...]:
    return g.items if isinstance(g, (ir.All, ir.Any_)) else (g,)


def edited_guard(g: ir.Pred, edits: list[Edit]) -> ir.Pred:
    """``((g without the dropped literals) and A1 ...) or O1 ...`` for the edits of one case."""
    drops = {e.occurrence for e in edits if e.kind == "drop"}
    base = _without(g, drops, [0]) if drops else g
    base = ir.TRUE if base is None else base
    base = ir.conj(base, *[e.literal for e in edits if e.kind == "and"])
    ors = [e.literal for e in edits if e.kind == "or"]
    if not ors:
        return base
    if base == ir.TRUE:
        return ir.TRUE
    return ir.Any_(tuple(_top_items(base) if isinstance(base, ir.Any_) else (base,)) + tuple(ors))


def literal_pool(system: ir.System, case: ir.Case) -> list[ir.Pred]:
    """The literals an edit may add to ``case`` (see the module docstring), in order."""
    tokens = [item.var for m in case.match for item in m.items if isinstance(item, ir.Tok)]
    atoms: list[ir.Pred] = []
    for v in tokens:
        atoms.append(ir.HasHead(v))
        if system.root != "none":
            atoms.append(ir.IsRoot(v))
        atoms.extend(ir.TokenFlag(f, v) for f, _ in system.token_flags)
    atoms.extend(ir.ArcExists(a, b) for a in tokens for b in tokens if a != b)
    atoms.extend(ir.GlobalFlag(f) for f, _ in system.global_flags)
    for d in system.lists:
        atoms += [ir.Length(d.name, "==", 0), ir.Length(d.name, "==", 1)]
    return [lit for a in atoms for lit in (a, ir.Not(a))]


def single_edits(system: ir.System) -> list[Edit]:
    """Every single edit of ``system``, in the enumeration order of the module docstring."""
    out: list[Edit] = []
    for action in system.actions:
        for k, case in enumerate(action.cases):
            g = case.guard
            out.extend(Edit(action.name, k, "drop", lit, i) for i, lit in enumerate(guard_literals(g)))
            top = {_atom(x) for x in _top_items(g)}
            pool = [lit for lit in literal_pool(system, case) if _atom(lit) not in top]
            if g != ir.TRUE:
                out.extend(Edit(action.name, k, "or", lit) for lit in pool)
            out.extend(Edit(action.name, k, "and", lit) for lit in pool)
    return [e for e in out if can_apply(apply_edits(system, (e,)), (e,))]


def apply_edits(system: ir.System, edits: tuple[Edit, ...]) -> ir.System:
    """The system with the edits made to its guards."""
    by_case: dict[tuple[str, int], list[Edit]] = {}
    for e in edits:
        by_case.setdefault((e.action, e.case), []).append(e)
    actions = []
    for a in system.actions:
        cases = tuple(dataclasses.replace(c, guard=edited_guard(c.guard, by_case[(a.name, k)]))
                      if (a.name, k) in by_case else c for k, c in enumerate(a.cases))
        actions.append(dataclasses.replace(a, cases=cases))
    return dataclasses.replace(system, fixed_actions=tuple(actions))


def can_apply(system: ir.System, edits: tuple[Edit, ...]) -> bool:
    """Whether every case the edits change can still apply as far as the language's static
    check sees (a case it proves dead is refused by the language: TS208)."""
    touched = {(e.action, e.case) for e in edits}
    return not any(never_applies(c, system.root) for a in system.actions for k, c in enumerate(a.cases)
                   if (a.name, k) in touched)


def _guards(system: ir.System) -> tuple:
    return tuple(c.guard for a in system.actions for c in a.cases)


# ---- the screen -----------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """The first sentence length at which a system fails, and the properties failing there."""

    n: int
    properties: tuple[str, ...]
    unsound: str = ""  # when soundness fails: what is wrong with the first bad output ("a cycle", ...)

    def describe(self) -> str:
        return f"{' and '.join(self.properties)} fail{'s' if len(self.properties) == 1 else ''} at n = {self.n}"


def fragments_only(problem: str) -> bool:
    """Whether an output problem is only headless words (fragments), as arc-eager leaves on its
    stack by design (its claim says so; parsing attaches them), not a cycle or a second head."""
    return "without a head" in problem


def used_actions(system: ir.System, max_n: int, *, limit: int = SCREEN_LIMIT) -> set[str]:
    """The actions that apply in some reachable configuration of 1..max_n words."""
    it = Interpreter(system)
    used: set[str] = set()
    for n in range(1, max_n + 1):
        try:
            g = explore(it, n, limit=limit)
        except SpaceTooLarge:
            break
        used.update(a for out in g.edges for a, _ in out)
    return used


def first_failure(system: ir.System, max_n: int, *, limit: int = SCREEN_LIMIT, stop_early: bool = True,
                  usable: frozenset[str] = frozenset()) -> Optional[Failure]:
    """Explore sentence lengths 1..max_n exhaustively; the first length where soundness,
    completeness, progress or termination fails (all failing properties at that length when
    ``stop_early`` is False, else the first found), or None.  The actions in ``usable`` must
    apply somewhere by ``max_n`` (else the failure is "usable actions" at ``max_n``)."""
    it = Interpreter(system)
    used: set[str] = set()
    for n in range(1, max_n + 1):
        try:
            g = explore(it, n, limit=limit)
        except SpaceTooLarge:
            return Failure(n, (TOO_LARGE,))
        failing: list[str] = []
        derived = set()
        unsound = ""
        for node in range(g.size):
            c = g.configs[node]
            if g.terminal[node]:
                if "soundness" not in failing or fragments_only(unsound):
                    why = output_problem(it, c) or ""  # a worse problem than fragments is kept if any
                    if why and "soundness" not in failing:
                        failing.append("soundness")
                    if why and (not unsound or not fragments_only(why)):
                        unsound = why
                derived.add(tuple(it.output(c).heads) if not system.multihead else
                            frozenset((h, d) for h, d, _ in it.output(c).arcs))
            elif not g.edges[node] and "progress" not in failing:
                failing.append("progress")
            if failing and stop_early:
                return Failure(n, tuple(failing), unsound)
        used.update(a for out in g.edges for a, _ in out)
        if find_cycle(g) is not None:
            failing.append("termination")
            if stop_early:
                return Failure(n, tuple(failing), unsound)
        if system.covers != "any":
            for t in class_trees(system.covers, n):
                key = frozenset((h, d) for d, h in enumerate(t, 1)) if system.multihead else tuple(t)
                if key not in derived:
                    failing.append("completeness")
                    break
        if failing:
            order = ("soundness", "completeness", "progress", "termination")
            return Failure(n, tuple(sorted(failing, key=lambda p: order.index(p) if p in order else 9)), unsound)
    if not usable <= used:
        return Failure(max_n, (f"usability of {', '.join(sorted(usable - used))}",))
    return None


def removed_guards(system: ir.System, cand: ir.System, edits: tuple[Edit, ...], max_n: int, *,
                   limit: int = SCREEN_LIMIT) -> str:
    """Which edited guards ``edits`` make valid, described (``""`` when none): the edited guard
    of a case holds in every configuration of 1..max_n words reachable in ``cand`` where the
    case's pattern and implicit guard match, and the original guard fails in one of them.
    Such an edit removes the user's constraint instead of repairing it."""
    it = Interpreter(cand)
    touched = sorted({(e.action, e.case) for e in edits})
    originals = {(a.name, k): c for a in system.actions for k, c in enumerate(a.cases)}
    checks = {}
    for a in cand.actions:
        for k, c in enumerate(a.cases):
            if (a.name, k) in touched:
                checks[(a.name, k)] = (_Compiled(c.match, it._pred(c.implicit), it.list_index, c),
                                       it._pred(c.guard), it._pred(originals[(a.name, k)].guard))
    valid = {key: True for key in checks}
    narrowed = {key: False for key in checks}  # the original guard fails somewhere it matches
    for n in range(1, max_n + 1):
        try:
            g = explore(it, n, limit=limit)
        except SpaceTooLarge:
            break
        for node in range(g.size):
            c = g.configs[node]
            for key, (matcher, new, old) in checks.items():
                if not valid[key]:
                    continue
                env = matcher.bind(c)
                if env is None:
                    continue
                if not new(c, env):
                    valid[key] = False
                elif not old(c, env):
                    narrowed[key] = True
    cases = {a.name: len(a.cases) for a in system.actions}
    gone = [name + (f" (case {k + 1})" if cases[name] > 1 else "") for (name, k) in touched
            if valid[(name, k)] and narrowed[(name, k)]]
    if not gone:
        return ""
    return (f"the guard of {', '.join(gone)} would hold wherever {'its' if len(gone) == 1 else 'their'} pattern "
            f"matches at n <= {max_n}: that would be removing the guard, not repairing it")


# ---- the search -------------------------------------------------------------------------


@dataclass
class RepairResult:
    """What the search found.  ``status``: ``nothing`` (the spec needs no repair up to
    ``max_n``), ``repaired``, or ``not-found`` (no candidate up to ``max_size`` holds)."""

    system: ir.System
    status: str
    original: Optional[Failure]
    max_n: int
    screen_n: int
    max_size: int
    edits: tuple[Edit, ...] = ()
    repaired: Optional[ir.System] = None
    verdict: Optional[Verdict] = None
    screened: int = 0                      # candidates screened
    survivors: list[tuple[Edit, ...]] = field(default_factory=list)   # of the repair's size
    rejected: list[tuple[tuple[Edit, ...], str]] = field(default_factory=list)  # survived, failed at max_n
    set_aside: list[tuple[tuple[Edit, ...], str]] = field(default_factory=list)  # passed, but remove a guard
    seconds: float = 0.0

    def describe_edits(self, edits: Optional[tuple[Edit, ...]] = None) -> list[str]:
        cases = {a.name: len(a.cases) for a in self.system.actions}
        names = display_names(self.system)
        return [e.describe(cases[e.action], names) for e in (self.edits if edits is None else edits)]


def repairable(system: ir.System) -> None:
    """Refuse systems the search cannot change or print (with the reason)."""
    if system.unbounded:
        raise UsageError(f"{system.source_file}: --repair needs a fixed set of transitions (capacity K = inf "
                         "makes them families); set K (e.g. --set K=4)")
    if system.style != "rewrite":
        raise UsageError(f"{system.source_file}: --repair edits the guards of rewrite rules; this spec is "
                         "written with control parameters")


def find_repair(system: ir.System, *, max_n: int = VERIFY_N, screen_n: int = SCREEN_N, max_size: int = 2,
                progress: Optional[Callable[[str], None]] = None) -> RepairResult:
    """Search for the smallest guard change that makes ``system`` pass all four properties
    exhaustively up to ``max_n`` (see the module docstring)."""
    t0 = time.time()
    repairable(system)
    say = progress or (lambda _msg: None)
    screen_n = min(screen_n, max_n)
    # the exhaustive check of the spec as written can take a minute or more (Covington at
    # n <= 7: 80 s) before anything else is said: announce it
    say(f"{system.source_file}: verifying the spec as written exhaustively for n <= {max_n} "
        "(can take a minute) ...")
    original = first_failure(system, max_n, stop_early=False, limit=VERIFY_LIMIT)
    if original is not None and TOO_LARGE in original.properties:
        raise UsageError(f"{system.source_file}: more than {VERIFY_LIMIT:,} configurations at n = {original.n}; "
                         "verify the repair on shorter sentences (a lower --max-n)")
    result = RepairResult(system, "nothing", original, max_n, screen_n, max_size)
    if original is None:
        result.seconds = round(time.time() - t0, 2)
        return result
    if not set(original.properties) <= {"progress", "termination"}:
        raise UsageError(f"{system.source_file}: {original.describe()}; --repair restores progress and "
                         "termination and keeps soundness and completeness; it cannot repair "
                         f"{' or '.join(p for p in original.properties if p not in ('progress', 'termination'))}")
    singles = single_edits(system)
    usable = frozenset(used_actions(system, screen_n))
    say(f"{len(singles)} single edits; screening candidates up to size {max_size} at n <= {screen_n}")
    seen = {_guards(system)}
    for size in range(1, max_size + 1):
        survivors: list[tuple[tuple[Edit, ...], ir.System]] = []
        for combo in itertools.combinations(singles, size):
            if len({(e.action, e.case, e.kind, e.literal, e.occurrence) for e in combo}) < size:
                continue
            cand = apply_edits(system, combo)
            key = _guards(cand)
            if key in seen or not can_apply(cand, combo):
                continue
            seen.add(key)
            result.screened += 1
            if first_failure(cand, screen_n, usable=usable) is None:
                removed = removed_guards(system, cand, combo, screen_n)
                if removed:
                    result.set_aside.append((combo, removed))  # named in the report
                else:
                    survivors.append((combo, cand))
        say(f"size {size}: {result.screened} candidates screened so far, {len(survivors)} pass at n <= {screen_n}")
        for combo, cand in survivors:
            verdict = verify_system(cand, max_n=max_n, examples=0)
            if verdict.ok and verdict.exhaustive_up_to >= max_n:
                result.status, result.edits, result.repaired, result.verdict = "repaired", combo, cand, verdict
                result.survivors = [c for c, _ in survivors]
                result.seconds = round(time.time() - t0, 2)
                return result
            bad = [p for p, r in verdict.properties.items() if r.holds is False]
            why = (f"{', '.join(bad)} fail{'s' if len(bad) == 1 else ''} at n <= {max_n}" if bad
                   else f"explored only up to n = {verdict.exhaustive_up_to}")
            result.rejected.append((combo, why))
            say(f"  rejected at n <= {max_n}: {'; '.join(result.describe_edits(combo))} ({why})")
    result.status = "not-found"
    result.seconds = round(time.time() - t0, 2)
    return result


# ---- printing -------------------------------------------------------------------------


def display_names(system: ir.System) -> dict[str, str]:
    """How the spec spells its list names: ``sigma`` -> ``σ`` when its sources write ``σ``."""
    texts = "".join(Path(f).read_text(encoding="utf-8") for f in system.sources if Path(f).is_file())
    out = {}
    for d in system.lists:
        greek = d.name
        for letter, word in sorted(GREEK.items(), key=lambda kv: -len(kv[1])):
            greek = greek.replace(word, letter)
        if greek != d.name and greek in texts:
            out[d.name] = greek
    return out


def guard_text(p: ir.Pred, names: Optional[dict[str, str]] = None) -> str:
    """A predicate in spec syntax, with ``empty(L)`` for a zero length and lists spelled as
    in ``names``."""
    names = names or {}
    if isinstance(p, ir.Length):
        lst = names.get(p.list, p.list)
        return f"empty({lst})" if p.op == "==" and p.value == 0 else f"len({lst}) {p.op} {p.value}"
    if isinstance(p, ir.Not):
        inner = guard_text(p.item, names)
        return f"not ({inner})" if isinstance(p.item, (ir.All, ir.Any_)) else f"not {inner}"
    if isinstance(p, (ir.All, ir.Any_)):
        sep = " and " if isinstance(p, ir.All) else " or "
        return sep.join(f"({guard_text(i, names)})" if isinstance(i, (ir.All, ir.Any_)) else guard_text(i, names)
                        for i in p.items)
    if isinstance(p, ir.InList):
        return f"{pred_text(p).rsplit(' in ', 1)[0]} in {names.get(p.list, p.list)}"
    return pred_text(p)


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(l) + 1 for l in lines[:line - 1]) + col - 1


def action_text(action: ir.Action, new_guards: dict[int, ir.Pred], names: Optional[dict[str, str]] = None) -> str:
    """The action's rewrite rule as written in its spec, with the guards of the cases in
    ``new_guards`` replaced."""
    spec = parse_file(action.origin.file)
    rule = next((st for st in spec.statements if getattr(st, "name", None) == action.name
                 and getattr(st, "cases", None) is not None and st.span.line == action.origin.line), None)
    if rule is None:
        raise UsageError(f"{action.origin}: cannot find the rule of {action.name} to print its repair")
    text = spec.text
    lines = text.split("\n")
    start = _offset(lines, rule.span.line, rule.span.col)
    last = rule.cases[-1].span
    end = _offset(lines, last.end_line, last.end_col)
    pieces: list[tuple[int, int, str]] = []
    for k, case in enumerate(rule.cases):
        if k not in new_guards:
            continue
        new = guard_text(new_guards[k], names)
        if case.guards:
            a = _offset(lines, case.guards[0].span.line, case.guards[0].span.col)
            b = _offset(lines, case.guards[-1].span.end_line, case.guards[-1].span.end_col)
            pieces.append((a, b, new))
        else:
            b = _offset(lines, case.span.end_line, case.span.end_col)
            pieces.append((b, b, f"  if {new}"))
    out = text[start:end]
    for a, b, new in sorted(pieces, reverse=True):
        out = out[:a - start] + new + out[b - start:]
    return out


def repair_spec(result: RepairResult, extends: str) -> str:
    """The repair as an ``extends`` spec of the original; ``extends`` is the path to write."""
    if result.repaired is None:
        raise ValueError("no repair to print")
    s = result.system
    changed: dict[str, dict[int, ir.Pred]] = {}
    for e in result.edits:
        action = next(a for a in result.repaired.actions if a.name == e.action)
        changed.setdefault(e.action, {})[e.case] = action.cases[e.case].guard
    size = len(result.edits)
    lines = [f"# The smallest guard repair of {Path(s.source_file).name} found by `tsdsl verify --repair`",
             f"# ({size} literal{'s' if size != 1 else ''} changed):"]
    lines += [f"#   {d}" for d in result.describe_edits()]
    lines.append(f"# Verified exhaustively for n <= {result.max_n}: soundness, completeness, progress and "
                 "termination hold.")
    title = f"{s.title} (guards repaired)".replace("\\", "\\\\").replace('"', '\\"')
    lines.append(f'system {s.name}_repaired "{title}"')
    lines.append(f'  extends  "{extends}"')
    for a in s.actions:
        if a.name in changed:
            lines.append("  " + action_text(a, changed[a.name], display_names(s)))
    return "\n".join(lines) + "\n"


def check_printed(result: RepairResult, text: str, file: str) -> ir.System:
    """Load the printed spec (as if saved at ``file``) and make sure it lowers to the repaired
    guards; a printing mistake must never pass for a verified repair."""
    loaded = load_system_text(text, file=file)
    if result.repaired is None or _guards(loaded) != _guards(result.repaired):
        raise RuntimeError(f"the printed repair of {result.system.source_file} does not load to the verified "
                           "guards (a bug in tsdsl: please report it)")
    return loaded


def extends_path(original: str, target_dir: Optional[str]) -> str:
    """How the repair spec names the original: relative to the directory it will be saved in,
    or absolute when it is printed."""
    src = Path(original).resolve()
    if target_dir is None:
        return src.as_posix()
    return Path(os.path.relpath(src, Path(target_dir).resolve())).as_posix()


def render_result(result: RepairResult) -> str:
    """The report printed before the spec (or instead of it)."""
    s = result.system
    if result.status == "nothing":
        return (f"{s.source_file}: nothing to repair: soundness, completeness, progress and termination hold "
                f"exhaustively for n <= {result.max_n} ({result.seconds:.1f} s)")
    head = f"{s.source_file}: {result.original.describe() if result.original else ''}"
    aside = [f"  set aside (removes a guard): {'; '.join(result.describe_edits(c))}" for c, _ in result.set_aside]
    if aside:
        aside.insert(0, f"  {len(result.set_aside)} candidate(s) passed the screen but make an edited guard true "
                        f"wherever its pattern matches at n <= {result.screen_n}: that would be removing the guard, "
                        "not repairing it")
    if result.status == "not-found":
        return "\n".join([head + f"; no repair of at most {result.max_size} literal(s) found: {result.screened} "
                          f"candidates screened at n <= {result.screen_n}, {len(result.rejected)} verified and "
                          f"rejected at n <= {result.max_n} ({result.seconds:.1f} s)"] + aside)
    lines = [head + f"; repaired by {len(result.edits)} literal(s), verified exhaustively for n <= {result.max_n}:"]
    lines += [f"  {d}" for d in result.describe_edits()]
    others = [c for c in result.survivors if c != result.edits]
    lines.append(f"  ({result.screened} candidates screened at n <= {result.screen_n}; "
                 f"{len(result.survivors)} of this size passed the screen"
                 + (f", {len(result.rejected)} of them rejected at n <= {result.max_n}" if result.rejected else "")
                 + f"; {result.seconds:.1f} s)")
    for c in others:
        if c not in [r for r, _ in result.rejected]:
            lines.append("  also passed the screen (not verified): " + "; ".join(result.describe_edits(c)))
    return "\n".join(lines + aside)
