"""Fast oracles declared in specs: reachable gold arcs, loss formulas, penalties.

An ``oracle`` block in a spec states which missing gold arcs can still be
built (Goldberg & Nivre's arc decomposition), optionally corrected for cycles
(Gómez-Rodríguez & Fernández-González 2015; Fernández-González &
Gómez-Rodríguez 2017) and with per-action penalties (Honnibal & Johnson 2015).
The cost of an action is the change of the loss it causes (at least 1 when a
penalty rule marks it as not optimal);
each evaluation is O(n) apart from cycle enumeration.  `tsdsl check-oracle`
compares every declared oracle with the exact loss found by search.
"""

from __future__ import annotations

from typing import Optional, Sequence

from . import ir
from .errors import OracleError
from .interp import Config, Interpreter


class FastOracle:
    """A declared oracle bound to one sentence's gold tree.

    Args:
        it: the interpreter of the system that declares the oracle.
        oracle: the declared oracle (``it.system.oracles``), its name, or None for the first one.
        gold: gold heads in CoNLL-U numbering (``gold[d-1]``, 0 = root).
    """

    def __init__(self, it: Interpreter, oracle: ir.Oracle | str | None, gold: Sequence[int]):
        self.it = it
        self.oracle = oracle if isinstance(oracle, ir.Oracle) else find_oracle(it.system, oracle)
        if self.oracle.reach is None:
            raise OracleError(f"oracle {self.oracle.name!r} has no reachability rule")
        self.n = len(gold)
        init = it.initial(self.n)
        self.root = init.root
        self.gold = [-1] * (self.n + 2)
        for d, g in enumerate(gold, 1):
            self.gold[d] = (self.root if self.root is not None else -1) if g == 0 else g
        positive, self.hvar, self.dvar, pred = self.oracle.reach
        self.positive = positive
        self.reach_pred = it._pred(pred)
        # with the variables each reads: a rule applies under a case only if it binds them all
        self.penalties = [(name, it._pred(p), ir.pred_vars(p)) for name, p in self.oracle.penalties]

        self.monotonic = it.system.is_monotonic(self.n + 2)

    # ---- loss ---------------------------------------------------------------------
    def unreachable(self, c: Config, bound: str = "exact") -> list[tuple[int, int]]:
        """Gold arcs (head, dep) neither present nor individually reachable.

        In a system without a root token the gold root must end without a head: one
        that has a head counts as lost where heads are permanent (monotonic systems,
        or a word that left every list) and for upper bounds.
        """
        out = []
        env = {"$gold": self.gold}
        heads = c.heads
        for d in range(1, self.n + 1):
            g = self.gold[d]
            if g < 0:
                headed = bool(c.multi[d]) if c.multi is not None else heads[d] >= 0
                gone = not any(d in lst for lst in c.lists)
                if headed and (self.monotonic or bound == "upper" or gone):
                    out.append((-1, d))
                continue
            if c.multi is not None:
                if g in c.multi[d]:
                    continue
            elif heads[d] == g:
                continue
            env[self.hvar] = g
            env[self.dvar] = d
            ok = self.reach_pred(c, env)
            if ok != self.positive:
                out.append((g, d))
        return out

    def loss(self, c: Config, name: Optional[str] = None) -> int:
        """The value of the named loss formula (the first one when ``name`` is None)."""
        expr = self._loss_expr(name)
        lost = self.unreachable(c, expr.bound)
        total = 0
        cycles = None
        for term in expr.terms:
            if term == "unreachable":
                total += len(lost)
                continue
            if cycles is None:
                cycles = self._cycles(c, lost)
            if term == "cycles":
                total += len(cycles)
            else:
                total += sum(1 for cyc in cycles if self._problematic(c, cyc))
        return total

    def _loss_expr(self, name: Optional[str]) -> ir.LossExpr:
        if name is None:
            return self.oracle.losses[0]
        for l in self.oracle.losses:
            if l.name == name:
                return l
        raise OracleError(f"oracle {self.oracle.name!r} has no loss {name!r}; it has "
                          f"{', '.join(l.name for l in self.oracle.losses)}")

    def _graph(self, c: Config, lost) -> dict[int, set[int]]:
        """Arcs A plus the reachable missing gold arcs I, as head -> set of dependents."""
        g: dict[int, set[int]] = {}
        if c.multi is not None:
            for d, hs in enumerate(c.multi):
                for h in hs:
                    g.setdefault(h, set()).add(d)
        else:
            for d, h in enumerate(c.heads):
                if h >= 0:
                    g.setdefault(h, set()).add(d)
        lost_set = set(lost)
        for d in range(1, self.n + 1):
            h = self.gold[d]
            if h >= 0 and (h, d) not in lost_set:
                g.setdefault(h, set()).add(d)
        return g

    def _cycles(self, c: Config, lost) -> list[list[int]]:
        """Every elementary cycle of A ∪ I, each as its node list (smallest node first)."""
        graph = self._graph(c, lost)
        cycles: list[list[int]] = []
        for start in sorted(graph):
            stack = [(start, iter(sorted(graph.get(start, ()))))]
            path = [start]
            on_path = {start}
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    on_path.discard(path.pop())
                    continue
                if nxt == start:
                    cycles.append(list(path))
                elif nxt > start and nxt not in on_path:
                    path.append(nxt)
                    on_path.add(nxt)
                    stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
        return cycles

    def _problematic(self, c: Config, cycle: list[int]) -> bool:
        """Whether breaking ``cycle`` in Covington's arc-building order removes a gold arc.

        The cycle is closed by its missing arc built last (largest right end, then the
        smallest left end); cycle breaking removes the arc into that arc's head.
        """
        edges = [(cycle[k], cycle[(k + 1) % len(cycle)]) for k in range(len(cycle))]
        present = set()
        for h, d in edges:
            if (c.multi is not None and h in c.multi[d]) or (c.multi is None and c.heads[d] == h):
                present.add((h, d))
        built = [e for e in edges if e not in present]
        if not built:
            return False
        x, y = max(built, key=lambda e: (max(e), -min(e)))
        z = next(h for h, d in edges if d == x)
        return self.gold[x] == z

    # ---- costs ---------------------------------------------------------------------
    def penalty(self, c: Config, action: str) -> int:
        """How many penalty rules mark ``action`` (an instance name) as not optimal in ``c``;
        a rule written for a family name covers every instance.  A rule is read under the
        case that applies (the first whose pattern and guard hold); one that reads a variable
        this case does not bind does not apply (docs/language.md §7.4)."""
        total = 0
        entry = self.it._table(c)[1].get(action)
        for name, pred, variables in self.penalties:
            if entry is None or not ir.penalty_applies(name, entry[0]):
                continue
            for cc in entry[1]:
                env = cc.bind(c)
                if env is not None:
                    if variables <= env.keys():
                        env["$gold"] = self.gold
                        total += bool(pred(c, env))
                    break
        return total

    def costs(self, c: Config, name: Optional[str] = None) -> dict[str, int]:
        """Cost of every legal action: the loss it adds, plus its penalty."""
        base = self.loss(c, name)
        out = {}
        for a in self.it.legal(c):
            child = self.it.copy(c)
            self.it.apply(child, a)
            cost = self.loss(child, name) - base
            # a penalised move is "not optimal" (Honnibal & Johnson 2015): it costs at least 1
            out[a] = max(cost, 1) if self.penalty(c, a) else cost
        return out

    def zero_cost(self, c: Config, name: Optional[str] = None) -> list[str]:
        return [a for a, v in self.costs(c, name).items() if v == 0]


def find_oracle(system: ir.System, name: Optional[str] = None) -> ir.Oracle:
    """The declared oracle called ``name`` (the first one when None).

    Raises:
        OracleError: the system declares no (such) oracle.
    """
    if not system.oracles:
        raise OracleError.undeclared(system)
    if name is None:
        return system.oracles[0]
    for o in system.oracles:
        if o.name == name:
            return o
    raise OracleError(f"{system.name} has no oracle {name!r}; it declares "
                      f"{', '.join(o.name for o in system.oracles)}")
