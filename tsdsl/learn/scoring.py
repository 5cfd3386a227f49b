"""Scoring groups: the templates of a feature program that start at one list position.

The kernel sums a state's scores group by group (``score`` in ``_model.pxi``): first the
rows of the templates in no group, in template order, then each group's own sum (its rows
from zero, in template order), group after group.  A group is the set of templates whose
every address starts at the same list position (``s0``, ``b0``, ``λ1[1]`` ...), its
*anchor*, with the template's atoms all read from there (``s0.w + s0.h.p``, not
``s0.w + b0.w`` nor ``CL.p``).  Given the anchor's token, a group's sum depends only on the
arcs at the tokens its addresses walk through, a few steps away; greedy parsing
keeps it per token until an arc within reach changes (``_groups.pxi``).  That pays where a
token comes back to an anchor often: Covington's parser moves its left focus word back over
the same words for every buffer word, so the focus word's own templates (about a third of
Fernández-González & Gómez-Rodríguez's) are summed once per word and arc change, not once
per step.

Only groups of at least ``MIN_GROUP`` templates are kept apart; fewer templates are
summed directly (a kept sum costs a vector add of its own).

Which kept sums a step makes stale follows from what the addresses read (:func:`reverse_walks`):
a head step or a label reads the arc at its token, a child step, a valency or a label set
reads the token's children.  So after a step that changed the arc of a dependent d, the
tokens whose sums may differ are those reached from d by walking each read back to its
anchor, one inverted step at a time: a head step back over the children, a child step back
to the head, ``prev`` back to ``next``.  For Fernández-González & Gómez-Rodríguez's templates
these are d, its heads before and after, its children and grandchildren; not its siblings,
nor the rest of its head's neighbourhood, which an arc change leaves as they were.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import (ATOM_DIST, ATOM_LABEL, ATOM_SL, ATOM_SR, ATOM_VL, ATOM_VR, BASE_LIST, STEP_H, STEP_NEXT,
                       STEP_PREV, FeatureSet)

MIN_GROUP = 3
# the steps of a reverse walk (codes shared with _groups.pxi)
WALK_HEAD, WALK_CHILDREN, WALK_PREV, WALK_NEXT = 1, 2, 3, 4
_INVERSE = {STEP_H: WALK_CHILDREN, STEP_PREV: WALK_NEXT, STEP_NEXT: WALK_PREV}  # a child step: WALK_HEAD
_READS_CHILDREN = (ATOM_VL, ATOM_VR, ATOM_SL, ATOM_SR)


@dataclass(frozen=True)
class ScoringGroups:
    """The kernel's view (``Learner.set_groups``): ``order`` every template number once, group
    0 (summed directly) first, then groups 1..n; ``starts`` where each begins, and the end;
    ``anchors`` (list, position) per group 1..n; ``walks`` the reverse walks that find the
    sums a step makes stale (:func:`reverse_walks`)."""

    order: np.ndarray
    starts: np.ndarray
    anchors: np.ndarray
    walks: tuple[tuple[int, ...], ...] = ()

    @property
    def count(self) -> int:
        return len(self.anchors)

    def walk_table(self, walks: "tuple[tuple[int, ...], ...] | None" = None) -> np.ndarray:
        """The reverse walks (``walks``, default: this program's) as the kernel takes them:
        int32, per walk its length, then its steps."""
        flat = [x for w in (self.walks if walks is None else walks) for x in (len(w), *w)]
        return np.asarray(flat, dtype=np.int32)


def scoring_groups(features: FeatureSet, min_size: int = MIN_GROUP) -> ScoringGroups:
    """The scoring groups of ``features`` (see the module docstring)."""
    addresses, atoms, templates = features.addresses, features.atoms, features.templates

    def anchor(aid: int):
        row = addresses[aid]
        return (int(row[1]), int(row[2])) if int(row[0]) == BASE_LIST else None

    def template_addresses(t: int) -> list[int]:
        out = []
        for k in range(int(templates[t][0])):
            a = atoms[int(templates[t][1 + k])]
            out.append(int(a[0]))
            if int(a[1]) == ATOM_DIST:
                out.append(int(a[2]))
        return out

    members: dict[tuple[int, int], list[int]] = {}
    for t in range(len(templates)):
        bases = {anchor(a) for a in template_addresses(t)}
        if len(bases) == 1 and None not in bases:
            members.setdefault(bases.pop(), []).append(t)
    groups = sorted((ts for ts in members.values() if len(ts) >= min_size), key=lambda ts: ts[0])
    grouped = {t for ts in groups for t in ts}
    direct = [t for t in range(len(templates)) if t not in grouped]
    order = direct + [t for ts in groups for t in ts]
    starts = np.cumsum([0, len(direct)] + [len(ts) for ts in groups])
    used = {a for ts in groups for t in ts for a in template_addresses(t)}
    kinds = {(int(atoms[int(templates[t][1 + k])][0]), int(atoms[int(templates[t][1 + k])][1]))
             for ts in groups for t in ts for k in range(int(templates[t][0]))}
    return ScoringGroups(
        order=np.asarray(order, dtype=np.int32),
        starts=np.asarray(starts, dtype=np.int32),
        anchors=np.asarray([anchor(template_addresses(ts[0])[0]) for ts in groups], dtype=np.int32).reshape(-1, 2),
        walks=reverse_walks({a: tuple(int(c) for c in addresses[a][4:4 + int(addresses[a][3])]) for a in used},
                            kinds),
    )


def reverse_walks(paths: dict[int, tuple[int, ...]], atom_kinds) -> tuple[tuple[int, ...], ...]:
    """The walks (``WALK_*`` steps) from a dependent whose arc a step changed to every anchor
    token whose group sum may have changed with it (see the module docstring), for the
    addresses ``paths`` (address id -> its step codes from the anchor) read by the atoms
    ``atom_kinds`` ((address id, atom kind) pairs; a distance reads no arc itself, only the
    paths of its two addresses).  Along a path t = x0 -> x1 ... -> xk, the step out of xi
    reads the arc at xi (a head step) or the children of xi (a child step); the atom reads
    the arc at xk (a label) or its children (a valency, a label set).  A read of the arc at xi
    concerns the dependent d = xi, whence the walk back over steps i .. 1 inverted; a read of
    the children of xi concerns d's heads before and after, one head step more from d.  Each
    inverted step reaches every token the step could have come from (a child step is undone
    by the head, a head step by all the children), over the arcs before and after the step,
    so the walks reach a superset of the stale sums (tests/test_scoring_groups.py checks that
    no kept sum is stale, and that cutting the walks short leaves some)."""
    walks: set[tuple[int, ...]] = set()

    def back(prefix: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(_INVERSE.get(c, WALK_HEAD) for c in reversed(prefix))

    def read(prefix: tuple[int, ...], children: bool) -> None:
        walks.add(((WALK_HEAD,) if children else ()) + back(prefix))

    for path in paths.values():
        for i, code in enumerate(path):
            if code == STEP_H:
                read(path[:i], False)
            elif code not in (STEP_PREV, STEP_NEXT):
                read(path[:i], True)
    for a, kind in atom_kinds:
        if a in paths:
            if kind == ATOM_LABEL:
                read(paths[a], False)
            elif kind in _READS_CHILDREN:
                read(paths[a], True)
    return tuple(sorted(walks, key=lambda w: (len(w), w)))
