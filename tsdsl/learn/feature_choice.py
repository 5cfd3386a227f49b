"""Which packaged feature file suits a system: chosen by the shape of its lists and actions.
``tsdsl train`` without ``--features`` trains with it, plus templates for any list position
the actions reach that it does not read (:mod:`tsdsl.learn.feature_reach`; docs/features.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .. import ir


def default_features(system: ir.System) -> Path:
    """The packaged feature file suited to ``system``'s family of list shapes.

    Capacity-inf systems (easy-first) get ``easy-first-2010.yaml``, whose templates address
    each action family instance's tokens, or with a distance D > 1 (non-projective
    easy-first) ``easy-first-nonproj.yaml``, the same templates each told whether the pair
    is adjacent, less those that read the second pending word out from the pair;
    control-parameter systems get ``control-parameters.yaml``; list-based Covington
    systems (two stack-like lists and a buffer) get ``covington-2017.yaml``; systems that
    build labeled arcs between two words of one stack-like list (arc-standard, SWAP) get
    ``stack-arcs.yaml``; every other system gets ``zhang-nivre-2011.yaml``.  A control-parameter
    system whose O ends with the buffer front (:func:`_buffer_front_in_o`) gets
    ``control-parameters-b0.yaml``, the same templates one place further into O.
    """
    ends = [d.open_end for d in system.lists]
    if system.unbounded:
        d = dict(system.settings).get("distance", 1)   # None: D = inf
        name = "easy-first-nonproj.yaml" if d is None or d > 1 else "easy-first-2010.yaml"
    elif system.style == "control-parameters":
        name = "control-parameters-b0.yaml" if _buffer_front_in_o(system) else "control-parameters.yaml"
    elif ends.count("R") >= 2 and "L" in ends:
        name = "covington-2017.yaml"
    elif _arcs_within_a_stack(system):
        name = "stack-arcs.yaml"
    else:
        name = "zhang-nivre-2011.yaml"
    return Path(str(resources.files("tsdsl.learn.featuresets").joinpath(name)))


def _buffer_front_in_o(system: ir.System, max_n: int = 4) -> bool:
    """Whether a control-parameter system keeps the buffer front at the end of O, as arc-eager
    and arc-hybrid written with control parameters do (O = [.. s0, b0]): no action ever takes
    the last token of O out of O (it only goes deeper when the next word comes in), where
    arc-standard's, Attardi's and bounded easy-first's actions reduce it (their O is a stack
    or a window whose last token is attached like any other).  Read off every configuration
    of up to ``max_n`` words.  Zhang & Nivre's S0 is then O[1], not O[0]
    (``control-parameters-b0.yaml``)."""
    from ..interp import Interpreter
    from ..verify.space import SpaceTooLarge, explore

    it = Interpreter(system)
    seen_last = False
    for n in range(1, max_n + 1):
        try:
            g = explore(it, n, limit=50_000)
        except SpaceTooLarge:
            break
        for node, out in enumerate(g.edges):
            ops = g.configs[node].lists[0]
            if not ops:
                continue
            for _, child in out:
                seen_last = True
                if ops[-1] not in g.configs[child].lists[0]:
                    return False
    return seen_last


def _arcs_within_a_stack(system: ir.System) -> bool:
    """Whether some case builds a labeled arc between two words of one stack-like list."""
    if system.unbounded:
        return False
    open_end = {d.name: d.open_end for d in system.lists}
    for action in system.actions:
        for case in action.cases:
            where = {it.var: m.list for m in case.match for it in m.items if isinstance(it, ir.Tok)}
            for op in case.arcs:
                lst = where.get(op.head)
                if op.labeled and lst is not None and lst == where.get(op.dep) and open_end[lst] == "R":
                    return True
    return False
