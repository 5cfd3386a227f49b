"""Scoring groups: the templates of a feature program that start at one list position.

The kernel sums a state's scores group by group (``score`` in ``_model.pxi``): first the
rows of the templates in no group, in template order, then each group's own sum (its rows
from zero, in template order), group after group.  A group is the set of templates whose
every address starts at the same list position (``s0``, ``b0``, ``λ1[1]`` ...), its
*anchor*, with the template's atoms all read from there (``s0.w + s0.h.p``, not
``s0.w + b0.w`` nor ``CL.p``).  Given the anchor's token, a group's sum depends only on the
arcs at the tokens its addresses walk through, at most ``depth`` steps away; greedy parsing
keeps it per token until an arc within reach changes (``_groups.pxi``).  That pays where a
token comes back to an anchor often: Covington's parser moves its left focus word back over
the same words for every buffer word, so the focus word's own templates (about a third of
Fernández-González & Gómez-Rodríguez's) are summed once per word and arc change, not once
per step.

Only groups of at least ``MIN_GROUP`` templates are kept apart; fewer templates are
summed directly (a kept sum costs a vector add of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import BASE_LIST, STEP_NEXT, STEP_PREV, ATOM_DIST, FeatureSet

MIN_GROUP = 3


@dataclass(frozen=True)
class ScoringGroups:
    """The kernel's view (``Learner.set_groups``): ``order`` every template number once, group
    0 (summed directly) first, then groups 1..n; ``starts`` where each begins, and the end;
    ``anchors`` (list, position) per group 1..n; ``depth`` the most steps one of their
    addresses takes; ``linear`` whether one steps to a sentence neighbour."""

    order: np.ndarray
    starts: np.ndarray
    anchors: np.ndarray
    depth: int
    linear: bool

    @property
    def count(self) -> int:
        return len(self.anchors)


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
    steps = [addresses[a][4:4 + int(addresses[a][3])] for a in used]
    return ScoringGroups(
        order=np.asarray(order, dtype=np.int32),
        starts=np.asarray(starts, dtype=np.int32),
        anchors=np.asarray([anchor(template_addresses(ts[0])[0]) for ts in groups], dtype=np.int32).reshape(-1, 2),
        depth=max((len(s) for s in steps), default=0),
        linear=any(int(c) in (STEP_PREV, STEP_NEXT) for s in steps for c in s),
    )
