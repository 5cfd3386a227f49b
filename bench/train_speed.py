"""Benchmark: training speed before and after a change, side by side, the kernels built first.

For each system (the names of ``bench/learn.py``), in a fresh process for this checkout and
one for git revision ``--before REV`` (extracted with ``git archive``), turn about, best of
``--repeats``: a warm-up training on the first 50 sentences builds every kernel the run
needs (into each code's own cache key), then the timed training, ``--epochs`` epochs on
en_gum train with gold tags, no tagger and no dev set, in CPU seconds of the training process
(``time.process_time``: one core's work, whatever else shares the machine).  Reported:
training words/s (words x epochs / seconds) for both codes, their ratio, and whether the two
trained models hold the same weights ("same model": a change of layout must not change what
is learned).  Skips with a message when the treebank is absent.

    nice -n 10 python bench/train_speed.py --before REV [--systems arc-eager ...] [--epochs 2] [--repeats 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from learn import DATA, SYSTEMS  # noqa: E402  (the systems as bench/learn.py trains them)

TREEBANK = "en_gum"
DEFAULT_SYSTEMS = ("arc-eager", "arc-hybrid", "covington-nm", "easy-first")


def _digest(model_dir: Path) -> str:
    """A digest of the model's weights and outputs (not of model.json's timings)."""
    h = hashlib.sha256()
    for p in sorted(model_dir.rglob("*")):
        if p.is_file() and p.name != "model.json" and p.suffix != ".ts":
            h.update(p.name.encode())
            h.update(p.read_bytes())
    outputs = json.loads((model_dir / "model.json").read_text(encoding="utf-8")).get("outputs")
    h.update(json.dumps(outputs).encode())
    return h.hexdigest()[:16]


def train_one(src: Path, name: str, out: Path, epochs: int) -> dict:
    """In this process, with the code under ``src``: the warm-up, then the timed training."""
    sys.path.insert(0, str(src))
    import tsdsl
    from tsdsl.learn.train import TrainOptions, train
    from tsdsl.treebank.conllu import read_conllu

    if Path(tsdsl.__file__).resolve().parent.parent != src.resolve():
        raise SystemExit(f"imported tsdsl from {tsdsl.__file__}, not from {src}")
    spec, overrides, extra, _ = SYSTEMS[name]
    train_file = DATA / TREEBANK / "train.conllu"
    sentences = read_conllu(train_file)
    words = sum(len(s.heads) for s in sentences)
    warm = out.parent / (out.name + "-warm.conllu")
    blocks = train_file.read_text(encoding="utf-8").split("\n\n")
    warm.write_text("\n\n".join(blocks[:50]) + "\n\n", encoding="utf-8")
    opts = dict(overrides=dict(overrides), tagger=False, parser_tags="gold", **extra)
    train(str(src / spec), str(warm), None, str(out) + "-warm", TrainOptions(epochs=1, **opts), progress=None)
    t0 = time.process_time()
    train(str(src / spec), str(train_file), None, str(out), TrainOptions(epochs=epochs, **opts), progress=None)
    seconds = time.process_time() - t0
    return {"seconds": round(seconds, 2), "wps": round(words * epochs / seconds), "digest": _digest(out)}


def child(src: Path, name: str, out: Path, epochs: int) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--train-one", str(src), name, str(out), str(epochs)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", metavar="REV", help="the git revision to compare with (required; default: none)")
    ap.add_argument("--systems", nargs="*", default=list(DEFAULT_SYSTEMS), choices=list(SYSTEMS), metavar="SYSTEM",
                    help=f"systems (bench/learn.py's names; default: {' '.join(DEFAULT_SYSTEMS)})")
    ap.add_argument("--epochs", type=int, default=2, help="epochs of the timed training (default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=2, help="trainings per code; the best is kept (default: %(default)s)")
    ap.add_argument("--train-one", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.train_one:
        src, name, out, epochs = args.train_one
        print(json.dumps(train_one(Path(src), name, Path(out), int(epochs))))
        return 0
    if not args.before:
        ap.error("--before REV is required")
    if not (DATA / TREEBANK / "train.conllu").is_file():
        print(f"bench/train_speed.py: skipped: no {TREEBANK} train.conllu under {DATA} (set TSDSL_UD_DATA)")
        return 0
    work = Path(tempfile.mkdtemp(prefix="tsdsl-bench-train-"))
    before = work / f"before-{args.before}"
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], capture_output=True, check=True).stdout
    before.mkdir()
    subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
    lines = [f"Produced by `python bench/train_speed.py --before {args.before} --systems {' '.join(args.systems)} "
             f"--epochs {args.epochs} --repeats {args.repeats}`: {TREEBANK} train, gold tags, no tagger, CPU s of "
             "the training process, kernels built before the clock starts, best of the repeats.", "",
             f"| system | train words/s, {args.before} | train words/s, this checkout | ratio | same model |",
             "|---|---|---|---|---|"]
    for name in args.systems:
        best = {"before": None, "after": None}
        for k in range(args.repeats):
            for side, src in (("after", ROOT), ("before", before)) if k % 2 else (("before", before), ("after", ROOT)):
                r = child(src, name, work / f"{name}-{side}-{k}", args.epochs)
                print(f"{name} {side} {k}: {r}", flush=True)
                if "error" in r:
                    best[side] = r
                elif best[side] is None or r["wps"] > best[side].get("wps", 0):
                    best[side] = r
        b, a = best["before"], best["after"]
        if "error" in b or "error" in a:
            lines.append(f"| {name} | {b.get('error', b.get('wps'))} | {a.get('error', a.get('wps'))} | - | - |")
            continue
        lines.append(f"| {name} | {b['wps']:,} | {a['wps']:,} | {a['wps'] / b['wps']:.2f} | "
                     f"{'yes' if a['digest'] == b['digest'] else 'NO'} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
