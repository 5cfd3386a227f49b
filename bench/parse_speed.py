"""Benchmark: greedy parse speed of every trainable system, before and after a change.

For each system (the names of ``bench/learn.py``), a model is trained on en_gum train (gold
tags, no tagger, a few epochs without a dev set: speed is the point here, not accuracy; with
``--epochs defaults`` as ``tsdsl train`` trains it, tagger included) into
``--workdir`` or reused from there; then, each in a fresh process alone, the test set is
parsed greedily with the model loaded, best of ``--repeats``, timed in CPU seconds of the
parsing process (``time.process_time``: one core's work, whatever else shares the machine):

- **parse words/s**: the whole ``Parser.parse_sentences`` call (token tables, the kernel's
  search, the ``finally`` rule, tree repair, writing the columns back; gold tags given, so
  a model's tagger only fills the gaps: the 21 sentences whose FEATS are all ``_``);
- **kernel words/s**: the compiled search alone (``Engine.parse`` on a prepared batch).

With ``--before REV`` the same models are parsed again by the code of git revision REV
(extracted with ``git archive``), side by side, and the two parses are compared: a change of
the scoring code must not change a single head or label ("same parses").  The table, with the
issue's target, 100,000 words/s for the whole call, marked met or not met per system, is
printed; ``--write-docs`` puts it into ``docs/kernels.md`` (between the ``parse-speed``
markers), ``--out FILE`` into FILE.

``--treebank NAME`` measures another treebank of the data directory the same way (models
trained on its train set, named after it in ``--workdir``; its own docs section): the
figures of one treebank are no promise for others.  Skips with a message when the treebank
is absent (``../shared/data/ud/NAME`` or ``$TSDSL_UD_DATA/NAME``; default en_gum).

With ``--before-models own`` the code of REV trains its own models (into
``--workdir``/before-REV-models) and parses those: for a change of what a model holds (stop
31's feature hash), where the same model cannot be read by both; LAS is compared instead.

    nice -n 10 python bench/parse_speed.py --before REV [--before-models own] [--systems arc-eager ...] [--epochs 2]
                                           [--treebank en_gum] [--workdir DIR] [--repeats 3]
                                           [--out FILE | --write-docs]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from learn import DATA, SYSTEMS, option_flags  # noqa: E402  (the systems as bench/learn.py trains them)
from benchargs import add_output_options, output_path, produced_by  # noqa: E402

TREEBANK = "en_gum"
TARGET = 100_000
DEFAULT_SYSTEMS = ("arc-eager", "arc-hybrid", "arc-standard", "tree-constrained", "hj-unshift", "nm-2013",
                   "attardi", "arc-standard-swap", "easy-first-k2", "easy-first-k3", "easy-first-k4",
                   "easy-first", "easy-first-nonproj-d2", "covington", "covington-nm",
                   "covington-skip-detours", "covington-nm-skip-detours")  # the last two: a training option
DEFAULTS = "defaults"  # --epochs defaults: train as `tsdsl train` does with a dev set
BEGIN, END = "<!-- parse-speed:begin -->", "<!-- parse-speed:end -->"
DOCS = ROOT / "docs" / "kernels.md"  # where --write-docs puts the section


def train_one(name: str, model_dir: Path, epochs: str, src: Path = ROOT, treebank: str = TREEBANK) -> None:
    """Train ``name`` on ``treebank``'s train set into ``model_dir`` (this process, the code under ``src``):
    ``epochs`` epochs without a dev set and without a tagger, or for ``defaults`` as ``tsdsl
    train SPEC --train TRAIN --dev DEV`` does (at most 30 epochs, patience 5 on the dev LAS,
    2^19 rows, a tagger, the parser trained on mixed tags)."""
    sys.path.insert(0, str(src))
    import tsdsl
    from tsdsl.learn.train import TrainOptions, train

    if Path(tsdsl.__file__).resolve().parent.parent != src.resolve():
        raise SystemExit(f"imported tsdsl from {tsdsl.__file__}, not from {src}")
    spec, overrides, extra, _ = SYSTEMS[name]
    defaults = epochs == DEFAULTS
    opts = (TrainOptions(overrides=dict(overrides), **extra) if defaults else
            TrainOptions(epochs=int(epochs), overrides=dict(overrides), tagger=False, parser_tags="gold", **extra))
    dev = str(DATA / treebank / "dev.conllu") if defaults else None
    train(str(src / spec), str(DATA / treebank / "train.conllu"), dev, str(model_dir), opts, progress=None)


def measure_one(src: Path, model_dir: Path, repeats: int, treebank: str = TREEBANK) -> dict:
    """Parse ``treebank``'s test set with the code under ``src``: best times, and a digest of
    the parses."""
    sys.path.insert(0, str(src))
    import tsdsl
    from tsdsl.treebank.conllu import read_conllu
    from tsdsl.learn.data import columns_of, make_batch
    from tsdsl.learn.parser import load_parser

    if Path(tsdsl.__file__).resolve().parent.parent != src.resolve():
        raise SystemExit(f"imported tsdsl from {tsdsl.__file__}, not from {src}")
    t0 = time.process_time()
    parser = load_parser(model_dir)
    load_s = time.process_time() - t0
    test = read_conllu(DATA / treebank / "test.conllu")
    parser.parse_sentences(test[:50])  # warm up
    best_all = best_kernel = float("inf")
    for _ in range(repeats):
        parsed = None  # the last call's sentences freed outside the timed call
        t0 = time.process_time()
        parsed, stats = parser.parse_sentences(test)
        best_all = min(best_all, time.process_time() - t0)
        batch = make_batch([columns_of(s) for s in test], parser.model.features.token_attrs)
        t0 = time.process_time()
        parser.engine.parse(batch, beam=1)
        best_kernel = min(best_kernel, time.process_time() - t0)
    digest = hashlib.sha256()
    correct = 0
    for gold, pred in zip(test, parsed):
        for g, p in zip(gold.tokens if hasattr(gold, "tokens") else gold.words,
                        pred.tokens if hasattr(pred, "tokens") else pred.words):
            digest.update(f"{p.head}\t{p.deprel}\n".encode())
            correct += p.head == g.head and p.deprel == g.deprel
    return {"words": stats.words, "parse_wps": round(stats.words / best_all),
            "kernel_wps": round(stats.words / best_kernel), "digest": digest.hexdigest()[:16],
            "las": round(100 * correct / max(1, stats.words), 2), "load_s": round(load_s, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def epochs_arg(text: str) -> str:
    """``--epochs``: a whole number at least 1, or ``defaults``."""
    if text == DEFAULTS or (text.isdigit() and int(text) >= 1):
        return text
    raise argparse.ArgumentTypeError(f"expected a number of epochs or {DEFAULTS!r}, got {text!r}")


def child(args: list[str], treebank: str = TREEBANK) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--treebank", treebank, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def markers(args) -> tuple[str, str]:
    """The markers of the docs section: one table for the short trainings, one for models
    trained with the defaults (``--epochs defaults``); each treebank but en_gum its own."""
    name = "parse-speed" + ("-defaults" if args.epochs == DEFAULTS else "")
    name += "" if args.treebank == TREEBANK else f"-{args.treebank}"
    return BEGIN.replace("parse-speed", name), END.replace("parse-speed", name)


def render(rows: list[dict], args) -> str:
    before = bool(args.before)
    begin, end = markers(args)
    lines = [begin, "",
             f"Produced by `{produced_by('parse_speed.py', args, *(['--epochs', args.epochs] if args.epochs != '2' else []), *(['--before', args.before] if before else []), *(['--before-models', 'own'] if before and args.before_models == 'own' else []), *(['--treebank', args.treebank] if args.treebank != TREEBANK else []))}` "
             f"(do not edit by hand). {args.treebank} test, gold tags, greedy, one process at a time, CPU time of the parsing "
             f"process (`time.process_time`: one core's work, on a machine shared with other jobs), best of {args.repeats}; "
             + (f"models trained on {args.treebank} train as `tsdsl train SPEC --train TRAIN --dev DEV` does (the "
                f"defaults: at most 30 epochs, patience 5 on the dev LAS, 2^19 rows, a tagger, the parser trained "
                f"on mixed tags; given the test file's tags, the tagger fills only "
                + ("the FEATS of the 21 sentences whose FEATS are all `_`). " if args.treebank == TREEBANK else
                   "the values the file lacks). ") if args.epochs == DEFAULTS else
                f"models trained {args.epochs} epoch(s) on {args.treebank} train (speed is the point, not accuracy; a "
                f"Covington-family model's steps per word depend on its training, see `--epochs defaults`). ")
             + f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other work, Python "
             f"{platform.python_version()}. Parse: the whole `Parser.parse_sentences` call; kernel: the "
             f"compiled search alone. LAS: head and full label right, all words. Load: "
             f"`load_parser` CPU seconds (kernel cached). Target: {TARGET:,} words/s for the whole call.", ""]
    head = "| system | outputs | "
    if before:
        head += "parse before | kernel before | "
    head += "parse words/s | kernel words/s | LAS | " + ("same parses | " if before else "") + "target | "
    head += ("load s before / after | peak RSS MB before / after |" if before else "load s | peak RSS MB |")
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        a = r["after"]
        if "error" in a or (before and "error" in r["before"]):
            err = a.get("error") or r["before"].get("error")
            lines.append(f"| {r['system']} | failed: {err} |")
            continue
        cells = [r["system"] + (f" (`{option_flags(r['system'])}`)" if option_flags(r["system"]) else ""),
                 str(r.get("outputs", ""))]
        if before:
            cells += [f"{r['before']['parse_wps']:,}", f"{r['before']['kernel_wps']:,}"]
        cells += [f"{a['parse_wps']:,}", f"{a['kernel_wps']:,}", f"{a['las']:.2f}"]
        if before and args.before_models == "own":
            cells.append(f"own models (LAS before {r['before']['las']:.2f})")
        elif before:
            cells.append("yes" if r["before"]["digest"] == a["digest"] else "**NO**")
        met_cell = "**met**" if a["parse_wps"] >= TARGET else "not met"
        cells.append(f"({met_cell} with the option)" if option_flags(r["system"]) else met_cell)
        if before:
            cells += [f"{r['before']['load_s']:.1f} / {a['load_s']:.1f}",
                      f"{r['before']['peak_rss_mb']:,} / {a['peak_rss_mb']:,}"]
        else:
            cells += [f"{a['load_s']:.1f}", f"{a['peak_rss_mb']:,}"]
        lines.append("| " + " | ".join(cells) + " |")
    plain = [r for r in rows if not option_flags(r["system"])]
    met = [r["system"] for r in plain if r["after"].get("parse_wps", 0) >= TARGET]
    lines += ["", f"{len(met)} of {len(plain)} systems trained with the defaults reach {TARGET:,} words/s for the "
              "whole call" + ("; a row with a training option in brackets is the same system trained with it, "
                             "and does not count" if len(plain) < len(rows) else "") + ".", "", end]
    return "\n".join(lines)


def write_section(path: Path, text: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace the section between the markers in ``path`` (appended when absent; a new file
    is created)."""
    doc = path.read_text(encoding="utf-8") if path.is_file() else ""
    if begin in doc and end in doc:
        doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: text, doc, flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n## Greedy parse speed\n\n" + text + "\n"
    path.write_text(doc, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", nargs="*", default=list(DEFAULT_SYSTEMS), choices=list(SYSTEMS), metavar="SYSTEM",
                    help=f"systems (bench/learn.py's names; default: {' '.join(DEFAULT_SYSTEMS)})")
    ap.add_argument("--epochs", type=epochs_arg, default="2",
                    help=f"training epochs per model, without a dev set; or `{DEFAULTS}`: as `tsdsl train` trains "
                         "with the dev set (default: %(default)s)")
    ap.add_argument("--treebank", default=TREEBANK, metavar="NAME",
                    help="the treebank of the data directory to train on and parse (default: %(default)s)")
    ap.add_argument("--workdir", type=Path, help="where models go, and are reused from (default: a temporary "
                    "directory)")
    ap.add_argument("--before", metavar="REV", help="also parse with the code of this git revision (needs the "
                                                    "checkout's .git; default: none)")
    ap.add_argument("--before-models", choices=("same", "own"), default="same",
                    help="with --before: parse the same models with both codes (same; the parses are then "
                         "compared), or let the code of REV train and parse its own (own: for a change of what "
                         "a model holds, such as stop 31's feature hash; LAS compared instead) (default: "
                         "%(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="parses per model; the best is kept (default: %(default)s)")
    add_output_options(ap, DOCS, "the table (a section between parse-speed markers)")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON (after every system; default: none)")
    ap.add_argument("--resume", action="store_true", help="with --json: keep the rows already in it and "
                    "measure only the other systems (default: off)")
    ap.add_argument("--train-one", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--measure-one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.train_one:
        train_one(args.train_one[0], Path(args.train_one[1]), args.train_one[2],
                  Path(args.train_one[3]) if len(args.train_one) > 3 else ROOT, args.treebank)
        print(json.dumps({"trained": args.train_one[0]}))
        return 0
    if args.measure_one:
        print(json.dumps(measure_one(Path(args.measure_one[0]), Path(args.measure_one[1]),
                                     int(args.measure_one[2]), args.treebank)))
        return 0
    args.out = output_path(ap, args, DOCS)
    needed = ("train", "test") + (("dev",) if args.epochs == DEFAULTS else ())
    if not all((DATA / args.treebank / f"{f}.conllu").is_file() for f in needed):
        print(f"bench/parse_speed.py: skipped: no {args.treebank} treebank under {DATA} (needs "
              f"{', '.join(f + '.conllu' for f in needed)} there; set TSDSL_UD_DATA)")
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tsdsl-bench-speed-"))
    workdir.mkdir(parents=True, exist_ok=True)
    src_before = None
    if args.before:
        src_before = workdir / f"before-{args.before}"
        if not src_before.exists():
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before], capture_output=True,
                                     check=True).stdout
            src_before.mkdir()
            subprocess.run(["tar", "-x", "-C", str(src_before)], input=archive, check=True)
    rows = []
    if args.resume and args.json and args.json.is_file():
        rows = [r for r in json.loads(args.json.read_text(encoding="utf-8")) if r["system"] in args.systems]
    done = {r["system"] for r in rows}
    for name in args.systems:
        if name in done:
            continue
        model = workdir / (f"{args.treebank}-{name}-{DEFAULTS}" if args.epochs == DEFAULTS else
                           f"{args.treebank}-{name}-e{args.epochs}")
        if not (model / "model.json").is_file():
            t0 = time.perf_counter()
            r = child(["--train-one", name, str(model), str(args.epochs)], args.treebank)
            print(f"{name}: trained in {time.perf_counter() - t0:.0f} s {r.get('error', '')}", flush=True)
        row = {"system": name}
        if (model / "model.json").is_file():
            row["outputs"] = len(json.loads((model / "model.json").read_text(encoding="utf-8"))["outputs"])
        if src_before is not None:
            before_model = model
            if args.before_models == "own":
                before_model = src_before.parent / f"{src_before.name}-models" / model.name
                if not (before_model / "model.json").is_file():
                    t0 = time.perf_counter()
                    r = child(["--train-one", name, str(before_model), str(args.epochs), str(src_before)],
                              args.treebank)
                    print(f"{name}: trained by {args.before} in {time.perf_counter() - t0:.0f} s "
                          f"{r.get('error', '')}", flush=True)
            row["before"] = child(["--measure-one", str(src_before), str(before_model), str(args.repeats)],
                                  args.treebank)
        row["after"] = child(["--measure-one", str(ROOT), str(model), str(args.repeats)], args.treebank)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    rows.sort(key=lambda r: args.systems.index(r["system"]))
    text = render(rows, args)
    print(text)
    if args.out is not None:
        write_section(args.out, text, *markers(args))
        print(f"section written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
