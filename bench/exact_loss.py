"""Benchmark: time of the exact loss by search, per configuration, at n = 10 and n = 15.

Configurations are drawn as `tsdsl check-oracle` draws them: a random gold tree of the
class the system covers, then a random legal action prefix.  Prints CPU-time medians
and quantiles per system and sentence length, measured side by side in one run.

    python bench/exact_loss.py [--configs 40] [--systems arc-eager arc-hybrid ...]
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

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["arc-eager", "arc-hybrid", "arc-standard", "arc-eager-nm-2013", "arc-eager-unshift",
           "easy-first-bounded", "covington", "covington-nm"]


def measure(name: str, n: int, configs: int, budget: int, seed: int) -> dict:
    system = load_system(ROOT / "systems" / f"{name}.ts")
    it = Interpreter(system)
    rng = random.Random(seed)
    times, over, expanded = [], 0, []
    projective = system.covers in ("projective", "projective-dag")
    while len(times) + over < configs:
        gold = random_tree(rng, n, projective=projective or rng.random() < 0.5)
        c = it.initial(n)
        for _ in range(rng.randint(0, 2 * n)):
            legal = it.legal(c)
            if not legal:
                break
            it.apply(c, rng.choice(legal))
        search = LossSearch(it, gold, budget=budget)
        t = time.process_time()
        try:
            value = search.loss(c)
        except BudgetExceeded:
            over += 1
            continue
        if value == math.inf:
            continue
        times.append(time.process_time() - t)
        expanded.append(search.expanded)
    qs = statistics.quantiles(times, n=10) if len(times) > 1 else times * 9
    return {"system": name, "n": n, "configs": len(times), "over_budget": over,
            "median_ms": 1000 * statistics.median(times), "p90_ms": 1000 * qs[-1],
            "max_ms": 1000 * max(times), "median_expanded": statistics.median(expanded)}


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
    args = p.parse_args(argv)
    print(f"{'system':<22} {'n':>3} {'configs':>7} {'>budget':>7} {'median ms':>10} {'p90 ms':>9} "
          f"{'max ms':>9} {'expanded':>9}")
    for name in args.systems:
        for n in args.lengths:
            r = measure(name, n, args.configs, args.budget, args.seed)
            print(f"{r['system']:<22} {r['n']:>3} {r['configs']:>7} {r['over_budget']:>7} {r['median_ms']:>10.2f} "
                  f"{r['p90_ms']:>9.1f} {r['max_ms']:>9.1f} {r['median_expanded']:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
