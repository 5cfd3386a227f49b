"""``tsdsl trace --gold``: drive a trace by an oracle for a gold tree.

Which oracle chooses each step, in order:

1. the spec's declared exact oracle (its first oracle whose first loss is exact), where it
   has a zero-cost action;
2. otherwise the compiled kernel's canonical derivation of the gold tree (the static oracle
   by search that ``tsdsl train`` uses: at each step the first action, arcs first and input
   last, from which the gold tree is still derivable), found in milliseconds where the exact
   loss search would expand hundreds of thousands of configurations;
3. otherwise (no kernel, or a gold tree the system cannot derive) the exact loss search of
   ``tsdsl/verify/loss.py``, bounded by ``--budget`` configurations per step.

With ``--costs`` the costs come from the declared oracle, else from the exact search: the
kernel's (``tsdsl.kernels.exact_loss``, allowed ``DERIVE_FACTOR`` times ``--budget``
configurations, as the compiled derivation search is) for a single-head spec, the
interpreter's otherwise.  A step whose search runs over the budget shows its costs as unknown
(``?``) rather than losing the table, as long as an oracle still says which action to take.
"""

from __future__ import annotations

import sys
from typing import Optional

from ..errors import KernelBuildError, UsageError

GOLD_BUDGET = 200_000
"""``trace --gold``: configurations the exact loss search may expand per step (``--budget``)."""

DERIVE_FACTOR = 10
"""The compiled derivation search may expand this many times ``--budget`` configurations
(as ``coverage`` allows its compiled search)."""

INF_LEGEND = ("cost inf: no terminal configuration can be reached after that action "
              "(a dead end: no tree can be finished)")
"""The line under a ``trace --costs`` table that has an infinite cost."""

UNKNOWN = "?"
"""The cost shown for an action whose exact loss search ran over the budget."""


def unknown_legend(budget: int) -> str:
    """The line under a ``trace --costs`` table with unknown costs."""
    return (f"cost {UNKNOWN}: the exact loss search expanded more than {budget} configurations at that step "
            "(raise --budget to see it)")


class _Derivation:
    """The kernel's canonical derivation of one gold tree, followed step by step.

    As ``coverage`` searches: first the derivations that never build a wrong arc (found at
    once where the tree is derivable, even where the unrestricted search wanders, as in
    arc-eager-unshift), then, for a non-monotonic system, every derivation; both pruned by
    what the spec is proved to do (``tsdsl.verify.planar``: arcs span at most G tokens...),
    which drops only configurations that cannot finish the tree, so the derivation is the same;
    guided, as training derives (``tsdsl.learn.derive.search_options``), for a spec whose
    actions reorder tokens (SWAP).
    ``actions`` is the action sequence (names) when one was found, else None, with ``status``
    saying why (``Derivations.NOT_DERIVABLE``, ``OVER_BUDGET``, ...)."""

    def __init__(self, kernel, gold, budget: int):
        from ..verify.planar import reordering, search_pruning

        system = kernel.system
        n = len(gold)
        prune = search_pruning(system, n)
        guide = None if kernel.unbounded else reordering(system)
        if guide is not None:
            prune["guide"] = guide
        d = kernel.derive([list(gold)], budget=budget, strict=True, **prune)
        if int(d.status[0]) != d.DERIVED and not system.is_monotonic(n + 1):
            d = kernel.derive([list(gold)], budget=budget, **prune)
        self.kernel = kernel
        self.status = int(d.status[0])
        self.actions: Optional[list[str]] = None
        if self.status == d.DERIVED:
            ids, _ = d.sequence(0)
            names = self._names(n)
            self.actions = [names[int(a)] for a in ids]

    def _names(self, n: int) -> list[str]:
        k = self.kernel
        if not k.unbounded:
            return list(k.action_names)
        return k._for_tokens(n + (0 if k.system.root == "none" else 1))[0]


def trace_kernel(system):
    """The compiled kernel used to derive gold trees, or None (a multihead spec, whose gold
    trees are the DEPS graphs; or no kernel can be built: then the trace searches in the
    interpreter, and says why on stderr)."""
    if system.multihead:
        return None
    from ..kernels import compile_system

    try:
        return compile_system(system, fallback=False, profile="explore")
    except KernelBuildError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"tsdsl: warning: no compiled kernel ({reason}); tracing with the exact loss search in the "
              "interpreter", file=sys.stderr)
        return None


def trace_gold(args, system, it, write_html) -> int:
    """Run ``trace --gold`` (see the module docstring); ``write_html(steps, words, root,
    terminal, footer)`` writes the ``--html`` page."""
    from ..kernels.exact_loss import CompiledLossSearch, supports
    from ..oracle import FastOracle
    from ..trace import apply_recorded, final_step, render_steps
    from ..treebank.conllu import read_conllu
    from ..verify.loss import BudgetExceeded, LossSearch
    from ..verify.planar import search_pruning
    from ..verify.reach import reach_table

    sentences = read_conllu(args.gold)
    number = 1 if args.sentence is None else args.sentence
    if not 1 <= number <= len(sentences):
        raise UsageError(f"--sentence must be between 1 and {len(sentences)}")
    sent = sentences[number - 1]
    gold = list(sent.heads)
    words = list(sent.forms)
    budget = GOLD_BUDGET if args.budget is None else args.budget
    limit = budget  # what the exact loss search may expand per step (larger when compiled)
    exact_oracles = [o for o in system.oracles if o.losses and o.losses[0].bound == "exact"]
    fast = FastOracle(it, exact_oracles[0], gold) if exact_oracles else None
    search = LossSearch(it, gold, budget=budget)
    names = [d.name for d in system.lists]
    kernel = derivation = None
    kernel_tried = False

    def derive() -> Optional[_Derivation]:
        """The canonical derivation, computed on first need (None: no kernel)."""
        nonlocal kernel, derivation, kernel_tried
        if not kernel_tried:
            kernel_tried = True
            kernel = trace_kernel(system)
            if kernel is not None:
                derivation = _Derivation(kernel, gold, DERIVE_FACTOR * budget)
        return derivation

    compiled: list = []  # the kernel's exact loss search, made on first need

    def searched_costs(c):
        """The exact costs at ``c`` (reached by ``prefix``), or None over the budget (which
        counts per step): in the kernel when there is one, else in the interpreter."""
        nonlocal limit
        derive()
        if kernel is not None and supports(kernel):
            if not compiled:
                n_tokens = len(gold) + (0 if system.root == "none" else 1)
                compiled.append(CompiledLossSearch(kernel, gold, reach_table(system, n_tokens),
                                                   search_pruning(system, len(gold))))
            limit = DERIVE_FACTOR * budget
            found = compiled[0].costs(prefix, limit)
            return None if found is None else {a: (int(v) if v != float("inf") else v) for a, v in found.items()}
        search.expanded = 0
        try:
            return {a: (int(v) if v != float("inf") else v) for a, v in search.costs(c).items()}
        except BudgetExceeded:
            return None

    c = it.initial(len(gold))
    steps: list = []
    prefix: list[str] = []  # the actions so far
    counts = {"fast": 0, "derived": 0, "searched": 0}
    unknown = False
    k = 0
    while not it.is_terminal(c):
        action = None
        costs = fast.costs(c) if fast is not None else None
        if costs is not None and any(v == 0 for v in costs.values()):
            zero = [a for a, v in costs.items() if v == 0]
            mono = [a for a in zero if a not in search.nonmonotonic]
            action = (mono or zero)[0]
            counts["fast"] += 1
        else:
            costs = None
            d = derive()
            if d is not None and d.actions is not None and d.actions[:k] == prefix and k < len(d.actions):
                action = d.actions[k]
                counts["derived"] += 1
            elif d is not None and d.actions is not None:
                # the declared oracle led elsewhere: the first action from which the tree is
                # still derivable, in the canonical order
                action = _first_free(kernel, gold, prefix, DERIVE_FACTOR * budget)
                counts["derived"] += action is not None
            if action is None or args.costs:
                costs = searched_costs(c)
                if costs is None:
                    if action is None:
                        message = (f"step {k}: the exact loss search expanded more than {limit} configurations "
                                   f"({_why_search(d, system.name)}, so the search decides each step); "
                                   "raise --budget")
                        print(render_steps(steps, names))
                        write_html(steps + [final_step(it, c, words, k)], words, c.root, False, f"tsdsl: {message}")
                        raise UsageError(message)
                    costs = {a: UNKNOWN for a in it.legal(c)}
                    unknown = True
                elif action is None:
                    zero = [a for a, v in costs.items() if v == 0]
                    if not zero:
                        print(render_steps(steps, names))
                        raise UsageError(f"step {k}: no zero-cost action (costs {costs})" +
                                         (f"; {INF_LEGEND}" if float("inf") in costs.values() else ""))
                    mono = [a for a in zero if a not in search.nonmonotonic]
                    action = (mono or zero)[0]
                    counts["searched"] += 1
        steps.append(apply_recorded(it, c, words, k, action, costs if args.costs else None))
        prefix.append(action)
        k += 1
    steps.append(final_step(it, c, words, k))
    print(render_steps(steps, names, terminal=True))
    legends = []
    if any(s.costs is not None and float("inf") in s.costs.values() for s in steps):
        legends.append(INF_LEGEND)
    if unknown:
        legends.append(unknown_legend(limit))
    for line in legends:
        print(line)
    out = it.output(c).heads
    wrong = sum(1 for h, g in zip(out, gold) if h != g)
    last = f"oracle: {_source(exact_oracles, fast, counts, args.costs)}; {wrong} of {len(gold)} heads differ from gold"
    print(last)
    write_html(steps, words, c.root, True, ". ".join(legends + [last]))
    return 0


def _first_free(kernel, gold, prefix, budget: int) -> Optional[str]:
    """The first action, in the kernel's canonical order, after which ``gold`` is still
    derivable from the configuration ``prefix`` reaches (None: none)."""
    if kernel.unbounded:
        return None
    from ..learn.derive import search_options

    ids = [kernel.action_ids[a] for a in prefix]
    free = kernel.free_actions(gold, ids, budget=budget, **search_options(kernel, pruning=False))
    order = kernel.canonical_order() or range(len(kernel.action_names))
    for a in order:
        if free[a] == 1:
            return kernel.action_names[a]
    return None


def _source(exact_oracles, fast, counts: dict, costs: bool) -> str:
    """What drove the trace, for its last line."""
    derived = "canonical derivation (static, by search)"
    searched = "exact loss search"
    if fast is not None:
        source = f"fast oracle {exact_oracles[0].name}"
        others = []
        if counts["derived"]:
            others.append(f"the {derived} at {counts['derived']} step(s)")
        if counts["searched"]:
            others.append(f"{searched} at {counts['searched']} step(s)")
        if others:
            source += f" ({' and '.join(others)} where it had no zero-cost action)"
        if costs and (counts["derived"] or counts["searched"]):
            source += f"; costs there: {searched}"
        return source
    if counts["derived"] and not counts["searched"]:
        return derived + (f"; costs: {searched}" if costs else "")
    if counts["searched"] and not counts["derived"]:
        return searched
    return f"{derived} at {counts['derived']} step(s), {searched} at {counts['searched']}"


def _why_search(d: Optional[_Derivation], name: str) -> str:
    """Why a step was left to the exact loss search, for its budget error."""
    if d is None:
        return "no compiled kernel to derive the gold tree"
    if d.status == 0:
        return f"the gold tree has no derivation in {name}"
    return "the derivation search ran over its budget too"
