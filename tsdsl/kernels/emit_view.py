"""How generated code reads and writes a configuration: the emitters' one access layer.

The emitters render a case's binding, guard, cost (delta) and effect as C text; every read
and write of the configuration in that text goes through a *view*, so that one rendering
of the IR can target two layouts:

- :class:`StructView` (every kernel path): the state struct ``St* s``, its parallel
  per-token arrays and its lists as slices of ``s.buf`` between ``s.lo[k]`` and ``s.hi[k]``.
- :class:`RecordView` (the unlabeled oracle pass only, see :mod:`.emit_opass`): one record
  per token ``R[t]`` (head, gold head ``gpar``, class, dependent counts), list ends as
  pointers in locals (``lo0``, ``hi0``), and the end tokens the rules read (``top0``: the
  last of list 0, ``front1``: the first of list 1) cached in locals, reloaded by the
  statements that move that end.  What it cannot express (reads inside a list, positions,
  flags, paths, saved blocks, ...) raises :class:`NotOnRecords`, and the kernel keeps the
  generic pass.
"""

from __future__ import annotations


class NotOnRecords(Exception):
    """The rendering reads or writes something the record layout does not hold."""


class StructView:
    """The state struct ``St* s`` (see ``_runtime.pxi``)."""

    records = False

    def length(self, k: int) -> str:
        return f"(s.hi[{k}] - s.lo[{k}])"

    def at(self, k: int, side: str, off: int) -> str:
        """The token ``off`` places from list k's left (``side`` "L") or right ("R") end."""
        slot = f"s.lo[{k}] + {off}" if side == "L" else f"s.hi[{k}] - {1 + off}"
        return f"s.buf[{k} * s.cap + {slot}]"

    def head(self, x: str) -> str:
        return f"s.head[{x}]"

    def has_head(self, x: str) -> str:
        return f"st_has_head(s, {x})"

    def gold(self, x: str) -> str:
        """x's gold head, only ever compared with a token (>= 0)."""
        return f"s.gold[{x}]"

    def gpar(self, x: str) -> str:
        """x's gold head, or the sentinel row ntok when it has none."""
        return f"s.gpar[{x}]"

    def cls(self, x: str) -> str:
        return f"s.cls[{x}]"

    def root(self) -> str:
        return "s.root"

    def counts_of(self, v: str) -> str:
        """The statement that points ``count`` at v's gold dependents' counts."""
        return f"base = {v} * NCNT"

    def count(self, i: int) -> str:
        return f"s.cnt[base + {i}]"

    def struct_only(self, what: str) -> None:
        """Called before rendering a read or write only the struct holds (no-op here)."""

    # ---- statements (lists of lines) ----
    def set_arc(self, d: str, h: str, lab: str) -> list[str]:
        return [f"s.head[{d}] = {h}", f"s.lab[{d}] = {lab}"]

    def leave(self, x: str) -> list[str]:
        """x leaves every list."""
        return [f"s.where[{x}] = -1"]

    def trim(self, k: int, side: str, j: int) -> list[str]:
        """Drop j tokens from list k's left ("L") or right ("R") end."""
        return [f"s.lo[{k}] += {j}"] if side == "L" else [f"s.hi[{k}] -= {j}"]

    def push(self, k: int, side: str, v: str) -> list[str]:
        return [f"st_push_{'front' if side == 'L' else 'back'}(s, {k}, {v})"]

    def reclass_to(self, v: str, new: str) -> list[str]:
        return [f"st_reclass_to(s, {v}, {new})"]

    def gold_test(self) -> str:
        """The test guarding class upkeep (a state without gold tree keeps none)."""
        return "s.gold != NULL"

    def effects_begin(self, reclassed: list[str]) -> list[str]:
        """Lines before a case's effects, which re-class the tokens ``reclassed`` at the end."""
        return []

    def effects_end(self) -> None:
        """The case's effects are rendered."""


class RecordView(StructView):
    """Records ``R[t]`` and list ends in locals (see the module docstring).

    ``growth`` counts, per (list, side), the pushes of the case being rendered, so the pass
    can bound how far one step moves each end (:mod:`.emit_opass` takes the largest)."""

    records = True

    def __init__(self):
        self.growth: dict[tuple[int, str], int] = {}
        self.hoisted: frozenset = frozenset()

    def length(self, k: int) -> str:
        return f"(hi{k} - lo{k})"

    def at(self, k: int, side: str, off: int) -> str:
        if side == "L":
            return f"front{k}" if off == 0 else f"lo{k}[{off}]"
        # no negative literal index (Cython warns under wraparound=False)
        return f"top{k}" if off == 0 else f"(hi{k} - {1 + off})[0]"

    def head(self, x: str) -> str:
        return f"R[{x}].head"

    def has_head(self, x: str) -> str:
        return f"(R[{x}].head >= 0)"

    def gold(self, x: str) -> str:
        # gpar is the sentinel ntok where gold is -1: the same answer against a token >= 0
        return self.gpar(x)

    def gpar(self, x: str) -> str:
        return f"g_{x}" if x in self.hoisted else f"R[{x}].gpar"

    def cls(self, x: str) -> str:
        return f"o_{x}" if x in self.hoisted else f"R[{x}].cls"

    def root(self) -> str:
        return "root"

    def counts_of(self, v: str) -> str:
        return f"rb = &R[{v}]"

    def count(self, i: int) -> str:
        return f"rb.cnt[{i}]"

    def struct_only(self, what: str) -> None:
        raise NotOnRecords(what)

    def set_arc(self, d: str, h: str, lab: str) -> list[str]:
        return [f"R[{d}].head = {h}"]  # the unlabeled pass reads no label

    def leave(self, x: str) -> list[str]:
        return []  # which list a token is in is never read on records (membership is refused)

    def _reload_top(self, k: int) -> str:
        # an empty list's top is read in the buffer and not used (list 0 has nothing below
        # its first slot, which only pushes at its front reach: there the test is needed)
        if k == 0 and self.growth_front_possible:
            return f"top{k} = (hi{k} - 1)[0] if hi{k} > lo{k} else -1"
        return f"top{k} = (hi{k} - 1)[0]"

    growth_front_possible = True  # set by the pass once every case is known (two renderings)

    def trim(self, k: int, side: str, j: int) -> list[str]:
        if side == "L":
            # an empty list's front is read one slot past it, inside the state's block
            return [f"lo{k} += {j}", f"front{k} = lo{k}[0]"]
        return [f"hi{k} -= {j}", self._reload_top(k)]

    def push(self, k: int, side: str, v: str) -> list[str]:
        self.growth[(k, side)] = self.growth.get((k, side), 0) + 1
        if side == "L":
            return [f"lo{k} -= 1", f"lo{k}[0] = {v}", f"front{k} = {v}", self._reload_top(k)]
        return [f"hi{k}[0] = {v}", f"hi{k} += 1", f"top{k} = {v}", f"front{k} = lo{k}[0]"]

    def reclass_to(self, v: str, new: str) -> list[str]:
        return [f"new = {new}", f"R[{v}].cls = new", f"rg = &R[{self.gpar(v)}]",
                f"rg.cnt[grp_of({self.cls(v)})] -= 1", "rg.cnt[grp_of(new)] += 1"]

    def gold_test(self) -> str:
        return "1"

    def effects_begin(self, reclassed: list[str]) -> list[str]:
        # the class and gold head of each re-classed token read before the effects' stores (a
        # char or int store may alias them, and read after it they would be loaded again)
        self.hoisted = frozenset(reclassed)
        return [line for v in reclassed for line in (f"o_{v} = R[{v}].cls", f"g_{v} = R[{v}].gpar")]

    def effects_end(self) -> None:
        self.hoisted = frozenset()
