"""Token classes for incremental oracle costs.

When a fast oracle's reachability rule only looks at the two ends of a gold arc
(the list each is in, whether it has a head, token flags, is_root, their order),
whether a missing arc is lost depends only on the two ends' *classes*.  The code
generator evaluates the rule once per pair of classes (:func:`eval_local`) and
turns the result into tables, so the kernel never evaluates the rule itself.

Two more things a rule may read and stay local:

- **a list end**: ``d == last(O)``, ``h != first(β)``.  Being that end is then one more
  bit of a token's class ("ends"), which changes for the old and the new end token.
- **adjacency**: ``pos(d) == pos(h) + 1`` (or ``- 1``).  This is a property of the pair,
  not of a token; the tables are for non-adjacent pairs, and the kernel corrects the
  few adjacent pairs an action makes or breaks (see ``emit_costs``).  Only in one list:
  the rule must not depend on it when the two words are in different lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir


@dataclass(frozen=True)
class Classes:
    """Token classes of an incremental oracle: (where, head status, flag bits, is-root)."""

    n_lists: int
    flags: tuple[str, ...]
    uses_root: bool
    uses_order: bool
    ends: tuple[tuple[str, str], ...] = ()  # (list, "first" | "last"): one class bit each
    adj: tuple[int, ...] = ()               # offsets k of pos(d) == pos(h) + k the rule reads

    @property
    def n_flag_bits(self) -> int:
        return len(self.flags) + len(self.ends) + (1 if self.uses_root else 0)

    @property
    def general(self) -> bool:
        """Whether costs need the general delta (end bits or adjacent pairs)."""
        return bool(self.ends or self.adj)

    def end_bit(self, k: int) -> int:
        """The value of end ``k``'s bit in a class number."""
        return 1 << (len(self.ends) - 1 - k + (1 if self.uses_root else 0))

    @property
    def end_mask(self) -> int:
        return sum(self.end_bit(k) for k in range(len(self.ends)))

    def end_bits(self, c: int) -> tuple[bool, ...]:
        return tuple(bool(c & self.end_bit(k)) for k in range(len(self.ends)))

    @property
    def count(self) -> int:
        return (self.n_lists + 1) * 3 * (1 << self.n_flag_bits)

    @property
    def n_dir(self) -> int:
        return 2 if self.uses_order else 1

    def decode(self, c: int) -> tuple[int, int, tuple[bool, ...], bool]:
        bits = c & ((1 << self.n_flag_bits) - 1)
        rest = c >> self.n_flag_bits
        where, hs = rest // 3 - 1, rest % 3
        flags = tuple(bool(bits >> (self.n_flag_bits - 1 - k) & 1) for k in range(len(self.flags)))
        is_root = bool(bits & 1) if self.uses_root else False
        return where, hs, flags, is_root


def local_features(p: ir.Pred, hv: str, dv: str, acc: dict) -> bool:
    """Whether ``p`` only looks at the two ends of the arc; collects the features it uses."""
    if isinstance(p, ir.Const):
        return True
    if isinstance(p, (ir.Not,)):
        return local_features(p.item, hv, dv, acc)
    if isinstance(p, (ir.All, ir.Any_)):
        return all(local_features(i, hv, dv, acc) for i in p.items)
    if isinstance(p, ir.InList):
        return isinstance(p.term, ir.TVar) and p.term.var in (hv, dv)
    if isinstance(p, ir.HasHead):
        return p.var in (hv, dv)
    if isinstance(p, ir.IsRoot):
        acc["root"] = True
        return p.var in (hv, dv)
    if isinstance(p, ir.TokenFlag):
        acc.setdefault("flags", set()).add(p.flag)
        return p.var in (hv, dv)
    if isinstance(p, ir.Cmp):
        end = _end_atom(p, hv, dv)
        if end is not None:
            acc.setdefault("ends", set()).add(end[1])
            return True
        k = _adjacency_atom(p, hv, dv)
        if k is not None:
            acc.setdefault("adj", set()).add(k)
            return True
        ok = (isinstance(p.left, ir.TVar) and isinstance(p.right, ir.TVar)
              and {p.left.var, p.right.var} == {hv, dv} and p.op in ("<", ">", "<=", ">=", "!=", "=="))
        acc["order"] = True
        return ok
    return False


def _end_atom(p: ir.Cmp, hv: str, dv: str):
    """(var, (list, "first" | "last")) for ``x == last(L)`` / ``first(L) != x``, else None."""
    if p.op not in ("==", "!="):
        return None
    for a, b in ((p.left, p.right), (p.right, p.left)):
        if isinstance(a, ir.TVar) and a.var in (hv, dv) and isinstance(b, (ir.TFirst, ir.TLast)):
            return a.var, (b.list, "first" if isinstance(b, ir.TFirst) else "last")
    return None


def _adjacency_atom(p: ir.Cmp, hv: str, dv: str):
    """k for ``pos(d) == pos(h) + k`` with k = +-1 (either side, ``+`` or ``-``), else None."""
    if p.op != "==":
        return None
    for a, b in ((p.left, p.right), (p.right, p.left)):
        if not (isinstance(a, ir.TPos) and isinstance(a.term, ir.TVar) and isinstance(b, ir.TFunc)
                and b.op in ("+", "-") and isinstance(b.left, ir.TPos) and isinstance(b.left.term, ir.TVar)
                and isinstance(b.right, ir.TInt)):
            continue
        x, y = a.term.var, b.left.term.var
        k = b.right.value if b.op == "+" else -b.right.value
        if {x, y} != {hv, dv} or abs(k) != 1:
            return None
        return k if x == dv else -k  # as pos(d) - pos(h)
    return None


def eval_local(p: ir.Pred, feats: dict[str, dict]) -> bool:
    """Evaluate a local predicate on abstract features {var: {where, hs, flags, root, rank,
    ends}}, with "$lists" (list name -> index), "$vars" (h, d) and "$adj" (pos(d) - pos(h)
    for words adjacent in one list, else None)."""
    if isinstance(p, ir.Const):
        return p.value
    if isinstance(p, ir.Not):
        return not eval_local(p.item, feats)
    if isinstance(p, ir.All):
        return all(eval_local(i, feats) for i in p.items)
    if isinstance(p, ir.Any_):
        return any(eval_local(i, feats) for i in p.items)
    if isinstance(p, ir.InList):
        return feats[p.term.var]["where"] == feats["$lists"][p.list]
    if isinstance(p, ir.HasHead):
        return feats[p.var]["hs"] != 0
    if isinstance(p, ir.IsRoot):
        return feats[p.var]["root"]
    if isinstance(p, ir.TokenFlag):
        return feats[p.var]["flags"][p.flag]
    if isinstance(p, ir.Cmp):
        hv, dv = feats["$vars"]
        end = _end_atom(p, hv, dv)
        if end is not None:
            at_end = feats[end[0]]["ends"][end[1]]
            return at_end if p.op == "==" else not at_end
        k = _adjacency_atom(p, hv, dv)
        if k is not None:
            return feats["$adj"] == k  # pos(d) - pos(h), None when not adjacent in one list
        a, b = feats[p.left.var]["rank"], feats[p.right.var]["rank"]
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "!=": a != b, "==": a == b}[p.op]
    raise TypeError(p)
