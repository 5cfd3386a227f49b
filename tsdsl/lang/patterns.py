"""Configuration patterns (left-hand sides and ``terminal``) to IR list matches."""

from __future__ import annotations

from .. import ir
from . import codes
from . import syntax as S
from .context import Context
from .guards import lower_guard


def lower_pattern(ctx: Context, cfg: S.ConfigPat, names: tuple[str, ...]) -> tuple[list[ir.ListMatch], set[str]]:
    if len(cfg.lists) != len(names):
        ctx.err(codes.LIST_SHAPE, f"this configuration has {len(cfg.lists)} lists but the system has {len(names)} "
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
                    ctx.err(codes.MOVING_TOKENS, f"{name} appears twice in one pattern", it.span)
                items.append(ir.Rest(name))
            elif it.name in names or it.name == "1..n":
                ctx.err(codes.LIST_SHAPE, f"{it.name!r} cannot appear in the pattern of list {name}", it.span)
            else:
                if it.name in bound:
                    ctx.err(codes.TWICE, f"token variable {it.name!r} is bound twice", it.span)
                bound.add(it.name)
                items.append(ir.Tok(it.name))
        if lp.kind == "open" and not any(isinstance(x, ir.Rest) for x in items) and items:
            ctx.err(codes.LIST_SHAPE, f"the pattern of list {name} must mention {name} (e.g. {name}|x) or be written "
                    "in brackets for an exact shape", lp.span)
        out.append(ir.ListMatch(name, tuple(items)))
    return out, bound


def lower_terminal(ctx: Context, st: S.Terminal, lists, root: str) -> ir.Terminal:
    names = tuple(d.name for d in lists)
    match, bound = lower_pattern(ctx, st.config, names)
    guard = lower_guard(ctx, st.guard, bound, root) if st.guard is not None else ir.TRUE
    return ir.Terminal(tuple(match), guard, st.span)
