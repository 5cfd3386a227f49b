"""Oracle blocks: ``oracle NAME`` with its reachability rule, losses and penalties,
lowered against the system's actions.

A penalty names one action as `show` names it (``LEFT-ARC(2,1)``), or a family by its plain
name (``LEFT-ARC``): the penalty then holds for every instance, at every sentence length,
and its guard may use the variables every instance binds.  The IR keeps the name as
written; consumers match it against an action's ``name`` or ``family``
(:func:`tsdsl.ir.penalty_applies`)."""

from __future__ import annotations

from .. import ir
from . import codes
from . import syntax as S
from .context import Context
from .guards import lower_guard
from .hints import close_names


def lower_oracles(ctx: Context, system: ir.System, root: str) -> tuple[ir.Oracle, ...]:
    """The oracle blocks of the spec, each checked against the system's actions."""
    out = []
    actions = {a.name: a for a in system.actions_for(8)}
    for decl, *rules in ctx.m.oracles.values():
        name = decl.name
        reach = None
        losses: list[ir.LossExpr] = []
        penalties = []
        for r in rules:
            if isinstance(r, S.ReachRule):
                if reach is not None:
                    ctx.err(codes.TWICE, f"oracle {name!r} has two reachability rules", r.span)
                    continue
                if r.head == r.dep:
                    ctx.err(codes.TWICE, "the head and dependent variables of a reachability rule must differ",
                            r.span)
                reach = (r.positive, r.head, r.dep, lower_guard(ctx, r.guard, {r.head, r.dep}, root, oracle=True))
            elif isinstance(r, S.LossRule):
                lname = r.name or "loss"
                if any(l.name == lname for l in losses):
                    ctx.err(codes.TWICE, f"loss {lname!r} is declared twice in oracle {name!r}", r.span)
                for k, t in enumerate(r.terms):
                    if t not in ir.LOSS_TERMS:
                        ctx.err(codes.BAD_LOSS, f"unknown loss term {t!r}{close_names(t, ir.LOSS_TERMS)}; known: "
                                f"{', '.join(ir.LOSS_TERMS)}", r.term_spans[k] if k < len(r.term_spans) else r.span)
                bound = r.bound or "exact"
                if bound not in ("exact", "lower", "upper"):
                    ctx.err(codes.BAD_LOSS, f"a loss is `bound lower` or `bound upper` (or exact), not {bound!r}",
                            r.span)
                losses.append(ir.LossExpr(lname, r.terms, bound))
            else:
                targets = _penalty_targets(ctx, r, actions)
                if not targets:
                    continue
                # the guard may use what every named action binds (its first case's variables)
                bound_vars = set.intersection(*({i.var for c in a.cases[:1] for m in c.match for i in m.items
                                                 if isinstance(i, ir.Tok)} for a in targets))
                penalties.append((r.action, lower_guard(ctx, r.guard, bound_vars, root, oracle=True)))
        if reach is None:
            ctx.err(codes.ORACLE_WITHOUT_REACH, f"oracle {name!r} needs a `reachable h -> d if ...` or "
                    "`unreachable h -> d if ...` rule", decl.span)
        if not losses:
            losses.append(ir.LossExpr("loss", ("unreachable",), "exact"))
        out.append(ir.Oracle(name, decl.title or name, reach, tuple(losses), tuple(penalties), decl.span))
    return tuple(out)


def _penalty_targets(ctx: Context, r: S.PenaltyRule, actions: dict[str, ir.Action]) -> list[ir.Action]:
    """The actions a penalty names: the action (or instance) of that name, else every instance
    of the family of that name; reports TS233 (with the closest names) when there is none."""
    if r.action in actions:
        return [actions[r.action]]
    family = [a for a in actions.values() if a.family == r.action]
    if family:
        return family
    names = set(actions) | {a.family for a in actions.values() if a.family}
    plain = sorted({a.family or a.name for a in actions.values()})
    families = any(a.name != (a.family or a.name) for a in actions.values())
    ctx.err(codes.PENALTY_ACTION, f"penalty for unknown action {r.action!r}{close_names(r.action, names, n=3)}; "
            f"the actions are {', '.join(plain)}"
            + (" (a family's name covers all its instances; `show` names each one)" if families else ""), r.span)
    return []
