"""Oracle blocks: ``oracle NAME`` with its reachability rule, losses and penalties,
lowered against the system's actions."""

from __future__ import annotations

from .. import ir
from . import codes
from . import syntax as S
from .context import Context
from .guards import lower_guard


def lower_oracles(ctx: Context, system: ir.System, root: str) -> tuple[ir.Oracle, ...]:
    """The oracle blocks of the spec, each checked against the system's actions."""
    out = []
    actions = {a.name: a for a in system.actions_for(8)}
    for name, (decl, *rules) in ctx.m.oracles.items():
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
                for t in r.terms:
                    if t not in ir.LOSS_TERMS:
                        ctx.err(codes.BAD_LOSS, f"unknown loss term {t!r}; known: {', '.join(ir.LOSS_TERMS)}", r.span)
                bound = r.bound or "exact"
                if bound not in ("exact", "lower", "upper"):
                    ctx.err(codes.BAD_LOSS, f"a loss is `bound lower` or `bound upper` (or exact), not {bound!r}",
                            r.span)
                losses.append(ir.LossExpr(lname, r.terms, bound))
            else:
                action = actions.get(r.action)
                if action is None:
                    ctx.err(codes.PENALTY_ACTION, f"penalty for unknown action {r.action!r}", r.span)
                    continue
                bound_vars = {v for c in action.cases[:1] for m in c.match for i in m.items
                              if isinstance(i, ir.Tok) for v in [i.var]}
                penalties.append((r.action, lower_guard(ctx, r.guard, bound_vars, root, oracle=True)))
        if reach is None:
            ctx.err(codes.ORACLE_WITHOUT_REACH, f"oracle {name!r} needs a `reachable h -> d if ...` or "
                    "`unreachable h -> d if ...` rule", decl.span)
        if not losses:
            losses.append(ir.LossExpr("loss", ("unreachable",), "exact"))
        out.append(ir.Oracle(name, decl.title or name, reach, tuple(losses), tuple(penalties), decl.span))
    return tuple(out)
