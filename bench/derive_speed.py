"""Benchmark: the oracle by search on a real training set (issue 11: "static-oracle derivation
of en_gum train for a projective system and for SWAP each take well under a minute").

For each system: every training tree's canonical derivation by the compiled search
(``CompiledSystem.derive``, the default budget of 100,000 configurations per tree, pruned and
guided by ``tsdsl.learn.derive.search_options``, no disk cache), as ``tsdsl train`` runs it
for a spec without a usable oracle; then one epoch of greedy training along those derivations
(``--search-follow canonical``) and one with the search as a non-deterministic oracle
(``--search-follow model``: a search at every step where the prediction is not the plan's
next action), side by side, with zero weights at the start.
Projective systems see the lifted trees (``--nonproj lift``), as in training.

Prints a table (and ``--json``).  Skips with a message when the treebank is absent.

    python bench/derive_speed.py [--treebank en_gum] [--systems arc-eager arc-standard-swap ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from benchargs import Given, no_data

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("TSDSL_UD_DATA") or ROOT.parent / "shared" / "data" / "ud")

# name -> (spec, --set values)
SYSTEMS = {
    "arc-eager": ("systems/arc-eager.ts", {}),
    "arc-standard": ("systems/arc-standard.ts", {}),
    "arc-standard-swap": ("systems/arc-standard-swap.ts", {}),
    "attardi": ("systems/attardi.ts", {}),
    "easy-first-k3": ("systems/easy-first-bounded.ts", {"K": 3}),
    "covington": ("systems/covington.ts", {}),
}


def measure(name: str, tb: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from tsdsl.kernels import compile_system
    from tsdsl.lang import load_system
    from tsdsl.learn.derive import DEFAULT_BUDGET, search_options, targets_of
    from tsdsl.learn.engine import Engine
    from tsdsl.learn.features import default_features, load_features
    from tsdsl.learn.train import SEARCH_STEP_BUDGET, gold_batch
    from tsdsl.kernels.compiled import Treebank
    from tsdsl.treebank.conllu import read_conllu

    spec, overrides = SYSTEMS[name]
    system = load_system(ROOT / spec, overrides or None)
    ks = compile_system(system, fallback=False)
    sentences = read_conllu(DATA / tb / "train.conllu", allow_multiple_roots=True)
    features = load_features(default_features(system), system)
    outputs, batch, lifted = gold_batch(system, ks, sentences, features)
    words = batch.words
    lab = np.ascontiguousarray(batch.labels[:words])
    tbank = Treebank(np.ascontiguousarray(batch.heads[:words]), batch.offsets, lab, int(lab.max()) + 1)
    t0 = time.process_time()
    d = ks.derive(tbank, budget=DEFAULT_BUDGET, **search_options(ks))
    derive_s = time.process_time() - t0
    derived = np.flatnonzero(d.status == 1).astype(np.int32)

    class Oracle:   # what train_sequence reads (tsdsl.learn.derive.SearchOracle)
        derivations = d
        targets = targets_of(outputs, d.actions, d.labels)

    epochs = {}
    for follow in ("canonical", "model"):
        engine = Engine(ks, features, outputs, 19, train=True)
        t0 = time.process_time()
        if follow == "canonical":
            steps, wrong, stuck = engine.train_sequence(batch, derived, Oracle)
        else:
            steps, wrong, stuck = engine.train_searched(batch, derived, budget=SEARCH_STEP_BUDGET)
        epochs[follow] = {"seconds": round(time.process_time() - t0, 2), "steps": int(steps),
                          "updates": int(wrong), "stuck": int(stuck)}
        del engine
    return {"system": name, "treebank": tb, "trees": int(batch.sentences), "words": int(words),
            "lifted_arcs": int(lifted), "derive_seconds": round(derive_s, 2), "derived": int(len(derived)),
            "not_derivable": int(np.sum(d.status == 0)), "over_budget": int(np.sum(d.status < 0)),
            "epoch": epochs}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--treebank", default="en_gum", action=Given,
                    help=f"the treebank under {DATA} whose train.conllu is derived (default: %(default)s)")
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS), metavar="SYSTEM",
                    help=f"systems (default: {' '.join(SYSTEMS)})")
    ap.add_argument("--json", type=Path, help="also write the rows to this file (default: none)")
    args = ap.parse_args(argv)
    if not (DATA / args.treebank / "train.conllu").is_file():
        return no_data(args, ["treebank"], f"no {DATA / args.treebank / 'train.conllu'} "
                       "(set TSDSL_UD_DATA to the folder of the UD treebanks)")
    rows = [measure(name, args.treebank) for name in args.systems]
    print(f"{args.treebank} train, CPU seconds (time.process_time) of one process; machine: {os.cpu_count()} cores\n")
    print("| system | trees | derive s | derived | not derivable | over budget | epoch canonical s (updates) "
          "| epoch model s (updates) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        c, m = r["epoch"]["canonical"], r["epoch"]["model"]
        print(f"| {r['system']} | {r['trees']:,} | {r['derive_seconds']:.1f} | {r['derived']:,} | "
              f"{r['not_derivable']} | {r['over_budget']} | {c['seconds']:.1f} ({c['updates']:,}) | "
              f"{m['seconds']:.1f} ({m['updates']:,}) |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
