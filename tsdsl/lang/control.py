"""Control-parameter systems (Bohnet et al. 2016, §3.4 and §4): each transition
(←, →, −, + with B, S, P) instantiated per index pair of O into rewrite cases over the
lists O and U; with capacity inf, one action family per transition (IR data whose
numbers are affine in the indexes)."""

from __future__ import annotations

from typing import Optional

from .. import ir
from ..errors import UsageError
from . import codes
from . import syntax as S
from .context import Context
from .guards import arc_implicit
from .patterns import lower_terminal

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
MAX_CAPACITY = 64  # a finite K beyond this is rejected (K = inf instantiates per sentence instead)


def _bad_setting(ctx: Context, code: str, message: str, key: str, short: str, value) -> None:
    """Report a capacity, distance or start out of range: against the `--set` option that gave
    it (a usage error), else against the spec's line (or its header when the line is absent)."""
    given = [k for k in (short, key) if k in ctx.overrides]
    if given:
        raise UsageError(f"--set {given[0]}={value}: {message}")
    ctx.err(code, message, ctx.m.singles[key].span if key in ctx.m.singles else ctx.m.header_span)


def lower_control(ctx: Context, cp: list[S.CPTransition], common: dict, multihead: bool, root: str):
    """The IR system of a control-parameter spec: lists O and U, and each transition
    instantiated for capacity K and distance D (or, with K = inf, as action families)."""
    sv = ctx.setting_values
    K = sv.get("capacity", 2)
    D = sv.get("distance", 1)
    if "capacity" in sv and K is not None and K < 1:
        _bad_setting(ctx, codes.BAD_CAPACITY, f"capacity K must be at least 1, not {K}", "capacity", "K", K)
        K = 2
    elif K is not None and K > MAX_CAPACITY:  # K*K actions: a huge K would hang the checker
        _bad_setting(ctx, codes.BAD_CAPACITY, f"capacity K must be at most {MAX_CAPACITY}, not {K} (write `capacity "
                     "inf` for an unbounded capacity)", "capacity", "K", K)
        K = 2
    if D is None:
        D = 10**9
    elif D < 1:
        _bad_setting(ctx, codes.BAD_DISTANCE, f"distance D must be at least 1, not {D}", "distance", "D", D)
        D = 1
    start = sv.get("start", K)
    if start is not None and start < 0:
        _bad_setting(ctx, codes.BAD_CAPACITY, f"start must be at least 0, not {start}", "start", "start", start)
        start = 0
    reading = "active"
    if "periphery" in ctx.m.singles:
        st = ctx.m.singles["periphery"]
        if st.reading not in PERIPHERY_READINGS:
            ctx.err(codes.BAD_SETTING, f"periphery reading must be active or capacity, not {st.reading!r}", st.span)
        else:
            reading = st.reading
    for key in ("lists", "initial"):
        if key in ctx.m.singles:
            ctx.err(codes.MIXED_STYLES, f"`{key}` is for rewrite-rule systems; control-parameter systems use O and U",
                    ctx.m.singles[key].span)
    specs = [_cp_params(ctx, t) for t in cp]
    lists = (ir.ListDecl("O", "R"), ir.ListDecl("U", "L"))
    seq = ("root", "words") if root == "left" else ("words", "root") if root == "right" else ("words",)
    initial = ir.Initial((seq, ()), split=start if start is not None else 10**9)
    terminal = _cp_terminal(ctx, lists, root)
    params = tuple(sorted(ctx.env.items()))
    settings = (("capacity", K), ("distance", None if D >= 10**9 else D), ("start", start),
                ("periphery", reading))

    def build(k_eff: int, report: bool) -> tuple[ir.Action, ...]:
        actions = []
        for t, ps in zip(cp, specs):
            if ps is None:
                continue
            made = _cp_instances(t, ps, k_eff, D, reading, multihead=multihead, root=root)
            if not made and report:
                ctx.err(codes.NEVER_APPLIES, f"transition {t.name!r} can never apply: no index pair fits "
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


def _cp_params(ctx: Context, t: S.CPTransition) -> Optional[dict]:
    base = CP_BASES.get(t.base)
    if base is None:
        ctx.err(codes.UNKNOWN_CONTROL, f"unknown base operation {t.base!r}; use ←, →, −, + (or left_arc, "
                "right_arc, reduce, shift)", t.span)
        return None
    out = {"base": base, "B": True, "S": False, "P": "na", "cls": t.classes[0][0] if t.classes else None}
    for p in t.params:
        key = CP_KEYS.get(p.key)
        if key is None:
            ctx.err(codes.UNKNOWN_CONTROL, f"unknown control parameter {p.key!r}; use B (bottom-up), S (arc-shift) or "
                    "P (periphery)", p.span)
            continue
        if base == "shift":
            what = {"P": "periphery", "B": "bottom-up", "S": "arc-shift"}[key]
            ctx.err(codes.SHIFT_PARAMETER, f"{what} ({p.key}) does not apply to a shift", p.span)
            continue
        if base == "reduce" and key in ("B", "S"):
            ctx.err(codes.REDUCE_PARAMETER, f"{p.key} does not apply to a reduce (only P does)", p.span)
            continue
        if key in ("B", "S"):
            if p.value.lower() not in TRUTH:
                ctx.err(codes.BAD_VALUE, f"{p.key} takes true or false, not {p.value!r}", p.span)
                continue
            out[key] = TRUTH[p.value.lower()]
        else:
            if p.value.lower() not in PERIPHERIES:
                ctx.err(codes.BAD_VALUE, f"P takes left, right or na, not {p.value!r}", p.span)
                continue
            out["P"] = PERIPHERIES[p.value.lower()]
    return out


def _cp_terminal(ctx: Context, lists, root: str) -> ir.Terminal:
    st = ctx.m.singles.get("terminal")
    if st is None:
        return ir.Terminal((ir.ListMatch("O", (ir.Tok("x"),)), ir.ListMatch("U", ())), ir.TRUE,
                           ctx.m.header_span)
    return lower_terminal(ctx, st, lists, root)


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
    return ir.Case(tuple(match), guard, arc_implicit(op, multihead, root), (op,), tuple(result), (), t.span)


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



def _inf(v) -> str:
    return "inf" if v is None else str(v)
