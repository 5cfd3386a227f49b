"""Feature templates for every list position a system's actions look at.

A packaged feature file is written for a family of systems (:func:`default_features`); a new
system whose actions reach deeper into a list (arc-swift's ``LEFT-ARC_k`` attaches the k-th
stack item) would get no feature of the words it decides about.  :func:`unread_positions`
names the positions that the actions bind, read or attach
(:func:`tsdsl.ir.reach.reached_positions`) and that no template reads;
:func:`default_feature_set` is the packaged file, with templates added for those positions
when there are any, and exactly the packaged file otherwise.  See docs/features.md.
"""

from __future__ import annotations

import re

from .. import ir
from ..ir.reach import reached_positions
from .feature_choice import default_features
from .features import ATOM_DIST, BASE_LIST, FeatureSet, load_features

#: the templates a position gets when the set reads no position of its list
FALLBACK = ("{x}.w", "{x}.p", "{x}.w + {x}.p", "{x}.lc1.l", "{x}.rc1.l")

GROUP = "reached-positions"


def read_positions(features: FeatureSet) -> set[tuple[int, int]]:
    """(list index, position) of every token some template reads itself: an atom at the
    position with no step (its form, tag, label, valency...; a distance does not count, nor
    does a step to its head or children)."""
    out = set()
    for addr, kind, _ in features.atoms:
        row = features.addresses[addr]
        if kind != ATOM_DIST and row[0] == BASE_LIST and row[3] == 0:
            out.add((int(row[1]), int(row[2])))
    return out


def unread_positions(features: FeatureSet, system: ir.System) -> list[tuple[int, int]]:
    """(list index, position) of each position from a list's open end up to the deepest one
    the actions reach that no template of ``features`` reads, in list order."""
    read = read_positions(features)
    index = {d.name: k for k, d in enumerate(system.lists)}
    return [(index[name], pos) for name, deepest in reached_positions(system).items()
            for pos in range(deepest + 1) if (index[name], pos) not in read]


def position_text(system: ir.System, lst: int, pos: int) -> str:
    """A position as templates write it canonically: ``sI`` in the first stack-like list,
    ``bI`` in the last buffer-like one, ``NAME[I]`` elsewhere."""
    stacks = [k for k, d in enumerate(system.lists) if d.open_end == "R"]
    buffers = [k for k, d in enumerate(system.lists) if d.open_end == "L"]
    if stacks and lst == stacks[0]:
        return f"s{pos}"
    if buffers and lst == buffers[-1]:
        return f"b{pos}"
    return f"{system.lists[lst].name}[{pos}]"


def unread_text(features: FeatureSet, system: ir.System) -> str:
    """The unread positions as a comma-separated list (``s2, s3``); empty when none."""
    return ", ".join(position_text(system, lst, pos) for lst, pos in unread_positions(features, system))


def added_templates(features: FeatureSet, system: ir.System) -> list[str]:
    """Templates for the unread positions: each gets the templates of the deepest position
    of its list that the set reads, moved to it (zhang-nivre-2011 reads ``s1`` in ``s1.w``,
    ``s1.p`` and ``s1.p+s0.p+b0.p``, so ``s3`` gets ``s3.w``, ``s3.p``, ``s3.p+s0.p+b0.p``), or
    :data:`FALLBACK` when the set reads no position of that list.  None repeats a template
    of the set or an earlier addition."""
    read = read_positions(features)
    seen = {_atoms(t) for t in features.template_names}
    out: list[str] = []
    for lst, pos in unread_positions(features, system):
        target = position_text(system, lst, pos)
        deepest = max((p for k, p in read if k == lst), default=None)
        if deepest is None:
            candidates = [t.format(x=target) for t in FALLBACK]
        else:
            base = re.compile(r"(?<![\w\[\]])" + re.escape(position_text(system, lst, deepest)) + r"(?=[.,)])")
            candidates = [base.sub(target, t) for t in features.template_names if base.search(t)]
        for t in candidates:
            if _atoms(t) not in seen:
                seen.add(_atoms(t))
                out.append(" + ".join(a.strip() for a in t.split("+")))
    return out


def _atoms(template: str) -> frozenset[str]:
    return frozenset(a.strip() for a in template.split("+"))


def default_feature_set(system: ir.System) -> FeatureSet:
    """The default features of ``system``: its family's packaged file
    (:func:`default_features`), compiled; when its actions reach positions that file does
    not read, the same file with a group ``reached-positions`` of :func:`added_templates`
    appended and ``+POSITION`` added to its name for each of those positions."""
    path = default_features(system)
    base = load_features(path, system)
    extra = added_templates(base, system)
    if not extra:
        return base
    unread = [position_text(system, lst, pos) for lst, pos in unread_positions(base, system)]
    text = re.sub(r"^name:[ \t]*(\S+)[ \t]*$", lambda m: m.group(0) + "".join("+" + u for u in unread),
                  base.text, count=1, flags=re.M)
    text = text.rstrip("\n") + "\n" + "".join((
        f"  # Not in the packaged file: the actions of `{system.name}` reach {', '.join(unread)},\n",
        "  # which the templates above do not read; each gets the templates of the deepest\n",
        "  # position of its list that they read, moved to it (docs/features.md).\n",
        f"  {GROUP}:\n",
    )) + "".join(f"    - {t}\n" for t in extra)
    return load_features(path, system, text=text)
