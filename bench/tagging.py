"""Benchmark: the tagger, and parsing with predicted tags instead of gold ones.

For each treebank present under ``../shared/data/ud/NAME/`` (skipped with a message when
absent): train a model with ``tsdsl.learn.train`` (parser and tagger, as ``tsdsl train``;
the parser trains on the gold tags of the file), or reuse the one in ``--models`` if it is
there, then parse the test set twice:

- with its gold LEMMA, UPOS, XPOS and FEATS;
- with those four columns emptied (``_``), so that the model's tagger predicts them first.

It reports the tagger's test accuracy per column (UPOS, XPOS, FEATS, LEMMA, and AllTags:
UPOS, XPOS and FEATS all right), the UAS and LAS of both parses (``tsdsl.treebank.evaluate``:
universal labels as in CoNLL 2018, punctuation counted), the tagger's training time, its
tagging speed, and its size on disk beside the whole model directory's.  The issue's target:
LAS with predicted tags within a few points of LAS with gold tags.

The table is printed; ``--out FILE`` writes it to FILE, ``--write-docs`` to
``docs/results-tagging.md`` (and, with ``--udpipe``, the section beside UDPipe 1 as a block of
``docs/results.md``).  A ``--data`` directory or a treebank of ``--treebanks`` that is not
there is an error (exit 2); the default shared data absent, it skips with a message (exit 0).

    python bench/tagging.py [--treebanks en_lines el_gdt en_gum] [--system arc-eager]
                            [--epochs 15] [--models DIR] [--out FILE | --write-docs] [--json F]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from benchargs import Given, add_output_options, given, no_data, output_path, produced_by
from docblocks import replace_block

ROOT = Path(__file__).resolve().parent.parent
DATA_CANDIDATES = (ROOT.parent / "shared" / "data" / "ud", ROOT.parent.parent / "shared" / "data" / "ud")
DATA = next((d for d in DATA_CANDIDATES if d.is_dir()), DATA_CANDIDATES[0])
"""The treebanks: ``shared/data/ud`` beside the repository (or beside its parent, for a
worktree under ``wt/``); ``--data`` chooses another place."""
TREEBANKS = ("en_lines", "el_gdt", "en_gum")
DOCS = ROOT / "docs" / "results-tagging.md"  # where --write-docs puts the table
RESULTS = ROOT / "docs" / "results.md"  # and the section beside UDPipe 1, as a block
TAGS = ("lemma", "upos", "xpos", "feats")


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_one(tb: str, system: str, epochs: int, models: Path, parser_tags: str = "mixed") -> dict:
    """Train (or reuse) the model of one treebank and measure it (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    from tsdsl.learn.parser import load_parser
    from tsdsl.learn.train import TrainOptions, train
    from tsdsl.treebank.conllu import read_conllu
    from tsdsl.treebank.evaluate import evaluate

    out = models / f"{tb}-{system}-{parser_tags}"
    train_s = None
    if not (out / "model.json").is_file():
        t0 = time.perf_counter()
        train(system, str(DATA / tb / "train.conllu"), str(DATA / tb / "dev.conllu"), str(out),
              TrainOptions(epochs=epochs, parser_tags=parser_tags), progress=sys.stderr)
        train_s = time.perf_counter() - t0
    parser = load_parser(out)
    if parser.tagger is None:
        raise SystemExit(f"{out}: the model has no tagger")
    meta = json.loads((out / "model.json").read_text(encoding="utf-8"))
    test = read_conllu(DATA / tb / "test.conllu", allow_multiple_roots=True)
    gold_parse, _ = parser.parse_sentences(test)
    sc_gold = evaluate(test, gold_parse)
    empty = [s.with_columns({c: ["_"] * s.n for c in TAGS}) for s in test]
    parser.parse_sentences(empty[:50])  # warm caches
    t0 = time.perf_counter()
    columns, _ = parser.tagger.tag([{"form": s.forms} for s in test])
    tag_s = time.perf_counter() - t0
    pred_parse, stats = parser.parse_sentences(empty)
    sc_pred = evaluate(test, pred_parse)
    acc: dict[str, float] = {}
    present = parser.tagger.columns
    for col in ("upos", "xpos", "feats", "lemma"):
        if col not in present:
            continue
        pairs = [(p, g) for s, ps in zip(test, pred_parse) for p, g in
                 zip(getattr(ps, "lemmas" if col == "lemma" else col), getattr(s, "lemmas" if col == "lemma" else col))]
        acc[col] = round(100 * sum(p == g for p, g in pairs) / len(pairs), 2)
    keys = [c for c in ("upos", "xpos", "feats") if c in present]
    all_tags = [all(getattr(ps, c)[i] == getattr(s, c)[i] for c in keys)
                for s, ps in zip(test, pred_parse) for i in range(s.n)]
    tmeta = meta.get("tagger") or {}
    return {
        "treebank": tb, "system": system, "parser_tags": meta.get("parser_tags"), "test_words": stats.words,
        "accuracy": acc, "alltags": round(100 * sum(all_tags) / len(all_tags), 2),
        "dev_accuracy": {k: round(100 * v, 2) for k, v in (tmeta.get("dev_accuracy") or {}).items() if v is not None},
        "uas_gold": round(100 * sc_gold.uas.score, 2), "las_gold": round(100 * sc_gold.las.score, 2),
        "uas_pred": round(100 * sc_pred.uas.score, 2), "las_pred": round(100 * sc_pred.las.score, 2),
        "tagger_train_seconds": tmeta.get("train_seconds"), "jackknife_seconds": tmeta.get("jackknife_seconds"),
        "model_train_seconds": round(train_s, 1) if train_s else None,
        "tag_words_per_second": round(stats.words / tag_s),
        "tagger_bytes": _size(out / "tagger"), "model_bytes": _size(out),
    }


def render(rows: list[dict], args) -> str:
    lines = ["# Tagging results", "",
             f"Produced by `{produced_by('tagging.py', args)}` (do not edit by hand). Tagger accuracy on the test set "
             "(every word; LEMMA compared as a string;",
             "AllTags: UPOS, XPOS and FEATS all right), and UAS/LAS of the same parser on the test set with "
             "the gold tag columns and with",
             "LEMMA, UPOS, XPOS and FEATS emptied so that the model's tagger predicts them "
             "(universal labels, punctuation counted).",
             f"Parser: {args.system}, at most {args.epochs} epochs, trained on the tags in column *parser tags*: "
             "mixed (the default: the files' tags, 30% of the sentences jackknifed), jackknife (every sentence's tags "
             "predicted by taggers trained on the other 3 of 4 folds) or gold. "
             f"Machine: {platform.machine()}, {os.cpu_count()} cores shared, Python {platform.python_version()}. "
             "Times (tagger training, jackknifing: 4 taggers on 3/4 of the training set each, tagging speed) were "
             "measured on a machine shared with other heavy jobs: read them as upper bounds.",
             "", "| treebank | parser tags | UPOS | XPOS | FEATS | LEMMA | AllTags | UAS gold tags | LAS gold tags | "
             "UAS predicted | LAS predicted | LAS drop | tagger train s | jackknife s | tag words/s | tagger MB | "
             "model MB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a = r["accuracy"]
        cell = lambda k: f"{a[k]:.2f}" if k in a else "-"  # noqa: E731
        lines.append(f"| {r['treebank']} | {r['parser_tags']} | {cell('upos')} | {cell('xpos')} | {cell('feats')} | "
                     f"{cell('lemma')} | "
                     f"{r['alltags']:.2f} | {r['uas_gold']:.2f} | **{r['las_gold']:.2f}** | {r['uas_pred']:.2f} | "
                     f"**{r['las_pred']:.2f}** | {r['las_gold'] - r['las_pred']:.2f} | "
                     f"{r['tagger_train_seconds']:.1f} | "
                     + (f"{r['jackknife_seconds']:.1f}" if r.get("jackknife_seconds") is not None else "-")
                     + f" | {r['tag_words_per_second']:,} | "
                     f"{r['tagger_bytes'] / 1e6:.1f} | {r['model_bytes'] / 1e6:.1f} |")
    if getattr(args, "note", None):
        lines += ["", args.note]
    return "\n".join(lines) + "\n"


def beside_udpipe(rows: list[dict], peers: list[dict]) -> str:
    """The side-by-side section: tsdsl's pipeline (every parser-tags variant measured) and
    UDPipe 1's (rows of ``bench/udpipe_peer.py --json``) on each treebank."""
    lines = ["## With predicted tags, beside UDPipe 1", "",
             "Written by `python bench/tagging.py --udpipe ... --write-docs` (do not edit by hand). Each test set with its gold "
             "words and sentences, LEMMA, UPOS, XPOS and FEATS emptied on input (UDPipe: HEAD, DEPREL and DEPS too), "
             "so that each pipeline tags and then parses; every output scored by tsdsl's scorer (LAS on universal "
             "labels, punctuation counted). tsdsl: arc-eager with its tagger, trained by `tsdsl train` with "
             "the parser-tags choice shown (mixed is the default); LAS with gold tags is the same model given the "
             "file's tags. UDPipe 1: `ufal.udpipe`, its tagger and Parsito parser, dev as heldout data, trained and "
             "run by `bench/udpipe_peer.py` in a bench environment (never a tsdsl dependency); its LAS with gold tags "
             "is its parser run on the test file's own tags (tagger off).", "",
             "| treebank | pipeline | UPOS | XPOS | FEATS | LEMMA | LAS gold tags | LAS predicted tags | drop | "
             "model MB |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for tb in dict.fromkeys([r["treebank"] for r in rows] + [p["treebank"] for p in peers]):
        for r in (r for r in rows if r["treebank"] == tb):
            a = r["accuracy"]
            cell = lambda k: f"{a[k]:.2f}" if k in a else "-"  # noqa: E731
            lines.append(f"| {tb} | tsdsl, parser tags {r['parser_tags']} | {cell('upos')} | {cell('xpos')} | "
                         f"{cell('feats')} | {cell('lemma')} | {r['las_gold']:.2f} | **{r['las_pred']:.2f}** | "
                         f"{r['las_gold'] - r['las_pred']:.2f} | {r['model_bytes'] / 1e6:.1f} |")
        for p in (p for p in peers if p["treebank"] == tb):
            opts = "" if p.get("tagger_options", "default") == "default" else f" (tagger {p['tagger_options']})"
            gold_tags = p.get("las_gold_tags")
            lines.append(f"| {tb} | UDPipe {p.get('udpipe', '1')}{opts} | {p['upos']:.2f} | {p['xpos']:.2f} | "
                         f"{p['feats']:.2f} | {p['lemma']:.2f} | "
                         + (f"{gold_tags:.2f} | **{p['las']:.2f}** | {gold_tags - p['las']:.2f}"
                            if gold_tags is not None else f"- | **{p['las']:.2f}** | -")
                         + f" | {p['model_mb']:.1f} |")
    lines += ["", "UDPipe's tagger ran with `iterations=6` where the table says so (its default is 20 with early "
              "stopping; run with the default on en_lines, its heldout accuracy peaked at iteration 8), to fit "
              "the session's time."]
    return "\n".join(lines) + "\n"


def write_out(rows: list[dict], args, *, last: bool = True) -> None:
    """``--out`` (the full table, and the UDPipe section when ``--udpipe`` is given), and the
    same section as a block of ``--results`` (docs/results.md with ``--write-docs``); the
    table is printed at the ``last`` call (the files are written after every row, so that a
    long run leaves what it measured)."""
    text = render(rows, args)
    peers = [p for f in (args.udpipe or []) for p in json.loads(Path(f).read_text(encoding="utf-8"))]
    if peers:
        section = beside_udpipe(rows, peers)
        text += "\n" + section
        if args.results:
            replace_block(Path(args.results), "predicted-tags", section)
    if args.out is not None:
        Path(args.out).write_text(text, encoding="utf-8")
    if last:
        print(text)
        for path in (args.out, args.results if peers else None):
            if path is not None:
                print(f"wrote {path}")


def rerender(paths: list[str], args) -> None:
    """Write the table from saved ``--json`` files (rows of several runs, in order)."""
    rows = [r for p in paths for r in json.loads(Path(p).read_text(encoding="utf-8"))]
    write_out(rows, args)


def main(argv=None) -> int:
    global DATA
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebanks", nargs="+", default=list(TREEBANKS), action=Given,
                    help=f"treebanks under --data (default: {' '.join(TREEBANKS)})")
    ap.add_argument("--system", default="arc-eager", help="the spec trained (default: %(default)s)")
    ap.add_argument("--epochs", type=int, default=15, help="epochs at most (default: %(default)s)")
    ap.add_argument("--parser-tags", nargs="+", default=["mixed"], choices=("mixed", "jackknife", "gold"),
                    help="the parser's training tags; several: one model each (default: mixed)")
    ap.add_argument("--models", default=str(Path(tempfile.gettempdir()) / "tsdsl-bench-tagging"),
                    help="where models are written, or reused if there (default: %(default)s)")
    add_output_options(ap, DOCS)
    ap.add_argument("--json", help="also write the rows as JSON, after every row (default: none)")
    ap.add_argument("--data", action=Given, metavar="DIR", help=f"the treebanks' directory (default: {DATA})")
    ap.add_argument("--merge", nargs="+", metavar="F.json",
                    help="train nothing: the table of these --json files (default: none)")
    ap.add_argument("--note", help="a paragraph written below the table (default: none)")
    ap.add_argument("--udpipe", nargs="+", metavar="F.json",
                    help="rows of bench/udpipe_peer.py --json: add the section beside UDPipe 1, also as a block of "
                         "--results (default: none)")
    ap.add_argument("--results", metavar="FILE",
                    help="where the section beside UDPipe 1 also goes, a block bench/learn.py keeps (default: "
                         "docs/results.md with --write-docs, else none)")
    args = ap.parse_args(argv)
    args.out = output_path(ap, args, DOCS)
    if args.results is None and args.write_docs:
        args.results = str(RESULTS)
    if args.merge:
        rerender(args.merge, args)
        return 0
    if args.data:
        DATA = Path(args.data)
    if not DATA.is_dir():
        return no_data(args, ["data", "treebanks"], f"no treebanks in {DATA}")
    absent = [tb for tb in args.treebanks if not (DATA / tb / "test.conllu").is_file()]
    if absent and given(args, "treebanks"):
        return no_data(args, ["treebanks"], f"{DATA} has no train/dev/test.conllu for {', '.join(absent)}")
    for tb in absent:
        print(f"{tb}: skipped, {DATA / tb} has no train/dev/test.conllu")
    rows = []
    for tb in args.treebanks:
        if tb in absent:
            continue
        for tags in args.parser_tags:
            row = run_one(tb, args.system, args.epochs, Path(args.models), tags)
            print(json.dumps(row), flush=True)
            rows.append(row)
            # written after every row, so that a long run leaves what it measured
            write_out(rows, args, last=False)
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    if not rows:
        print("skipped: none of the treebanks is present")
        return 0
    write_out(rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
