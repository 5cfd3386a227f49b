"""Token classes for incremental oracle costs.

When a fast oracle's reachability rule only looks at the two ends of a gold arc
(the list each is in, whether it has a head, token flags, is_root, their order),
whether a missing arc is lost depends only on the two ends' *classes*.  The code
generator evaluates the rule once per pair of classes (:func:`eval_local`) and
turns the result into tables, so the kernel never evaluates the rule itself.
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

    @property
    def n_flag_bits(self) -> int:
        return len(self.flags) + (1 if self.uses_root else 0)

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
        ok = (isinstance(p.left, ir.TVar) and isinstance(p.right, ir.TVar)
              and {p.left.var, p.right.var} == {hv, dv} and p.op in ("<", ">", "<=", ">=", "!=", "=="))
        acc["order"] = True
        return ok
    return False


def eval_local(p: ir.Pred, feats: dict[str, dict]) -> bool:
    """Evaluate a local predicate on abstract features {var: {where, hs, flags, root, rank}}."""
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
        a, b = feats[p.left.var]["rank"], feats[p.right.var]["rank"]
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "!=": a != b, "==": a == b}[p.op]
    raise TypeError(p)
