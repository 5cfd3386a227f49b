"""Coverage of every shipped system on the shared UD dev sets: decided / undecided, seconds (issue 13).

    python bench/coverage.py                                   # every shipped spec, the D/N settings too
    python bench/coverage.py --specs attardi-2 easy-first-nonproj:D=3 --treebanks en_lines
    python bench/coverage.py --json coverage.json

A spec is a name in systems/ or a path, optionally with settings after a colon
(``easy-first-nonproj:D=3``).  Each row: sentences derivable, not derivable (by proof
from the spec / by search) and undecided within the default budget, with the seconds of
``coverage`` (kernel build excluded, printed apart).  The target is 0 undecided everywhere.
The non-projective arcs reached are not counted (reach budget 0): the decision alone is
timed.  The default data missing: a message, nothing measured (exit 0); a ``--data`` or a
treebank of ``--treebanks`` that is not there: an error (exit 2).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

from benchargs import Given, given, no_data

ROOT = Path(__file__).resolve().parent.parent
DATA = next((p / "shared" / "data" / "ud" for p in (ROOT.parent, ROOT.parent.parent)
             if (p / "shared" / "data" / "ud").is_dir()), ROOT.parent / "shared" / "data" / "ud")
SETTINGS = ["attardi:N=1", "attardi:N=3", "easy-first-nonproj:D=3", "easy-first-nonproj:D=4"]


def _load(spec: str):
    from tsdsl import load_system

    name, _, sets = spec.partition(":")
    path = name if name.endswith(".ts") else str(ROOT / "systems" / f"{name}.ts")
    params = dict(kv.split("=", 1) for kv in sets.split(",") if kv)
    return load_system(path, {k: int(v) for k, v in params.items()})


def _one(spec: str, path: str, q) -> None:
    from tsdsl.kernels import compile_system
    from tsdsl.treebank.conllu import read_conllu
    from tsdsl.verify.coverage import coverage

    system = _load(spec)
    t = time.perf_counter()
    cs = None if system.multihead else compile_system(system, fallback=False)
    build = time.perf_counter() - t
    sentences = list(read_conllu(path))
    t = time.perf_counter()
    r = coverage(system, sentences, compiled=cs, reach_budget=0)
    q.put(dict(spec=spec, file=path, seconds=round(time.perf_counter() - t, 2), build=round(build, 1),
               sentences=r.sentences, derivable=r.derivable, not_derivable=r.not_derivable,
               by_proof=r.not_derivable_by_proof, undecided=r.undecided,
               undecided_lines=[s.line for s in r.per_sentence if s.status == "undecided"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", nargs="*", help="specs (default: every shipped spec, then " + ", ".join(SETTINGS) + ")")
    ap.add_argument("--treebanks", nargs="*", default=["en_lines", "el_gdt", "en_gum"], action=Given,
                    help="treebanks under --data (default: en_lines el_gdt en_gum)")
    ap.add_argument("--data", type=Path, default=DATA, action=Given, metavar="DIR",
                    help="directory of <treebank>/dev.conllu (default: %(default)s)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per item (default: %(default)s)")
    ap.add_argument("--json", type=Path, help="also write the rows to this file (default: none)")
    args = ap.parse_args(argv)
    files = [args.data / t / "dev.conllu" for t in args.treebanks]
    absent = [f for f in files if not f.is_file()]
    if absent and (len(absent) == len(files) or given(args, "data", "treebanks")):
        return no_data(args, ["data", "treebanks"], f"no dev.conllu of "
                       f"{', '.join(f.parent.name for f in absent)} under {args.data}: nothing measured")
    files = [f for f in files if f.is_file()]
    specs = args.specs or [p.stem for p in sorted((ROOT / "systems").glob("*.ts"))] + SETTINGS
    rows = []
    for f in files:
        print(f"coverage {f.parent.name}/dev.conllu", flush=True)
        for spec in specs:
            q = mp.Queue()
            p = mp.Process(target=_one, args=(spec, str(f), q))
            p.start()
            p.join(args.timeout)
            if p.is_alive():
                p.terminate()
                p.join()
            row = q.get() if not q.empty() else None
            if row is None:
                print(f"  {spec:<26} stopped after {args.timeout:.0f} s (or failed)", flush=True)
                rows.append(dict(spec=spec, file=str(f), seconds=None))
                continue
            und = f"  lines {row['undecided_lines']}" if row["undecided"] else ""
            print(f"  {spec:<26} {row['sentences']:5d} sentences: {row['derivable']:5d} derivable, "
                  f"{row['not_derivable']:4d} not ({row['by_proof']} by proof), {row['undecided']} undecided"
                  f"  {row['seconds']:7.2f} s  [kernel {row['build']:.0f} s]{und}", flush=True)
            rows.append(row)
    total = sum(r["undecided"] for r in rows if r.get("seconds") is not None)
    stopped = sum(1 for r in rows if r.get("seconds") is None)
    print(f"undecided in all: {total}; items stopped: {stopped}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
