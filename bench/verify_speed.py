"""Time `tsdsl verify` and `tsdsl coverage`: every seed spec and reading, a looping spec, the
shipped systems on the shared UD dev sets (issue 13).

    python bench/verify_speed.py                        # everything (verify --max-n 7, coverage)
    python bench/verify_speed.py --only verify --max-n 8 --specs arc-standard arc-hybrid
    python bench/verify_speed.py --only coverage --data ../shared/data/ud
    python bench/verify_speed.py --json figures.json

Kernels are built (or found in the cache) before timing; build times are printed apart.
Seconds are wall-clock of `verify_system` / `coverage` with the compiled kernel, as the
commands run them.  Run it against an older checkout (PYTHONPATH=OLD_SRC) to get the
"before" figures: a tsdsl whose functions take no kernel is timed in the interpreter, and
`--timeout S` stops an item that runs longer (reported as "> S s").

The coverage rows say how many sentences are derivable, not derivable (by proof / by
search) and undecided; the target is 0 undecided for every system on every dev set.
The default data missing: the coverage rows are skipped with a message; a ``--data`` that is
not there is an error (exit 2), found before anything is timed.
"""

from __future__ import annotations

import argparse
import inspect
import json
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

from benchargs import Given, given, no_data

ROOT = Path(__file__).resolve().parent.parent
DATA = next((p / "shared" / "data" / "ud" for p in (ROOT.parent, ROOT.parent.parent)
             if (p / "shared" / "data" / "ud").is_dir()), ROOT.parent / "shared" / "data" / "ud")

# arc-standard + SWAP without its `i < j` guard: SWAP, SWAP, ... loops (issue 13).
LOOPING_SWAP = """\
system looping_swap "arc-standard + SWAP without the i < j guard"
  produces nonprojective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal ([r], []) if is_root(r)
  SHIFT     : (σ, b|β)     => (σ|b, β)
  LEFT-ARC  : (σ|i|j, β)   => (σ|j, β)     arc j -> i
  RIGHT-ARC : (σ|i|j, β)   => (σ|i, β)     arc i -> j
  SWAP      : (σ|i|j, β)   => (σ|j, i|β)   if not is_root(i)
"""


def _kernel(system):
    from tsdsl.kernels import compile_system

    t = time.perf_counter()
    try:
        cs = compile_system(system)
    except Exception as exc:  # no compiler: time the interpreter
        print(f"  (no kernel for {system.name}: {str(exc).splitlines()[0]})", file=sys.stderr)
        return None, 0.0
    return cs, time.perf_counter() - t


def _takes(fn, name: str) -> bool:
    return name in inspect.signature(fn).parameters


def _verify_one(spec: str, max_n: int, examples: int, q) -> None:
    from tsdsl import load_system
    from tsdsl.verify.verifier import verify_system

    system = load_system(spec)
    kw = dict(max_n=max_n, examples=examples, random_max_n=30, search_budget=5000)
    build = 0.0
    if _takes(verify_system, "compiled"):
        kw["compiled"], build = _kernel(system)
    t, c = time.perf_counter(), time.process_time()
    v = verify_system(system, **kw)
    q.put(dict(spec=spec, seconds=round(time.perf_counter() - t, 2), cpu=round(time.process_time() - c, 2),
               build=round(build, 1), ok=v.ok,
               exhaustive_up_to=v.exhaustive_up_to, configurations=v.sizes[-1].configurations if v.sizes else 0,
               fails=[p for p, r in v.properties.items() if r.holds is False],
               random_undecided=v.random_undecided))


def _coverage_one(spec: str, path: str, reach_budget: int, q) -> None:
    from tsdsl import load_system
    from tsdsl.treebank.conllu import read_conllu
    from tsdsl.verify.coverage import coverage

    system = load_system(spec)
    sentences = list(read_conllu(path))
    kw = {}
    build = 0.0
    if _takes(coverage, "compiled"):
        kw["compiled"], build = _kernel(system)
        kw["reach_budget"] = reach_budget
    t, c = time.perf_counter(), time.process_time()
    r = coverage(system, sentences, **kw)
    q.put(dict(spec=spec, file=path, seconds=round(time.perf_counter() - t, 2), cpu=round(time.process_time() - c, 2),
               build=round(build, 1),
               sentences=r.sentences, derivable=r.derivable, not_derivable=r.not_derivable,
               by_proof=getattr(r, "not_derivable_by_proof", 0), undecided=r.undecided,
               arcs_undecided=r.nonprojective_arcs_undecided))


def _run(target, args, timeout: float):
    """Run one item in a child process (so a timeout can stop it); its figures or None."""
    q = mp.Queue()
    p = mp.Process(target=target, args=(*args, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    return q.get() if not q.empty() else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--only", choices=["verify", "coverage"], help="time only one of the two (default: both)")
    ap.add_argument("--max-n", type=int, default=7,
                    help="verify: exhaustive up to this sentence length (default: %(default)s)")
    ap.add_argument("--examples", type=int, default=50,
                    help="verify: Hypothesis examples per random check (default: %(default)s)")
    ap.add_argument("--specs", nargs="*", help="spec names or paths (default: every seed spec and reading)")
    ap.add_argument("--data", type=Path, default=DATA, action=Given, metavar="DIR",
                    help="coverage: directory of <treebank>/dev.conllu (default: %(default)s)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per item (default: %(default)s)")
    ap.add_argument("--reach-budget", type=int, default=0,
                    help="coverage: exact-loss budget to count the crossing arcs reached (default: 0, not counted; "
                         "the decision alone is timed)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file (default: none)")
    args = ap.parse_args(argv)
    if args.only in (None, "coverage") and not any(args.data.glob("*/dev.conllu")) and given(args, "data"):
        return no_data(args, ["data"], f"coverage: no */dev.conllu under {args.data}")
    systems = ROOT / "systems"
    if args.specs:
        specs = [str(systems / f"{s}.ts") if not s.endswith(".ts") else s for s in args.specs]
    else:
        specs = [str(p) for p in sorted(systems.glob("*.ts")) + sorted((systems / "readings").glob("*.ts"))]
    figures: dict = {"verify": [], "coverage": []}
    if args.only in (None, "verify"):
        loop = Path(tempfile.gettempdir()) / "tsdsl-bench-looping-swap.ts"
        loop.write_text(LOOPING_SWAP, encoding="utf-8")
        print(f"verify --max-n {args.max_n} --examples {args.examples}")
        total = cpu = 0.0
        for spec in specs + ([str(loop)] if not args.specs else []):
            row = _run(_verify_one, (spec, args.max_n, args.examples), args.timeout)
            name = Path(spec).relative_to(ROOT) if spec.startswith(str(ROOT)) else Path(spec).name
            if row is None:
                print(f"  {str(name):<52} > {args.timeout:.0f} s (stopped)")
                figures["verify"].append(dict(spec=str(name), seconds=None))
                total += args.timeout
                continue
            total += row["seconds"]
            cpu += row["cpu"]
            fails = ",".join(row["fails"]) or "-"
            print(f"  {str(name):<52} {row['seconds']:7.2f} s (cpu {row['cpu']:6.2f} s)  exhaustive n<={row['exhaustive_up_to']} "
                  f"({row['configurations']} configs)  fails: {fails}  random undecided: {row['random_undecided']}"
                  f"  [kernel build {row['build']:.0f} s]", flush=True)
            figures["verify"].append(row)
        print(f"  total {total:.1f} s (cpu {cpu:.1f} s)")
    if args.only in (None, "coverage"):
        files = sorted(args.data.glob("*/dev.conllu")) if args.data.is_dir() else []
        if not files:
            print(f"coverage: no */dev.conllu under {args.data}: skipped")
        shipped = [s for s in specs if "/readings/" not in s]
        for f in files:
            print(f"coverage {f.parent.name}/dev.conllu")
            for spec in shipped:
                row = _run(_coverage_one, (spec, str(f), args.reach_budget), args.timeout)
                if row is None:
                    print(f"  {Path(spec).stem:<28} > {args.timeout:.0f} s (stopped)")
                    figures["coverage"].append(dict(spec=spec, file=str(f), seconds=None))
                    continue
                print(f"  {Path(spec).stem:<28} {row['seconds']:7.2f} s (cpu {row['cpu']:6.2f} s)  "
                      f"{row['sentences']} sentences: "
                      f"{row['derivable']} derivable, {row['not_derivable']} not ({row['by_proof']} by proof), "
                      f"{row['undecided']} undecided  [kernel build {row['build']:.0f} s]", flush=True)
                figures["coverage"].append(row)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
