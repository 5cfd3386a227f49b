"""Configuration patterns (left-hand sides and ``terminal``) to IR list matches."""

from __future__ import annotations

import dataclasses
import difflib
from typing import Optional

from .. import ir
from ..errors import Span
from . import codes
from . import syntax as S
from .context import Context
from .guards import lower_guard


def names_in(*nodes) -> set[str]:
    """Every name in some AST nodes (token variables, but also functions, flags and lists: a
    superset is enough for :func:`_misspelt_list`)."""
    out: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.add(node)
        elif isinstance(node, tuple):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, Span):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
    return out


def _misspelt_list(lp: S.ListPat, used_elsewhere: set[str], names: tuple[str, ...]):
    """The item of an open pattern that stands where its list should (an end) and is no token
    variable: ``stack`` in ``(stack|t|s, b|β)``.  Only a name used nowhere else in the rule
    and of three characters or more (or close to a list's name); a short name such as ``t``
    is taken for a token variable, so ``(t|s, b|β)`` still says that the pattern must
    mention σ."""
    for it in dict.fromkeys((lp.items[0], lp.items[-1])):
        if it.name not in used_elsewhere and it.name not in names and it.name != "1..n" and (
                len(it.name) >= 3 or difflib.get_close_matches(it.name, names, n=1, cutoff=0.5)):
            return it
    return None


def lower_pattern(ctx: Context, cfg: S.ConfigPat, names: tuple[str, ...],
                  used_elsewhere: Optional[set[str]] = None) -> tuple[list[ir.ListMatch], set[str]]:
    """The list matches of a left-hand side (or ``terminal``) and the token variables it
    binds.  ``used_elsewhere``: the names the rest of the rule uses, to tell a misspelt list
    name from a token variable."""
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
        typo = None
        if lp.kind == "open" and lp.items and all(it.name != name for it in lp.items) and used_elsewhere is not None:
            typo = _misspelt_list(lp, used_elsewhere, names)
        for it in lp.items:
            if it is typo:
                ctx.err(codes.LIST_SHAPE, f"unknown list {it.name!r} in the pattern; the lists are {', '.join(names)} "
                        f"(did you mean {name}?)", it.span)
                items.append(ir.Rest(name))  # as if spelt right: no knock-on errors about the rest of the list
            elif it.name == name and lp.kind == "open":
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
    match, bound = lower_pattern(ctx, st.config, names, names_in(st.guard))
    guard = lower_guard(ctx, st.guard, bound, root) if st.guard is not None else ir.TRUE
    return ir.Terminal(tuple(match), guard, st.span)
