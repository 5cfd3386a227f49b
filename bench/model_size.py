"""Benchmark: model size and training memory against accuracy, for en_gum arc-eager.

Trains ``tsdsl train arc-eager`` on en_gum (``../shared/data/ud/en_gum/{train,dev,test}``)
once per variant, each in a child process: the defaults, and trade-off points of storage
precision, pruning and hash bits (the same epochs, seed and patience for all).  For each:
the model directory's size, the peak resident memory of the training process, its wall-clock
time, dev LAS (best epoch, from model.json) and test UAS/LAS (``tsdsl parse`` +
``tsdsl eval``).  ``--before REV`` also trains with the code of git revision REV (extracted
with ``git archive`` into a temporary directory), as the reference the targets compare with:
the model directory at most 20 MB, training below 1.5 GB, at most 0.1 test LAS lost.

Prints a markdown table; ``--out FILE`` writes it to FILE, ``--write-docs`` to
``docs/results-size.md`` and as a block of ``docs/results.md`` (``--results``); ``--json`` the
rows.  Skips with a message (exit 0) when the default treebank is absent; a ``--data`` that is
not there is an error (exit 2).

    python bench/model_size.py [--before REV] [--epochs 15] [--variants default int8 ...] [--data DIR]
                               [--json rows.json] [--merge earlier-rows.json ...] [--out FILE | --write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchargs import Given, add_output_options, no_data, output_path, produced_by
from docblocks import blocks_of, replace_block

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud" / "en_gum"  # --data overrides
DOCS = ROOT / "docs" / "results-size.md"  # where --write-docs puts the table
RESULTS = ROOT / "docs" / "results.md"  # and its block
MAX_MB, MAX_GB, MAX_LAS_LOST = 20.0, 1.5, 0.1

# name -> (extra `tsdsl train` options, what it shows)
VARIANTS = {
    "default": ([], "the defaults: 2^19 rows, float16, no pruning; tagger; the parser trained on the files' tags "
                    "with 30% of the sentences jackknifed (--parser-tags mixed)"),
    "jackknife": (["--parser-tags", "jackknife"], "the parser trained on jackknifed tags only"),
    "gold-tags": (["--parser-tags", "gold"], "the parser trained on the gold tags (as before the tagger)"),
    "bits20": (["--hash-bits", "20"], "a 2x larger hash table (2^20 rows, the default before), float16"),
    "float32": (["--precision", "float32"], "weights stored exactly"),
    "int8": (["--precision", "int8"], "8-bit weights, one scale per output"),
    "int8-prune1": (["--precision", "int8", "--prune", "1.0"], "8-bit, weights below 1.0 left out"),
    "bits18": (["--hash-bits", "18"], "a 4x smaller hash table (2^18 rows), float16"),
}
BEFORE = "before"


def measure_child(cmd: list[str]) -> int:
    """Run ``cmd`` (``--measure`` mode): print its exit code, peak RSS (bytes) and seconds."""
    t0 = time.perf_counter()
    code = subprocess.run(cmd).returncode
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # kB on Linux
    print(json.dumps({"code": code, "peak_rss": peak, "seconds": seconds}))
    return 0


def measured(cmd: list[str], env: dict, cwd: Path, log: Path) -> dict:
    """``cmd`` run under a fresh measuring process, so the peak is this command's alone."""
    with open(log, "a", encoding="utf-8") as fh:
        proc = subprocess.run([sys.executable, __file__, "--measure", "--", *cmd], env=env, cwd=cwd,
                              stdout=subprocess.PIPE, stderr=fh, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def dir_size(d: Path) -> int:
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file())


def run_variant(name: str, extra: list[str], workdir: Path, epochs: int, src: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    env.setdefault("TSDSL_CACHE_DIR", str(workdir / "kernels"))
    tsdsl = [sys.executable, "-m", "tsdsl.cli"]
    model = workdir / f"model-{name}"
    log = workdir / f"{name}.log"
    args = ["train", "arc-eager", "--train", str(DATA / "train.conllu"), "--dev", str(DATA / "dev.conllu"),
            "--out", str(model), "--epochs", str(epochs), "--quiet", *extra]
    if model.exists():
        shutil.rmtree(model)  # (the code of --before has no --force)
    # `python -m` puts the working directory first on the path: run in ``src``, so that
    # ``tsdsl`` is the code under test.  Build the kernel first, so that its compilation is
    # in neither the time nor the memory.
    subprocess.run([*tsdsl, "compile", "arc-eager"], env=env, cwd=src, capture_output=True)
    run = measured(["nice", "-n", "10", *tsdsl, *args], env, src, log)
    row = {"variant": name, "options": " ".join(extra), "peak_rss": run["peak_rss"],
           "train_seconds": round(run["seconds"], 1)}
    if run["code"] != 0:
        row["error"] = f"training failed (exit {run['code']}), see {log}"
        return row
    meta = json.loads((model / "model.json").read_text(encoding="utf-8"))
    pred = workdir / f"test-{name}.conllu"
    with open(log, "a", encoding="utf-8") as fh:
        subprocess.run([*tsdsl, "parse", str(model), str(DATA / "test.conllu"), "-o", str(pred)], env=env,
                       cwd=src, stderr=fh, check=True)
    scores = json.loads(subprocess.run([*tsdsl, "eval", str(DATA / "test.conllu"), str(pred), "--json"], env=env,
                                       cwd=src, capture_output=True, text=True, check=True).stdout)
    row.update(model_bytes=dir_size(model), best_epoch=meta.get("best_epoch"),
               epochs_run=len(meta.get("history") or []), dev_las=100 * meta["dev_las"],
               stored=(meta.get("weights") or {}).get("stored"),
               test_uas=100 * scores["uas"]["score"], test_las=100 * scores["las"]["score"])
    return row


def render(rows: list[dict], args) -> str:
    ref = next((r for r in rows if r["variant"] == BEFORE and "error" not in r), None) \
        or next((r for r in rows if r["variant"] == "float32" and "error" not in r), None)
    lines = ["# Model size and training memory", "",
             f"Produced by `{produced_by('model_size.py', args)}` (do not edit by hand): `tsdsl train arc-eager` on en_gum "
             f"(the files' UPOS, FEATS and lemmas), at most {args.epochs} epochs, patience 5, seed 1, best epoch on "
             "dev; test LAS with the gold tags of the test file, on universal labels with punctuation, as in "
             "[results.md](results.md). The default parser trains on the files' tags with 30% of the sentences "
             "jackknifed (their tags predicted, as in use), and its epochs are chosen on dev as its tagger tags it, so "
             "its dev LAS is a predicted-tag figure; "
             "[results-tagging.md](results-tagging.md) has LAS with predicted tags.",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other jobs: times are noisy), "
             f"Python {platform.python_version()}; one training at a time.", "",
             "Peak RSS: the training process's maximum resident set (`getrusage` of a child that only runs it); "
             "train s: its wall clock, kernel already built. "
             + (f"`{BEFORE}` is the code of `{args.before}`, before sparse storage. " if args.before else "")
             + (f"Δ LAS: against `{ref['variant']}`." if ref else ""), "",
             "| variant | options | model dir MB | weights stored | peak train RSS GB | train s | best epoch | "
             "dev LAS | test UAS | test LAS | Δ test LAS |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['variant']} | {r['options']} | {r['error']} | | | | | | | | |")
            continue
        delta = f"{r['test_las'] - ref['test_las']:+.2f}" if ref else ""
        stored = f"{r['stored']:,}" if r.get("stored") else "(dense rows)"
        lines.append(f"| {r['variant']} | {r['options'] or '(defaults)'} | {r['model_bytes'] / 1e6:.1f} | {stored} | "
                     f"{r['peak_rss'] / 1e9:.2f} | {r['train_seconds']:.0f} | {r['best_epoch']} of {r['epochs_run']} | "
                     f"{r['dev_las']:.2f} | {r['test_uas']:.2f} | **{r['test_las']:.2f}** | {delta} |")
    lines += ["", "Variants:", ""]
    for r in rows:
        what = VARIANTS[r["variant"]][1] if r["variant"] in VARIANTS else f"the code of {args.before}"
        lines.append(f"- **{r['variant']}**: {what}")
    default = next((r for r in rows if r["variant"] == "default" and "error" not in r), None)
    if default:
        lines += ["", "## Targets (the defaults)", ""]
        size_ok = default["model_bytes"] / 1e6 <= MAX_MB
        rss_ok = default["peak_rss"] / 1e9 < MAX_GB
        lines.append(f"- model directory <= {MAX_MB:.0f} MB: {default['model_bytes'] / 1e6:.1f} MB: "
                     f"**{'met' if size_ok else 'NOT met'}**")
        lines.append(f"- training peak RSS < {MAX_GB} GB: {default['peak_rss'] / 1e9:.2f} GB: "
                     f"**{'met' if rss_ok else 'NOT met'}**")
        if ref:
            lost = ref["test_las"] - default["test_las"]
            said = f"{lost:.2f}" if lost > 0 else f"none (the default scores {-lost:.2f} higher)"
            lines.append(f"- test LAS lost against `{ref['variant']}` <= {MAX_LAS_LOST}: {said}: "
                         f"**{'met' if lost <= MAX_LAS_LOST + 1e-9 else 'NOT met'}**")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    global DATA
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS),
                    help=f"the variants trained (default: {' '.join(VARIANTS)})")
    ap.add_argument("--before", metavar="REV", help="also train with the code of this git revision "
                                                    "(needs the checkout's .git; default: none)")
    ap.add_argument("--epochs", type=int, default=15, help="epochs at most per training (default: %(default)s)")
    ap.add_argument("--data", type=Path, default=DATA, action=Given, metavar="DIR",
                    help="the en_gum directory (default: %(default)s)")
    ap.add_argument("--workdir", type=Path, help="where models go (default: a temporary directory)")
    add_output_options(ap, DOCS)
    ap.add_argument("--json", type=Path, help="also write the rows as JSON (default: none)")
    ap.add_argument("--merge", type=Path, nargs="*", default=[],
                    help="rows of earlier runs (--json files) to put in the same table (a variant trained "
                         "again replaces its earlier row; default: none)")
    ap.add_argument("--render-only", action="store_true",
                    help="train nothing: the table of the --merge rows (with --before naming their reference; "
                         "default: off)")
    ap.add_argument("--results", type=Path,
                    help="the table also goes here, as a block bench/learn.py keeps (default: docs/results.md "
                         "with --write-docs, else none)")
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("cmd", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.measure:
        return measure_child(args.cmd)
    args.out = output_path(ap, args, DOCS)
    if args.results is None and args.write_docs:
        args.results = RESULTS
    DATA = args.data
    missing = [f for f in ("train", "dev", "test") if not (DATA / f"{f}.conllu").is_file()]
    if missing:
        return no_data(args, ["data"], f"no en_gum treebank under {DATA} (needs "
                       "{train,dev,test}.conllu there; see --data)")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tsdsl-bench-size-"))
    workdir.mkdir(parents=True, exist_ok=True)
    jobs = [] if args.render_only else [(name, VARIANTS[name][0], ROOT) for name in args.variants]
    if args.before and not args.render_only:
        src = workdir / "before-src"
        if not src.exists():
            src.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        jobs.insert(0, (BEFORE, [], src))
    now = {name for name, _, _ in jobs}
    rows = [r for f in args.merge for r in json.loads(f.read_text(encoding="utf-8")) if r["variant"] not in now]
    for name, extra, src in jobs:
        row = run_variant(name, extra, workdir, args.epochs, src)
        rows.append(row)
        print(json.dumps(row), flush=True)
    rows.sort(key=lambda r: ([BEFORE, *VARIANTS].index(r["variant"]) if r["variant"] in VARIANTS or
                             r["variant"] == BEFORE else 99))
    text = render(rows, args)
    # sections kept by hand-run measurements (docblocks): carried over
    kept = blocks_of(args.out) if args.out is not None else []
    if args.out is not None:
        args.out.write_text(text + "".join("\n" + b for b in kept), encoding="utf-8")
    if args.results:
        body = text.split("\n", 2)[2]   # without the title
        body += "".join("\n" + "\n".join(b.splitlines()[1:-1]) + "\n" for b in kept)  # without their markers
        replace_block(args.results, "model-size", "## Model size and training memory (en_gum arc-eager)\n\n"
                      + body.replace("\n## ", "\n### "))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(text)
    for path in (args.out, args.results):
        if path is not None:
            print(f"table written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
