"""An oracle block derived from the IR: the pair-reachability analysis of :mod:`.reach`,
written back as a ``reachable h -> d if ...`` rule in the spec language.

The analysis answers, for two tokens described only by where they sit (list and distance
from the list's open end, up to a depth ``M``), whether they have heads, whether ``h`` is
the root and their token flags, whether the arc ``h -> d`` can still be built.  Every such
abstract state is enumerated; offsets that never change the answer are merged (so arc-eager's
rule reads ``h in σ and d in β ...``, not offset by offset), the rest of the answer is
minimised as a boolean function (prime implicants), and each piece is printed with the
language's own predicates (``in``, ``first``/``last``, ``pos``/``len``, ``has_head``,
``is_root``, flags).  Counting the gold arcs the rule calls unreachable is a lower bound of
the loss by construction; :func:`derive_oracle` checks it against the exact loss
(:func:`~tsdsl.verify.oracle_check.check_oracle`) and claims it exact only when no
configuration contradicts that.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional

from .. import ir
from ..lang import load_system_text
from .oracle_check import check_oracle, check_oracle_exhaustive
from .reach import PairReachability
from .reach_order import OrderedPairReachability


@dataclass(frozen=True)
class DerivedOracle:
    rule: str            # the guard of `reachable h -> d if ...`
    exact: bool          # the check found no configuration where it is not the loss
    configurations: int  # how many configurations the check compared
    block: str           # the oracle block, ready to paste into (or extend) the spec
    lower: bool = True   # the check found no configuration where it exceeds the exact loss
    skipped: int = 0     # configurations the check skipped (dead ends, over the search budget)
    exhaustive: int = 0  # of ``configurations``, those of the exhaustive part of the check

    @property
    def checked(self) -> bool:
        """Whether the check compared any configuration: on a spec whose every configuration
        sampled is a dead end it compares none, and ``exact`` then claims nothing."""
        return self.configurations > 0


def reach_rule(system: ir.System, *, ordered: bool = True, simplify: bool = True) -> str:
    """The guard, in spec syntax, under which a missing gold arc ``h -> d`` is reachable.
    ``ordered``: from :class:`.reach_order.OrderedPairReachability`, which also knows the gap
    of two tokens in one list (else the plain analysis, blind to it).  ``simplify``: fewer
    disjuncts by :func:`simplify_terms` (else one per pair of places, as minimised)."""
    pr = OrderedPairReachability(system, 8) if ordered else PairReachability(system, 8)
    lists = [d.name for d in system.lists]
    open_right = [d.open_end == "R" for d in system.lists]
    M = pr.M
    G = pr.G if ordered else 0
    flags = pr.tflags
    rooted = system.root != "none"
    positions = [(k, o) for k in range(len(lists)) for o in range(M + 1)]
    gap_values = [g for g in range(-G, G + 1) if g]
    all_gaps = [None] + gap_values
    # boolean features: has_head(h), has_head(d), is_root(h), then h's and d's flags
    names = ["has_head(h)", "has_head(d)"] + (["is_root(h)"] if rooted else []) + \
        [f"{f}[h]" for f in flags] + [f"{f}[d]" for f in flags]
    n_bits = len(names)

    def answer(ph, pd, gap, bits) -> Optional[bool]:
        if ph == pd and ph[1] < M:
            return None  # two tokens in one slot: cannot happen
        if ordered and gap not in pr.gaps(ph, pd):
            return None  # a gap the two positions do not allow
        if not ordered and gap is not None:
            return None
        hh, hd = bits[0], bits[1]
        rh = bits[2] if rooted else False
        fh = tuple(bits[2 + rooted:2 + rooted + len(flags)])
        fd = tuple(bits[2 + rooted + len(flags):])
        state = (ph, pd, hh, hd, fh, fd, rh, False) + ((gap,) if ordered else ())
        return pr._search(state)

    all_bits = list(itertools.product((False, True), repeat=n_bits))
    table = {(ph, pd, g, b): answer(ph, pd, g, b)
             for ph in positions for pd in positions for g in all_gaps for b in all_bits}

    # merge the offsets of a list that never change the answer, for h and for d separately
    def classes(side: int) -> list[tuple[int, tuple[int, ...]]]:
        out = []
        for k in range(len(lists)):
            groups: list[tuple[list[int], list]] = []  # offsets, and the answers they agree on
            for o in range(M + 1):
                col = [table[((k, o), q, g, b)] if side == 0 else table[(q, (k, o), g, b)]
                       for q in positions for g in all_gaps for b in all_bits]
                for offs, known in groups:  # answers of impossible states (None) fit anything
                    if _fits(col, known):
                        offs.append(o)
                        known[:] = [x if x is not None else y for x, y in zip(col, known)]
                        break
                else:
                    groups.append(([o], col))
            out += [(k, tuple(offs)) for offs, _ in groups]
        return out

    h_classes, d_classes = classes(0), classes(1)
    terms: list[Term] = []
    for hk, hoffs in h_classes:
        for dk, doffs in d_classes:
            def value(bits, gaps, hoffs=hoffs, doffs=doffs, hk=hk, dk=dk):
                seen = {table[((hk, x), (dk, y), g, bits)] for x in hoffs for y in doffs for g in gaps} - {None}
                return seen.pop() if len(seen) == 1 else None if not seen else True  # True: be sound

            hplaces, dplaces = frozenset((hk, o) for o in hoffs), frozenset((dk, o) for o in doffs)
            if hk != dk or not gap_values:
                gap_groups = [(tuple(all_gaps), "")]
            else:  # gaps that never change the answer are merged, like offsets
                merged: list[tuple[list[int], list]] = []
                for g in gap_values:
                    vec = [value(b, (g,)) for b in all_bits]
                    for gs, known in merged:
                        if _fits(vec, known):
                            gs.append(g)
                            known[:] = [x if x is not None else y for x, y in zip(vec, known)]
                            break
                    else:
                        merged.append(([g], vec))
                gap_groups = [(tuple(gs), "" if len(merged) == 1 else _gap_text(gs, open_right[hk], G))
                              for gs, _ in merged]
            for gaps, gap_text in gap_groups:
                on = [b for b in all_bits if value(b, gaps)]
                if not on:
                    continue
                for implicant in _primes(on, all_bits, lambda b, gaps=gaps: value(b, gaps) is None):
                    terms.append(Term(hplaces, dplaces, gap_text, tuple(implicant)))
    if simplify:
        terms = simplify_terms(terms, {k: M + 1 for k in range(len(lists))})
    texts = []
    for t in terms:
        where = [_places("h", t.h, lists, open_right, M), _places("d", t.d, lists, open_right, M)]
        lits = [names[i] if v else f"not {names[i]}" for i, v in enumerate(t.bits) if v is not None]
        texts.append(" and ".join(x for x in where + [t.gap] + lits if x))
    if system.attach_headless_to_root and rooted:
        # the end of parsing attaches every headless word to the root: no action builds that
        # arc, so the analysis cannot see it (any word, if heads can be taken away again)
        texts.append("is_root(h)" if not system.is_monotonic(8) else "is_root(h) and not has_head(d)")
    return " or ".join(f"({t})" for t in texts) if texts else "false"


@dataclass(frozen=True)
class Term:
    """One disjunct of a derived rule: the abstract places ``(list index, offset from the open
    end)`` ``h`` and ``d`` may be at, the condition on their gap when they share a list (spec
    text, "" for none), and a value per boolean feature (True, False, None: either)."""

    h: frozenset
    d: frozenset
    gap: str
    bits: tuple


def simplify_terms(terms: list[Term], depth: dict[int, int]) -> list[Term]:
    """Fewer disjuncts for the same rule, by three rewrites that keep its meaning, repeated
    until none applies (each keeps the earlier term's place in the order):

    * two terms that differ only in ``h``'s places (or only in ``d``'s) become one with the
      union, when the union reads as one place: within one list, or whole lists only
      (``d in beta``, ``(h in O or h in U)``; ``depth[k]``: the offsets list ``k`` has);
    * two that differ only in one boolean feature, true in one and false in the other,
      drop it;
    * a term implied by another (its places, gap and features within the other's) is dropped.

    Places are merged across lists only without a gap condition, which needs one list."""
    terms = list(dict.fromkeys(terms))

    def one_place(places: frozenset) -> bool:
        by_list: dict[int, int] = {}
        for k, _ in places:
            by_list[k] = by_list.get(k, 0) + 1
        return len(by_list) == 1 or all(n == depth[k] for k, n in by_list.items())

    def merged(a: Term, b: Term) -> Optional[Term]:
        if a.gap != b.gap:
            return None
        if a.h == b.h and a.bits == b.bits:
            union = a.d | b.d
            if one_place(union) and (not a.gap or len({k for k, _ in union}) == 1):
                return Term(a.h, union, a.gap, a.bits)
        if a.d == b.d and a.bits == b.bits:
            union = a.h | b.h
            if one_place(union) and (not a.gap or len({k for k, _ in union}) == 1):
                return Term(union, a.d, a.gap, a.bits)
        if a.h == b.h and a.d == b.d:
            diff = [i for i, (x, y) in enumerate(zip(a.bits, b.bits)) if x != y]
            if len(diff) == 1 and None not in (a.bits[diff[0]], b.bits[diff[0]]):
                i = diff[0]
                return Term(a.h, a.d, a.gap, a.bits[:i] + (None,) + a.bits[i + 1:])
        return None

    def implies(a: Term, b: Term) -> bool:
        """Whether ``a`` holding means ``b`` holds."""
        return (a.h <= b.h and a.d <= b.d and (not b.gap or a.gap == b.gap)
                and all(y is None or x == y for x, y in zip(a.bits, b.bits)))

    changed = True
    while changed:
        changed = False
        for i, j in itertools.permutations(range(len(terms)), 2):
            if implies(terms[j], terms[i]):
                del terms[j]
                changed = True
                break
        if changed:
            continue
        for i, j in itertools.combinations(range(len(terms)), 2):
            m = merged(terms[i], terms[j])
            if m is not None:
                terms[i] = m
                del terms[j]
                changed = True
                break
    return terms


def _places(var: str, places: frozenset, lists: list[str], open_right: list[bool], M: int) -> str:
    """Where a term puts a token: its places, list by list (in the spec's order)."""
    parts = [_position(var, lists[k], open_right[k], tuple(sorted(o for kk, o in places if kk == k)), M)
             for k in sorted({k for k, _ in places})]
    if len(parts) == 1:
        return parts[0]
    return "(" + " or ".join(f"({p})" if " and " in p and not p.startswith("(") else p for p in parts) + ")"


def _fits(col: list, known: list) -> bool:
    return all(x is None or y is None or x == y for x, y in zip(col, known))


def _gap_text(gaps: list[int], open_right: bool, G: int) -> str:
    """The condition on ``pos(h)`` and ``pos(d)`` (one list) for gaps ``offset(d) - offset(h)``
    in ``gaps`` (``±G``: at least ``G``)."""
    parts = []
    for sign in (1, -1):
        mags = sorted(g * sign for g in gaps if g * sign > 0)
        if not mags:
            continue
        # g > 0: d is further from the open end; in a list open on the right that is the lower pos
        big, small = ("h", "d") if (sign > 0) == open_right else ("d", "h")
        if G in mags:  # a run ending at "G or more" reads as one inequality
            start = G
            while start - 1 in mags:
                start -= 1
            mags = [m for m in mags if m < start]
            parts.append(f"pos({big}) > pos({small})" if start == 1 else f"pos({big}) >= pos({small}) + {start}")
        parts += [f"pos({big}) == pos({small}) + {m}" for m in mags]
    return parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"


def _position(var: str, lst: str, open_right: bool, offsets: tuple[int, ...], M: int) -> str:
    """A token's place in a list, for a set of offsets from its open end (M: M or deeper)."""
    if len(offsets) == M + 1:
        return f"{var} in {lst}"
    if offsets == tuple(range(1, M + 1)):  # anywhere but the open end
        return f"{var} in {lst} and {var} != {'last' if open_right else 'first'}({lst})"
    parts = []
    for o in offsets:
        if o == 0:
            parts.append(f"{var} == {'last' if open_right else 'first'}({lst})")
        elif o < M:
            at = f"len({lst}) - {o + 1}" if open_right else str(o)
            parts.append(f"{var} in {lst} and pos({var}) == {at}")
        else:
            parts.append(f"{var} in {lst} and pos({var}) < len({lst}) - {M}" if open_right
                         else f"{var} in {lst} and pos({var}) >= {M}")
    return parts[0] if len(parts) == 1 else "(" + " or ".join(f"({p})" for p in parts) + ")"


def _primes(on: list[tuple], universe: list[tuple], dont_care) -> list[tuple]:
    """The prime implicants covering the ``on`` set (Quine-McCluskey; None: any value)."""
    cells = {tuple(b) for b in on} | {tuple(b) for b in universe if dont_care(b)}
    current = set(cells)
    primes = set()
    while current:
        merged, used = set(), set()
        for a in current:
            for i, v in enumerate(a):
                if v is None:
                    continue
                b = a[:i] + (not v,) + a[i + 1:]
                if b in current:
                    merged.add(a[:i] + (None,) + a[i + 1:])
                    used |= {a, b}
        primes |= current - used
        current = merged
    # keep the primes that cover some required cell, greedily, in a stable order
    need = {tuple(b) for b in on}
    chosen = []
    for p in sorted(primes, key=lambda p: (sum(v is not None for v in p), [str(v) for v in p])):
        covers = {c for c in need if all(v is None or v == c[i] for i, v in enumerate(p))}
        if covers:
            chosen.append(p)
            need -= covers
        if not need:
            break
    return chosen


TITLE = "Derived from the IR's pair reachability (tsdsl derive-oracle)"


def check_spec_text(system: ir.System, extends: str, rule: str, name: str = "derived") -> str:
    """A child of the spec at ``extends`` declaring the rule twice: as the exact loss
    (``loss``) and as a lower bound (``lower``), so that one check says which it is."""
    return (f'system {system.name}_derived\nextends "{extends}"\noracle {name} "{TITLE}"\n'
            f'reachable h -> d if {rule}\nloss = unreachable\nloss lower = unreachable bound lower\n')


def oracle_block(rule: str, exact: bool, name: str = "derived") -> str:
    """The oracle block of a derived rule: ``loss = unreachable``, with ``bound lower`` unless
    the check found it exact."""
    bound = "" if exact else "  bound lower"
    return f'  oracle   {name} "{TITLE}"\n  reachable h -> d if {rule}\n  loss = unreachable{bound}\n'


def derive_oracle(system: ir.System, spec_file: str, *, configs: int = 300, max_n: int = 6,
                  exhaustive_n: int = 4, name: str = "derived", overrides: Optional[dict] = None,
                  seed: int = 0) -> DerivedOracle:
    """The derived oracle of the spec at ``spec_file`` (lowered as ``system``, with the same
    ``overrides``), checked against the exact loss on every configuration of every gold tree
    of up to ``exhaustive_n`` words (0: none), then on ``configs`` random configurations of
    up to ``max_n`` words."""
    rule = reach_rule(system)
    child = load_system_text(check_spec_text(system, spec_file, rule, name), file=str(spec_file) + ".derived.ts",
                             overrides=overrides)
    reports = [check_oracle(child, name, configs=configs, max_n=max_n, budget=50_000, seed=seed)]
    if exhaustive_n > 0:
        reports.append(check_oracle_exhaustive(child, name, max_n=exhaustive_n, budget=50_000))
    wrong = {k: sum(r.mismatches.get(k, 0) for r in reports) for k in ("loss", "lower")}
    exact = wrong["loss"] == 0
    return DerivedOracle(rule, exact, sum(r.configurations for r in reports), oracle_block(rule, exact, name),
                         lower=wrong["lower"] == 0,
                         skipped=sum(r.skipped_dead + r.skipped_budget for r in reports),
                         exhaustive=reports[1].configurations if exhaustive_n > 0 else 0)
