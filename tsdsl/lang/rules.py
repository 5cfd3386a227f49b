"""Rewrite-rule systems (``NAME : lhs => rhs``): lists, initial configuration, and each
rule checked and translated into IR cases."""

from __future__ import annotations

from typing import Optional

from .. import ir
from . import codes
from . import syntax as S
from .context import Context
from .guards import arc_implicit, lower_guard
from .patterns import lower_pattern, lower_terminal, names_in
from .static import never_applies

ARC_OPTIONS = {"overwrite": "overwrite", "break_cycle": "break_cycle", "break-cycle": "break_cycle",
               "unlabeled": "unlabeled"}


def lower_rules(ctx: Context, rules: list[S.RuleTransition], common: dict, multihead: bool, root: str):
    """The IR system of a rewrite-rule spec: its lists (open ends inferred from the patterns),
    initial and terminal configurations, and one action per rule."""
    names = ctx.list_names()
    for key in ("capacity", "distance", "start", "periphery"):
        if key in ctx.m.singles:
            ctx.err(codes.MIXED_STYLES, f"`{key}` is a control parameter; it has no meaning in a rewrite-rule system",
                    ctx.m.singles[key].span)
    open_ends = _open_ends(rules, names)
    lists = tuple(ir.ListDecl(n, open_ends[n]) for n in names)
    initial = _initial(ctx, names, root)
    st = ctx.m.singles.get("terminal")
    if st is None:
        ctx.err(codes.NO_TRANSITIONS, "a rewrite-rule system needs a `terminal` line, e.g. `terminal (σ, [])`",
                ctx.m.header_span)
        terminal = ir.Terminal(tuple(ir.ListMatch(n, ()) for n in names), ir.TRUE, ctx.m.header_span)
    else:
        terminal = lower_terminal(ctx, st, lists, root)
    actions = []
    for t in rules:
        a = _rule_action(ctx, t, lists, multihead, root)
        if a is not None:
            actions.append(a)
    return ir.System(lists=lists, initial=initial, terminal=terminal, params=tuple(sorted(ctx.env.items())),
                     style="rewrite", fixed_actions=tuple(actions), **common)


def _open_ends(rules, names) -> dict[str, str]:
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


def _initial(ctx: Context, names, root: str) -> ir.Initial:
    st = ctx.m.singles.get("initial")
    if st is None:
        lists = [() for _ in names]
        lists[-1] = ("words", "root") if root == "right" else ("words",)
        if root == "left":
            lists[0] = ("root",) + (lists[0] if len(names) == 1 else ())
        return ir.Initial(tuple(lists))
    cfg = st.config
    if len(cfg.lists) != len(names):
        ctx.err(codes.LIST_SHAPE, f"`initial` gives {len(cfg.lists)} lists but the system has {len(names)} "
                f"({', '.join(names)})", cfg.span)
        return ir.Initial(tuple(() for _ in names))
    out, used = [], []
    for lp in cfg.lists:
        items = []
        for it in lp.items:
            word = "words" if it.name in ("1..n", "words") else it.name
            if word not in ("words", "root"):
                ctx.err(codes.INITIAL, f"an initial list holds only `root` and `1..n` (the words), not {it.name!r}",
                        it.span)
                continue
            if word == "root" and root == "none":
                ctx.err(codes.INITIAL, "`root` in the initial configuration, but the system says `root none`",
                        it.span)
                continue
            if word in used:
                ctx.err(codes.INITIAL, f"{it.name!r} appears twice in the initial configuration", it.span)
            used.append(word)
            items.append(word)
        out.append(tuple(items))
    if "words" not in used:
        ctx.err(codes.INITIAL, "the initial configuration must place the words (1..n)", cfg.span)
    if root in ("left", "right") and "root" not in used:
        ctx.err(codes.INITIAL, f"`root {root}` but the initial configuration does not place `root`", cfg.span)
    return ir.Initial(tuple(out))


def _rule_action(ctx: Context, t: S.RuleTransition, lists, multihead: bool, root: str) -> Optional[ir.Action]:
    names = tuple(d.name for d in lists)
    cases = []
    classes = []
    for c in t.cases:
        case = _rule_case(ctx, t, c, names, multihead, root)
        classes.extend(c.classes)
        if case is not None:
            cases.append(case)
    cls_names = {n for n, _ in classes}
    if len(cls_names) > 1:
        ctx.err(codes.TWO_CLASSES, f"transition {t.name!r} is given two classes: {', '.join(sorted(cls_names))}",
                classes[1][1])
    if not cases:
        return None
    return ir.Action(t.name, classes[0][0] if classes else t.name, tuple(cases), t.span, family=t.name)


def _rule_case(ctx: Context, t, c: S.RuleCase, names, multihead: bool, root: str) -> Optional[ir.Case]:
    before = len(ctx.sink.items)
    match, bound = lower_pattern(ctx, c.lhs, names, names_in(c.rhs, c.guards, c.arcs, c.assigns))
    has_rest = {m.list for m in match if m.has_rest}
    result: list[tuple[ir.Item, ...]] = []
    used_tok: set[str] = set()
    used_rest: set[str] = set()
    if len(c.rhs.lists) != len(names):
        ctx.err(codes.LIST_SHAPE, f"the right-hand side has {len(c.rhs.lists)} lists but the system has {len(names)} "
                f"({', '.join(names)})", c.rhs.span)
    for k in range(len(names)):
        if k >= len(c.rhs.lists):
            result.append(())
            continue
        items: list[ir.Item] = []
        for it in c.rhs.lists[k].items:
            if it.name in names:
                if it.name not in has_rest:
                    ctx.err(codes.MOVING_TOKENS, f"{it.name} has no rest here: its left-hand pattern is exact", it.span)
                elif it.name in used_rest:
                    ctx.err(codes.MOVING_TOKENS, f"the rest of {it.name} is used twice", it.span)
                used_rest.add(it.name)
                items.append(ir.Rest(it.name))
            elif it.name not in bound:
                ctx.err(codes.UNBOUND, f"token variable {it.name!r} is not bound on the left-hand side", it.span)
            else:
                if it.name in used_tok:
                    ctx.err(codes.MOVING_TOKENS, f"token {it.name!r} would be in two places at once", it.span)
                used_tok.add(it.name)
                items.append(ir.Tok(it.name))
        result.append(tuple(items))
    for lost in sorted(has_rest - used_rest):
        ctx.err(codes.MOVING_TOKENS, f"the rest of {lost} disappears on the right-hand side (tokens would be lost)",
                c.rhs.span)
    guard = ir.conj(*[lower_guard(ctx, g, bound, root) for g in c.guards])
    arcs, implicit = [], []
    for a in c.arcs:
        for v, vspan in ((a.head, a.head_span), (a.dep, a.dep_span)):
            if v not in bound:
                ctx.err(codes.UNBOUND, f"token variable {v!r} in the arc is not bound on the left-hand side", vspan)
        opts = set()
        for o, ospan in a.options:
            if o not in ARC_OPTIONS:
                ctx.err(codes.ARC_OPTION, f"unknown arc option {o!r}; use overwrite, break_cycle or unlabeled", ospan)
            else:
                opts.add(ARC_OPTIONS[o])
        op = ir.ArcOp(a.head, a.dep, "unlabeled" not in opts, "overwrite" in opts, "break_cycle" in opts)
        arcs.append(op)
        implicit.append(arc_implicit(op, multihead, root))
    sets = []
    for asg in c.assigns:
        value = lower_guard(ctx, asg.value, bound, root)
        if asg.index is None:
            if asg.flag not in ctx.global_flags:
                ctx.unknown_flag(asg.flag, asg.span, indexed=False)
        else:
            if asg.flag not in ctx.token_flags:
                ctx.unknown_flag(asg.flag, asg.span, indexed=True)
            if asg.index not in bound:
                ctx.err(codes.UNBOUND, f"token variable {asg.index!r} is not bound on the left-hand side",
                        asg.index_span or asg.span)
        sets.append(ir.SetFlag(asg.flag, asg.index, value))
    if len(ctx.sink.items) > before:
        return None
    case = ir.Case(tuple(match), guard, ir.conj(*implicit), tuple(arcs), tuple(result), tuple(sets), c.span)
    why = never_applies(case, root)
    if why:
        ctx.err(codes.NEVER_APPLIES, f"transition {t.name!r} can never apply: {why}", c.span)
    return case
