"""Benchmark: specs without an oracle block, trained with the static oracle by search and with
their derived oracle (issue 11, part 2), on a UD treebank.

For each system and each way of training, in a fresh process: ``tsdsl train`` (gold tags from
the files: ``--no-tagger``, so the two runs differ only in the oracle; dev LAS picks the best
epoch, at most ``--epochs``), ``tsdsl parse`` of the test file and ``tsdsl eval``.  Prints one
table (and ``--json``): the oracle training used (from model.json), the derived rule's verdict,
the share of training trees the oracle reproduces, dev and test LAS, training seconds.

Skips with a message when ``../shared/data/ud`` (or ``$TSDSL_UD_DATA``) is absent (exit 0); a
``--treebank`` that is not there is an error (exit 2).

    python bench/derived_oracle.py [--treebank en_lines] [--epochs 15] [--systems arc-eager-cp ...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchargs import Given, no_data

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("TSDSL_UD_DATA") or ROOT.parent / "shared" / "data" / "ud")

# name -> (spec, --set values); each trains with every entry of RUNS
SYSTEMS = {
    "arc-eager-cp": ("arc-eager-cp", ()),
    "attardi-N1": ("attardi", ("N=1",)),
    "attardi-N2": ("attardi", ("N=2",)),
}
# run name -> training options: the search (what such specs trained with before), the default
# (auto: the derived oracle under the declared-oracle rules), and the derived oracle forced to
# train dynamically, or statically, even where auto would not take it (experiments, not defaults)
RUNS = {
    "search": ("--oracle", "search"),
    "auto": (),
    "derived-dynamic-forced": ("--oracle", "dynamic", "--force-oracle"),
    "derived-static-forced": ("--oracle", "static", "--force-oracle"),
}


def tsdsl(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tsdsl.cli", *map(str, argv)], capture_output=True, text=True)


def one(spec: str, sets: tuple, run: tuple, tb: Path, epochs: int, work: Path, seed: int) -> dict:
    model = work / "model"
    set_args = [x for s in sets for x in ("--set", s)]
    t0 = time.time()
    p = tsdsl("train", spec, *set_args, "--train", tb / "train.conllu", "--dev", tb / "dev.conllu", "--out", model,
              "--epochs", epochs, "--seed", seed, "--no-tagger", "--quiet", "--force", *run)
    if p.returncode:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"}
    seconds = time.time() - t0
    meta = json.loads((model / "model.json").read_text(encoding="utf-8"))
    pred = work / "pred.conllu"
    p = tsdsl("parse", model, tb / "test.conllu", "-o", pred, "--quiet")
    if p.returncode:
        return {"error": p.stderr.strip()}
    p = tsdsl("eval", tb / "test.conllu", pred, "--json")
    scores = json.loads(p.stdout)
    derived = meta.get("derived_oracle") or {}
    return {"oracle": meta["oracle"], "derived": ("exact" if derived.get("exact") else "lower bound") if derived else "-",
            "reproduced": meta.get("oracle_reproduced"), "best_epoch": meta.get("best_epoch"),
            "dev_las": round(100 * meta["dev_las"], 2), "test_las": round(100 * scores["las"]["score"], 2),
            "test_uas": round(100 * scores["uas"]["score"], 2), "train_seconds": round(seconds, 1),
            "note": meta.get("oracle_note", "")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--treebank", default="en_lines", action=Given,
                    help=f"the treebank under {DATA} (default: %(default)s)")
    ap.add_argument("--epochs", type=int, default=15, help="epochs at most per training (default: %(default)s)")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS),
                    help=f"specs without an oracle block (default: {' '.join(SYSTEMS)})")
    ap.add_argument("--runs", nargs="+", default=list(RUNS), choices=list(RUNS),
                    help=f"how each is trained (default: {' '.join(RUNS)})")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1], help="training seeds (default: 1)")
    ap.add_argument("--json", help="also write the rows to this file (default: none)")
    args = ap.parse_args(argv)
    tb = DATA / args.treebank
    if not (tb / "train.conllu").is_file():
        return no_data(args, ["treebank"], f"no treebank at {tb} (set TSDSL_UD_DATA to the folder holding "
                       f"{args.treebank}/)")
    rows = []
    print(f"{'system':<12} {'run':<23} {'seed':>4} {'oracle':<8} {'derived':<12} {'reprod.':>7} {'epoch':>5} "
          f"{'dev LAS':>7} {'test LAS':>8} {'test UAS':>8} {'train s':>7}", flush=True)
    for name in args.systems:
        spec, sets = SYSTEMS[name]
        for seed, run in itertools.product(args.seeds, args.runs):
            if run.startswith("derived-") and any(r.get("system") == name and r.get("run") == "auto"
                                                  and r.get("oracle") == "dynamic" for r in rows):
                continue  # auto already trained dynamically with the (exact) derived oracle
            with tempfile.TemporaryDirectory() as work:
                r = one(spec, sets, RUNS[run], tb, args.epochs, Path(work), seed)
            r.update(system=name, run=run, seed=seed)
            rows.append(r)
            if "error" in r:
                print(f"{name:<12} {run:<23} {seed:>4} error: {r['error']}", flush=True)
                continue
            rep = f"{100 * r['reproduced']:.1f}" if r["reproduced"] is not None else "-"
            print(f"{name:<12} {run:<23} {seed:>4} {r['oracle']:<8} {r['derived']:<12} {rep:>7} {r['best_epoch']:>5} "
                  f"{r['dev_las']:>7.2f} {r['test_las']:>8.2f} {r['test_uas']:>8.2f} {r['train_seconds']:>7.1f}",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
