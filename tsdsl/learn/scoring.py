"""Scoring groups: the templates of a feature program that start at one word.

The kernel sums a state's scores group by group (``score`` in ``_model.pxi``): first the
rows of the templates in no group, in template order, then each group's own sum (its rows
from zero, those that read no arc first, each part in template order), group after group.
A group is the set of templates whose every address starts at the same word, its
*anchor*: a list position (``s0``, ``b0``, ``λ1[1]`` ...) or the word ``CL`` or ``CR``
picks between ``s0`` and ``b0``, with the template's atoms all read from there
(``s0.w + s0.h.p``, ``CL.w + CL.p``; not ``s0.w + b0.w``).  Given the anchor's token, a
group's sum depends only on the arcs at the tokens its addresses walk through, a few steps
away; greedy parsing keeps it per token until an arc within reach changes (``_groups.pxi``).
That pays where a token comes back to an anchor often: Covington's parser moves its left
focus word back over the same words for every buffer word, so the focus word's own templates
(about a third of Fernández-González & Gómez-Rodríguez's) are summed once per word and arc
change, not once per step; and the words ``CL`` and ``CR`` pick are mostly the same from one
step to the next.

Only groups of at least ``MIN_GROUP`` templates are kept apart; fewer templates are
summed directly (a kept sum costs a vector add of its own).

Which kept sums a step makes stale follows from what each group's addresses read
(:func:`reverse_walks`, per group): a head step or a label reads the arc at its token, a
child step, a valency or a label set reads the token's children.  So after a step that
changed the arc of a dependent d, the tokens whose sums may differ are those reached from d
by walking each read back to its anchor, one inverted step at a time: a head step back over
the children, a child step back to the head, ``prev`` back to ``next``.  For
Fernández-González & Gómez-Rodríguez's templates these are d, its heads before and after,
its children and grandchildren; not its siblings, nor the rest of its head's neighbourhood,
which an arc change leaves as they were.  A group that reads no arc (``s1.w``, ``b1.p``,
``CL.w``) has no walks: its sums stay for the whole sentence.  In a group that reads arcs,
the sum of its first templates, those that read none, is kept per token for the whole
sentence too: a sum made again after an arc change starts from it.

A program that scores family instances (capacity inf: ``O[i]``, ``O[j-1]`` ...) has no list
anchors; :func:`instance_groups` gives it one group keyed by a few instance bases instead.

The groups are those of the program the kernel runs (:func:`program_for`): where the spec
proves a buffer to hold the last words of the sentence in order (:mod:`tsdsl.ir.runs`), its
word ``b1`` is read as ``b0.next``, so ``b1.p`` and ``b0.p + b1.p`` belong to ``b0``'s group.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..ir.runs import suffix_lists
from .features import (ATOM_DIST, ATOM_LABEL, ATOM_SL, ATOM_SR, ATOM_TOK, ATOM_VL, ATOM_VR, BASE_CL, BASE_CR,
                       BASE_LIST, MAX_STEPS, STEP_H, STEP_NEXT, STEP_PREV, FeatureSet)

MIN_GROUP = 3
# the steps of a reverse walk (codes shared with _groups.pxi)
WALK_HEAD, WALK_CHILDREN, WALK_PREV, WALK_NEXT = 1, 2, 3, 4
_INVERSE = {STEP_H: WALK_CHILDREN, STEP_PREV: WALK_NEXT, STEP_NEXT: WALK_PREV}  # a child step: WALK_HEAD
_READS_CHILDREN = (ATOM_VL, ATOM_VR, ATOM_SL, ATOM_SR)


@dataclass(frozen=True)
class ScoringGroups:
    """The kernel's view (``Learner.set_groups``): ``order`` every template number once, group
    0 (summed directly) first, then groups 1..n; ``starts`` where each begins, and the end;
    ``anchors`` per group 1..n, (list, position) for a list position or (-1, address id) for
    the word ``CL`` or ``CR`` picks (an address without steps); ``group_walks`` per group 1..n
    the reverse walks that find the sums of that group a step makes stale
    (:func:`reverse_walks`; none for a group that reads no arc)."""

    order: np.ndarray
    starts: np.ndarray
    anchors: np.ndarray
    group_walks: tuple[tuple[tuple[int, ...], ...], ...] = ()
    #: instance groups (capacity inf), per group 1..n: (row of ``FeatureSet.instance_bases``,
    #: whether the group reads arcs at or below that base) for each base it reads
    instance_bases: tuple[tuple[tuple[int, int], ...], ...] = ()

    @property
    def count(self) -> int:
        return len(self.anchors)

    @property
    def walks(self) -> tuple[tuple[int, ...], ...]:
        """Every group's walks, each once."""
        return tuple(sorted({w for ws in self.group_walks for w in ws}, key=lambda w: (len(w), w)))

    def walk_table(self, group_walks: "tuple[tuple[tuple[int, ...], ...], ...] | None" = None
                   ) -> tuple[np.ndarray, int]:
        """The reverse walks (``group_walks``, default: this program's) as the kernel takes
        them: int32, per distinct walk its length, its steps, the number of groups it serves
        and their numbers (1..n); and how many walks."""
        per_group = self.group_walks if group_walks is None else group_walks
        serves: dict[tuple[int, ...], list[int]] = {}
        for g, ws in enumerate(per_group, start=1):
            for w in ws:
                serves.setdefault(tuple(w), []).append(g)
        flat = [x for w, gs in sorted(serves.items(), key=lambda e: (len(e[0]), e[0]))
                for x in (len(w), *w, len(gs), *gs)]
        return np.asarray(flat, dtype=np.int32), len(serves)

    def instance_table(self) -> np.ndarray:
        """The instance groups' bases as the kernel takes them (``Learner.set_instance_groups``):
        int32, per group the count of its bases, then (base row, arcs read) each."""
        flat = [x for bases in self.instance_bases for x in (len(bases), *(v for b in bases for v in b))]
        return np.asarray(flat, dtype=np.int32)


def program_for(features: FeatureSet, system) -> FeatureSet:
    """The feature program as the kernel runs it for ``system``: ``features`` with every
    address that starts at position k > 0 of a suffix list (:func:`tsdsl.ir.runs.suffix_lists`,
    a buffer that only ever loses its first words, so that its word k is its first word's
    k-th successor) started at position 0 with k ``next`` steps first, where the steps fit
    (``MAX_STEPS``).  Each address reads the same token as before, so the features, their
    hashes and the weights they find are the same; but ``b1.p`` and ``b0.p + b1.p`` now start
    at ``b0`` and join its scoring group, whose sum is kept while ``b0`` stays (Covington's
    parser keeps ``b0`` for a whole scan back over λ1).  Only the sum order of the scores
    changes (the groups' templates are summed after the direct ones).  Unchanged when the
    system has no suffix list read at k > 0."""
    lists = suffix_lists(system)
    if not lists:
        return features
    front = {k for k, d in enumerate(system.lists) if d.name in lists}
    rows = np.array(features.addresses, dtype=np.int32, copy=True)
    changed = False
    for r in rows:
        k, steps = int(r[2]), int(r[3])
        if int(r[0]) == BASE_LIST and int(r[1]) in front and k > 0 and k + steps <= MAX_STEPS:
            r[4:4 + MAX_STEPS] = [STEP_NEXT] * k + [int(c) for c in r[4:4 + steps]] + [0] * (MAX_STEPS - k - steps)
            r[2], r[3] = 0, k + steps
            changed = True
    if not changed:
        return features
    rows.setflags(write=False)
    return dataclasses.replace(features, addresses=rows)


def scoring_groups(features: FeatureSet, min_size: int = MIN_GROUP) -> ScoringGroups:
    """The scoring groups of ``features`` (see the module docstring; for a program that
    reads family instances, :func:`instance_groups`)."""
    if len(features.instance_bases):
        return instance_groups(features, min_size)
    addresses, atoms, templates = features.addresses, features.atoms, features.templates

    def base(aid: int):
        """What an address starts from: a list position, the word CL or CR picks between two
        addresses, or None (an instance's token: not grouped)."""
        row = addresses[aid]
        kind = int(row[0])
        return (kind, int(row[1]), int(row[2])) if kind in (BASE_LIST, BASE_CL, BASE_CR) else None

    stepless = {base(a): a for a in range(len(addresses)) if int(addresses[a][3]) == 0 and base(a) is not None}

    def anchor(key) -> "tuple[int, int] | None":
        """The kernel's anchor of a base: (list, position), or (-1, the base's address without
        steps) for CL and CR (None when the program has no such address)."""
        if key[0] == BASE_LIST:
            return (key[1], key[2])
        return (-1, stepless[key]) if key in stepless else None

    members: dict[tuple[int, int, int], list[int]] = {}
    for t in range(len(templates)):
        bases = {base(a) for a in template_addresses(features, t)}
        if len(bases) == 1 and None not in bases:
            key = bases.pop()
            if anchor(key) is not None:
                members.setdefault(key, []).append(t)
    # each group's templates that read no arc first: their sum, a prefix of the group's, is
    # kept per anchor token for the whole sentence (_groups.pxi)
    groups = sorted((sorted(ts, key=lambda t: (reads_arcs(features, t), t))
                     for ts in members.values() if len(ts) >= min_size), key=min)
    grouped = {t for ts in groups for t in ts}
    direct = [t for t in range(len(templates)) if t not in grouped]
    order = direct + [t for ts in groups for t in ts]
    starts = np.cumsum([0, len(direct)] + [len(ts) for ts in groups])

    def walks_of(ts: list[int]) -> tuple[tuple[int, ...], ...]:
        used = {a for t in ts for a in template_addresses(features, t)}
        kinds = {(int(atoms[int(templates[t][1 + k])][0]), int(atoms[int(templates[t][1 + k])][1]))
                 for t in ts for k in range(int(templates[t][0]))}
        return reverse_walks({a: tuple(int(c) for c in addresses[a][4:4 + int(addresses[a][3])]) for a in used}, kinds)

    return ScoringGroups(
        order=np.asarray(order, dtype=np.int32),
        starts=np.asarray(starts, dtype=np.int32),
        anchors=np.asarray([anchor(base(template_addresses(features, ts[0])[0])) for ts in groups],
                           dtype=np.int32).reshape(-1, 2),
        group_walks=tuple(walks_of(ts) for ts in groups),
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


def reads_arcs(features: FeatureSet, t: int) -> bool:
    """Whether template ``t`` reads an arc: an atom that is a label, a valency or a label
    set, or an address with a head or child step (the kernel's static_template)."""
    for k in range(int(features.templates[t][0])):
        if int(features.atoms[int(features.templates[t][1 + k])][1]) not in (ATOM_TOK, ATOM_DIST):
            return True
    for a in template_addresses(features, t):
        row = features.addresses[a]
        if any(int(c) not in (STEP_PREV, STEP_NEXT) for c in row[4:4 + int(row[3])]):
            return True
    return False


def template_addresses(features: FeatureSet, t: int) -> list[int]:
    """The addresses template ``t`` reads (both of a distance's)."""
    out = []
    for k in range(int(features.templates[t][0])):
        a = features.atoms[int(features.templates[t][1 + k])]
        out.append(int(a[0]))
        if int(a[1]) == ATOM_DIST:
            out.append(int(a[2]))
    return out


def instance_groups(features: FeatureSet, min_size: int = MIN_GROUP) -> ScoringGroups:
    """Scoring groups for a program that scores family instances (capacity inf): one group,
    the templates that read only the set of instance bases (``O[i]``, ``O[i-1]``, ``O[j]``
    ...) that most templates read exactly, and every template whose bases that set holds;
    the others are summed directly.  No group when that set is every base of the program
    or fewer than ``min_size`` templates read it.  Greedy parsing keeps the group's sum per
    signature of its base tokens (``_instances.pxi``): after an attachment many re-scored
    instances differ from one scored before only in bases outside the group (an attachment
    two words away changes ``O[i+2]``, not the pair's own tokens).  One group, not one per
    set of bases: each kept sum costs a signature and a vector add, which measured more than
    the rows a small group saves (non-projective easy-first: four groups no faster than
    none, one group 8% faster)."""
    addresses = features.addresses
    rows = {tuple(int(x) for x in r[:3]): k for k, r in enumerate(features.instance_bases)}

    def base_of(aid: int) -> "int | None":
        return rows.get(tuple(int(x) for x in addresses[aid][:3]))

    n = len(features.templates)
    reads: list["frozenset[int] | None"] = []
    for t in range(n):
        bases = [base_of(a) for a in template_addresses(features, t)]
        reads.append(None if None in bases else frozenset(bases))
    everything = frozenset(range(len(rows)))
    counts: dict[frozenset[int], int] = {}
    for r in reads:
        if r is not None:
            counts[r] = counts.get(r, 0) + 1
    keys = sorted((k for k, c in counts.items() if c >= min_size and k != everything),
                  key=lambda k: (-counts[k], len(k), sorted(k)))
    groups = [[t for t, r in enumerate(reads) if r is not None and r <= keys[0]]] if keys else []
    grouped = {t for ts in groups for t in ts}
    direct = [t for t in range(n) if t not in grouped]

    def arcs_read(ts: list[int]) -> tuple[tuple[int, int], ...]:
        """Per base the group's templates read: whether they read arcs at or below it."""
        used = [int(features.templates[t][1 + k]) for t in ts for k in range(int(features.templates[t][0]))]
        out: dict[int, int] = {}
        for aid in {a for t in ts for a in template_addresses(features, t)}:
            out[base_of(aid)] = out.get(base_of(aid), 0) | int(features.reads_arcs(aid, used))
        return tuple(sorted(out.items()))

    return ScoringGroups(
        order=np.asarray(direct + [t for ts in groups for t in ts], dtype=np.int32),
        starts=np.asarray(np.cumsum([0, len(direct)] + [len(ts) for ts in groups]), dtype=np.int32),
        anchors=np.asarray([(-2, g) for g in range(len(groups))], dtype=np.int32).reshape(-1, 2),
        group_walks=tuple(() for _ in groups),
        instance_bases=tuple(arcs_read(ts) for ts in groups),
    )
