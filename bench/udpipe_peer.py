"""Peer measurement: UDPipe 1's tagger and parser on the shared treebanks, gold tokenisation.

The yardstick for tsdsl's own tagger + parser pipeline (issue 12). For each treebank present
under ``../shared/data/ud/NAME/`` it trains a UDPipe 1 model (``ufal.udpipe``: no tokenizer,
the default tagger and the default Parsito parser, dev as heldout data), then runs the model on
the test file with its tag columns emptied (gold words and sentences, nothing else) and
scores the output with tsdsl's own scorer: UPOS, XPOS, FEATS and lemma accuracy, and UAS/LAS
as CoNLL 2018 (universal labels, punctuation counted). It also reports the model's size and
training time.

UDPipe is a measuring instrument only, never a dependency of tsdsl: run this in a bench
virtual environment that has both packages, for example

    python -m venv /tmp/bench && /tmp/bench/bin/pip install ufal.udpipe -e .
    /tmp/bench/bin/python bench/udpipe_peer.py --out docs/results-udpipe.md

Skips with a message (exit 0) when ``ufal.udpipe`` or the shared data is absent; a treebank
named with ``--treebanks`` that is not there is an error (exit 2). Models are kept in
``--models DIR`` (default: a temporary directory) and reused when present.
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

from benchargs import Given, given, no_data

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
TREEBANKS = ("en_lines", "el_gdt", "en_gum")
TAG_COLUMNS = (2, 3, 4, 5)          # LEMMA, UPOS, XPOS, FEATS (0-based CoNLL-U columns)


def emptied(text: str, tags: bool = True) -> str:
    """``text`` with LEMMA, UPOS, XPOS, FEATS (unless not ``tags``), HEAD, DEPREL and DEPS
    replaced by ``_``."""
    out = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            cols = line.split("\t")
            if len(cols) == 10:
                for i in ((*TAG_COLUMNS, 6, 7, 8) if tags else (6, 7, 8)):
                    cols[i] = "_"
                line = "\t".join(cols)
        out.append(line)
    return "\n".join(out) + "\n"


def read_sentences(text: str, input_format):
    """Every sentence of a CoNLL-U text as UDPipe objects."""
    from ufal.udpipe import ProcessingError, Sentence

    input_format.setText(text)
    sentences, error = [], ProcessingError()
    while True:
        s = Sentence()
        if not input_format.nextSentence(s, error):
            break
        sentences.append(s)
    if error.occurred():
        raise SystemExit(f"UDPipe could not read the input: {error.message}")
    return sentences


def train(name: str, model_path: Path, tagger: str, parser: str) -> float:
    """Train a UDPipe 1 model on NAME's train set (dev as heldout); return the seconds."""
    from ufal.udpipe import InputFormat, ProcessingError, Sentences, Trainer

    def sentences(split: str) -> Sentences:
        fmt = InputFormat.newConlluInputFormat()
        result = Sentences()
        for s in read_sentences((DATA / name / f"{split}.conllu").read_text(encoding="utf-8"), fmt):
            result.push_back(s)
        return result

    error = ProcessingError()
    start = time.perf_counter()
    blob = Trainer.train("morphodita_parsito", sentences("train"), sentences("dev"),
                         "none", tagger or Trainer.DEFAULT, parser or Trainer.DEFAULT, error)
    seconds = time.perf_counter() - start
    if error.occurred():
        raise SystemExit(f"UDPipe training failed on {name}: {error.message}")
    model_path.write_bytes(blob if isinstance(blob, bytes) else blob.encode("latin-1"))
    return seconds


def run(model_path: Path, text: str, tag: bool = True) -> tuple[str, float]:
    """Tag and parse ``text`` (CoNLL-U, gold words) with the model; return output and seconds.
    ``tag=False``: parse only, with the tags ``text`` has."""
    from ufal.udpipe import Model, Pipeline, ProcessingError

    model = Model.load(str(model_path))
    if model is None:
        raise SystemExit(f"UDPipe could not load {model_path}")
    pipeline = Pipeline(model, "conllu", Pipeline.DEFAULT if tag else Pipeline.NONE, Pipeline.DEFAULT, "conllu")
    error = ProcessingError()
    start = time.perf_counter()
    out = pipeline.process(text, error)
    seconds = time.perf_counter() - start
    if error.occurred():
        raise SystemExit(f"UDPipe failed: {error.message}")
    return out, seconds


def tag_accuracy(gold, pred) -> dict[str, float]:
    """Share of words whose UPOS, XPOS, FEATS and LEMMA equal gold (every word counted)."""
    counts = dict.fromkeys(("upos", "xpos", "feats", "lemma"), 0)
    words = 0
    for g, p in zip(gold, pred):
        for attr in counts:
            counts[attr] += sum(a == b for a, b in zip(getattr(g, attr + ("s" if attr == "lemma" else "")),
                                                     getattr(p, attr + ("s" if attr == "lemma" else ""))))
        words += len(g)
    return {k: 100.0 * v / words for k, v in counts.items()}


def _version() -> tuple[int, int, int]:
    from ufal.udpipe import Version

    v = Version.current()
    return v.major, v.minor, v.patch


def measure(name: str, models: Path, tagger: str = "", parser: str = "") -> dict:
    from tsdsl.treebank.conllu import parse_conllu, read_conllu
    from tsdsl.treebank.evaluate import evaluate

    model_path = models / f"{name}.udpipe"
    train_s = None
    if not model_path.exists():
        print(f"{name}: training UDPipe 1 (tagger + parser) ...", flush=True)
        train_s = train(name, model_path, tagger, parser)
    test = DATA / name / "test.conllu"
    out, parse_s = run(model_path, emptied(test.read_text(encoding="utf-8")))
    gold = read_conllu(test)
    pred = parse_conllu(out, file=f"{name} UDPipe output")
    scores = evaluate(gold, pred)
    words = sum(len(s) for s in gold)
    # the same parser given the gold tags (HEAD, DEPREL, DEPS emptied only): its LAS drop
    gold_tags, _ = run(model_path, emptied(test.read_text(encoding="utf-8"), tags=False), tag=False)
    las_gold_tags = 100 * evaluate(gold, parse_conllu(gold_tags, file=f"{name} UDPipe output")).las.score
    row = {"treebank": name, "tagger_options": tagger or "default", "parser_options": parser or "default",
           "udpipe": ".".join(map(str, _version())), "train_s": train_s, "model_mb": model_path.stat().st_size / 1e6,
           "words_per_s": words / parse_s, "uas": 100 * scores.uas.score,
           "las": 100 * scores.las.score, "las_gold_tags": las_gold_tags, **tag_accuracy(gold, pred)}
    print(json.dumps(row), flush=True)
    return row


def table(rows: list[dict]) -> str:
    head = ("| treebank | UPOS | XPOS | FEATS | LEMMA | UAS | LAS | model MB | train s | words/s |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n")
    body = ""
    for r in rows:
        trained = "-" if r["train_s"] is None else f"{r['train_s']:.0f}"
        body += (f"| {r['treebank']} | {r['upos']:.2f} | {r['xpos']:.2f} | {r['feats']:.2f} "
                 f"| {r['lemma']:.2f} | {r['uas']:.2f} | {r['las']:.2f} | {r['model_mb']:.1f} "
                 f"| {trained} | {r['words_per_s']:,.0f} |\n")
    return head + body


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--treebanks", nargs="+", default=list(TREEBANKS), action=Given,
                    help=f"treebanks under ../shared/data/ud (default: {' '.join(TREEBANKS)})")
    ap.add_argument("--models", type=Path, default=None, help="keep and reuse the UDPipe models here (default: a temporary directory)")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown table here (default: print it)")
    ap.add_argument("--json", type=Path, default=None,
                    help="also write the rows as JSON (bench/tagging.py --udpipe puts them beside tsdsl's; default: none)")
    ap.add_argument("--tagger-options", default="", help="UDPipe tagger training options, e.g. 'iterations=6' (default: UDPipe's own)")
    ap.add_argument("--parser-options", default="", help="UDPipe parser training options (default: UDPipe's own)")
    args = ap.parse_args(argv)
    absent = [name for name in args.treebanks if not (DATA / name / "train.conllu").exists()]
    if not DATA.is_dir() or (absent and given(args, "treebanks")):
        return no_data(args, ["treebanks"], f"no shared treebanks at {DATA}" if not DATA.is_dir()
                       else f"no treebank data under {DATA} for {', '.join(absent)}")
    try:
        import ufal.udpipe  # noqa: F401
    except ImportError:
        print("skipped: ufal.udpipe is not installed in this environment (pip install ufal.udpipe)")
        return 0
    models = args.models or Path(tempfile.mkdtemp(prefix="udpipe-"))
    models.mkdir(parents=True, exist_ok=True)
    rows = [measure(name, models, args.tagger_options, args.parser_options) for name in args.treebanks if (DATA / name / "train.conllu").exists()]
    text = (f"UDPipe 1 (`ufal.udpipe` {ufal.udpipe.Version.current().major}."
            f"{ufal.udpipe.Version.current().minor}.{ufal.udpipe.Version.current().patch}); tagger "
            f"options: {args.tagger_options or 'default'}; parser options: {args.parser_options or 'default'}; "
            f"gold tokenisation, tag columns emptied on input; scored by tsdsl. "
            f"Machine: {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores.\n\n"
            + table(rows))
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
