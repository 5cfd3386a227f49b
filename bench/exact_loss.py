"""Benchmark: the exact loss by search, interpreted and compiled, per configuration.

CPU time at n = 10 and n = 15 in the interpreter (``LossSearch``) and in the compiled kernel
(``tsdsl.kernels.exact_loss``).

Configurations are drawn as `tsdsl check-oracle` draws them: a random gold tree of the
class the system covers, then a random legal action prefix.  Each configuration is searched
by both, side by side in one run, each from a fresh memo; prints CPU-time medians and
quantiles per system and sentence length, and the ratio of the two totals over the
configurations both finished (the two expand the same configurations: the column says how
many).

    python bench/exact_loss.py [--configs 40] [--systems arc-eager arc-hybrid ...] [--interpreted]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from pathlib import Path

from tsdsl import Interpreter, load_system
from tsdsl.verify.loss import BudgetExceeded, LossSearch
from tsdsl.verify.oracle_check import random_tree
from tsdsl.verify.reach import reach_table

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["arc-eager", "arc-hybrid", "arc-standard", "arc-eager-nm-2013", "arc-eager-unshift",
           "easy-first-bounded", "covington", "covington-nm", "attardi"]


def _quantiles(times: list) -> tuple:
    """Median, 90th percentile and maximum, in milliseconds (nan when nothing was timed)."""
    if not times:
        return math.nan, math.nan, math.nan
    qs = statistics.quantiles(times, n=10) if len(times) > 1 else times * 9
    return 1000 * statistics.median(times), 1000 * qs[-1], 1000 * max(times)


def measure(name: str, n: int, configs: int, budget: int, seed: int, compiled: bool) -> dict:
    system = load_system(ROOT / "systems" / f"{name}.ts")
    it = Interpreter(system)
    kernel = None
    if compiled:
        from tsdsl.kernels import compile_system
        from tsdsl.kernels.exact_loss import CompiledLossSearch

        kernel = compile_system(system, fallback=False)
        table = reach_table(system, n + (0 if system.root == "none" else 1))
    rng = random.Random(seed)
    times, ktimes, both, over, expanded = [], [], [], 0, []
    projective = system.covers in ("projective", "projective-dag")
    while len(times) + over < configs:
        gold = random_tree(rng, n, projective=projective or rng.random() < 0.5)
        c = it.initial(n)
        prefix = []
        for _ in range(rng.randint(0, 2 * n)):
            legal = it.legal(c)
            if not legal:
                break
            a = rng.choice(legal)
            it.apply(c, a)
            prefix.append(a)
        search = LossSearch(it, gold, budget=budget)
        t = time.process_time()
        try:
            value = search.loss(c)
        except BudgetExceeded:
            value = None
        py_s = time.process_time() - t
        k_s = None
        if kernel is not None:
            k_search = CompiledLossSearch(kernel, gold, table)
            t = time.process_time()
            k_value = k_search.loss(prefix, budget)
            k_s = time.process_time() - t
            if k_value != value or (value is not None and k_search.expanded != search.expanded):
                raise SystemExit(f"{name}: gold {gold}, prefix {prefix}: interpreter {value} "
                                 f"({search.expanded} expanded), compiled {k_value} ({k_search.expanded})")
        if value is None:
            over += 1
            continue
        if value == math.inf:
            continue
        times.append(py_s)
        expanded.append(search.expanded)
        if k_s is not None:
            ktimes.append(k_s)
            both.append((py_s, k_s))
    med, p90, mx = _quantiles(times)
    kmed, kp90, kmx = _quantiles(ktimes)
    ratio = sum(p for p, _ in both) / max(sum(k for _, k in both), 1e-9) if both else math.nan
    return {"system": name, "n": n, "configs": len(times), "over_budget": over, "median_ms": med,
            "p90_ms": p90, "max_ms": mx, "median_expanded": statistics.median(expanded) if expanded else math.nan,
            "k_median_ms": kmed, "k_p90_ms": kp90, "k_max_ms": kmx, "ratio": ratio}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--configs", type=int, default=40,
                   help="configurations drawn per system and length (default: %(default)s)")
    p.add_argument("--budget", type=int, default=500_000,
                   help="configurations one search may expand before it gives up (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the draws (default: %(default)s)")
    p.add_argument("--systems", nargs="+", default=DEFAULT, metavar="SYSTEM",
                   help=f"spec names (default: {' '.join(DEFAULT)})")
    p.add_argument("--lengths", nargs="+", type=int, default=[10, 15], metavar="N",
                   help="sentence lengths (default: 10 15)")
    p.add_argument("--interpreted", action="store_true", help="the interpreter's search only (no kernel built)")
    args = p.parse_args(argv)
    head = (f"{'system':<22} {'n':>3} {'configs':>7} {'>budget':>7} {'median ms':>10} {'p90 ms':>9} "
            f"{'max ms':>9} {'expanded':>9}")
    if not args.interpreted:
        head += f" {'compiled median ms':>19} {'p90 ms':>9} {'max ms':>9} {'ratio':>7}"
    print(head)
    for name in args.systems:
        for n in args.lengths:
            r = measure(name, n, args.configs, args.budget, args.seed, not args.interpreted)
            line = (f"{r['system']:<22} {r['n']:>3} {r['configs']:>7} {r['over_budget']:>7} {r['median_ms']:>10.2f} "
                    f"{r['p90_ms']:>9.1f} {r['max_ms']:>9.1f} {r['median_expanded']:>9.0f}")
            if not args.interpreted:
                line += f" {r['k_median_ms']:>19.3f} {r['k_p90_ms']:>9.2f} {r['k_max_ms']:>9.2f} {r['ratio']:>7.0f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
