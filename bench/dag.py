"""Benchmark: the DAG system (``systems/dag.ts``) on a UD treebank's enhanced dependencies.

For one treebank with a DEPS column (default en_gum, under ``../shared/data/ud/NAME/``):
coverage of the train, dev and test enhanced graphs (empty nodes collapsed; the compiled graph
search), then ``tsdsl.learn.train`` with the defaults (the static oracle by search on graphs,
dev ELAS picks the best epoch; ``--epochs`` caps it), then the saved model parses dev and test
(timed: the whole ``parse_sentences`` call) and ``tsdsl.treebank.enhanced.score_graphs``
scores them: ELAS and EULAS as the IWPT 2021 script computes them, with the files' gold tags
and with the tags the model's tagger predicts (LEMMA, UPOS, XPOS and FEATS emptied on input,
as text comes).  Prints the table; ``--out FILE`` writes it to FILE, ``--write-docs`` to
``docs/results-dag.md`` (and ``--json`` the figures).

bench/learn.py's table is about trees (LAS, the tree targets), so the DAG system has its own.

Skips with a message (exit 0) when the default treebank is absent; a ``--treebank`` or
``--data`` that is not there is an error (exit 2).

    python bench/dag.py [--treebank en_gum] [--data DIR] [--epochs 10] [--hash-bits 20] [--workdir DIR]
                        [--out FILE | --write-docs]
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

from benchargs import Given, add_output_options, no_data, output_path, produced_by

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ud"
DOCS = ROOT / "docs" / "results-dag.md"  # where --write-docs puts the table
SPEC = "systems/dag.ts"
PARSER_TAGS_TEXT = {"mixed": "the file's tags, 30% of the sentences with jackknifed tags",
                    "jackknife": "jackknifed tags on every sentence", "gold": "the file's tags"}


def run(tb: str, epochs: int, hash_bits: int, workdir: Path, data: Path = DATA) -> dict:
    sys.path.insert(0, str(ROOT))
    from tsdsl.kernels import compile_system
    from tsdsl.kernels.graphs import graph_coverage
    from tsdsl.lang import load_system
    from tsdsl.learn.parser import load_parser
    from tsdsl.learn.train import TrainOptions, train
    from tsdsl.treebank.conllu import read_conllu, sentence_text
    from tsdsl.treebank.enhanced import score_graphs

    system = load_system(ROOT / SPEC)
    kernel = compile_system(system, fallback=False)
    files = {part: data / tb / f"{part}.conllu" for part in ("train", "dev", "test")}
    sents = {part: read_conllu(f, allow_multiple_roots=True) for part, f in files.items()}
    coverage = {part: graph_coverage(kernel, s, file=str(files[part])).to_dict() for part, s in sents.items()}
    out = workdir / f"{tb}-dag"
    t0, c0 = time.perf_counter(), time.process_time()
    res = train(str(ROOT / SPEC), str(files["train"]), str(files["dev"]), str(out),
                TrainOptions(epochs=epochs, hash_bits=hash_bits), progress=sys.stderr)
    train_s, train_cpu = time.perf_counter() - t0, time.process_time() - c0
    parser = load_parser(out)
    sys.path.insert(0, str(ROOT / "tests"))
    from ud_enhanced import problems

    scores, predicted, invalid = {}, {}, {}
    for part in ("dev", "test"):
        parser.parse_sentences(sents[part][:50])   # warm caches
        t0, c0 = time.perf_counter(), time.process_time()
        parsed, stats = parser.parse_sentences(sents[part])
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        sc = score_graphs(sents[part], parsed).to_dict()
        sc["words_per_second"] = round(stats.words / seconds)
        sc["words_per_cpu_second"] = round(stats.words / cpu)
        scores[part] = sc
        untagged = [s.with_columns({c: ("_",) * s.n for c in ("lemma", "upos", "xpos", "feats")}) for s in sents[part]]
        tagged, _ = parser.parse_sentences(untagged)
        predicted[part] = score_graphs(sents[part], tagged).to_dict()
        invalid[part] = len(problems("".join(sentence_text(parsed)))) + len(problems("".join(sentence_text(tagged))))
    meta = json.loads((out / "model.json").read_text())
    return {"treebank": tb, "epochs": epochs, "best_epoch": res.best_epoch, "train_seconds": round(train_s, 1),
            "train_cpu_seconds": round(train_cpu, 1), "load_average": os.getloadavg()[0],
            "hash_bits": hash_bits, "labels": len(meta["outputs"]), "train_graphs_used": res.sentences,
            "train_graphs_skipped": res.not_derived, "coverage": coverage, "scores": scores,
            "predicted_tags": predicted, "parser_tags": meta.get("parser_tags"), "invalid": invalid,
            "history": [{k: v for k, v in h.items() if k in ("epoch", "dev_elas", "dev_eulas", "train_seconds")}
                        for h in meta["history"]]}


def render(r: dict, produced: str = "python bench/dag.py --write-docs") -> str:
    def pct(x: float) -> str:
        return f"{100 * x:.2f}"

    lines = ["# The DAG system on enhanced dependencies", "",
             f"Produced by `{produced}` (do not edit by hand): `systems/dag.ts` (Sagae & Tsujii 2008 as "
             "control parameters, root on the right) trained with `tsdsl train` defaults on the DEPS column of "
             f"{r['treebank']} (the parser trained with `--parser-tags {r['parser_tags']}`: "
             + PARSER_TAGS_TEXT.get(r["parser_tags"], "") + "; its tagger trained on the same file), "
             f"at most {r['epochs']} epochs, hash table 2^{r['hash_bits']} rows; dev ELAS "
             "(the dev set tagged by the model's tagger unless the parser tags are gold) picks the best epoch. "
             "Scores with the gold tags of the dev and test files, and with the tags the model's tagger predicts "
             "(LEMMA, UPOS, XPOS and FEATS emptied on input). Violations of UD's level-2 enhanced checks and of one "
             "`0:root` per sentence in the output (`tests/ud_enhanced.py`; docs/learning.md, Multihead systems, "
             "Output): " + ", ".join(f"{part} {n}" for part, n in r["invalid"].items()) + ".",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}.",
             "", "## Coverage of the enhanced graphs (empty nodes collapsed)", "",
             "| file | graphs | derivable | cycle | crossing arcs | repeated arc | no derivation | undecided | s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for part, c in r["coverage"].items():
        o = c["obstacles"]
        lines.append(f"| {part} | {c['graphs']} | {c['derivable']} ({100 * c['derivable'] / c['graphs']:.2f}%) | "
                     f"{o.get('cycle', 0)} | {o.get('crossing arcs', 0)} | {o.get('repeated arc', 0)} | "
                     f"{c['not_derivable']} | {c['over_budget']} | {c['seconds']:.1f} |")
    lines += ["", "## Scores (IWPT 2021 ELAS and EULAS, every sentence, derivable or not)", "",
              "| file | tags | ELAS | P | R | EULAS | gold arcs | predicted arcs | parse words/s (wall) | words/CPU s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for part, s in r["scores"].items():
        for tags, sc in (("gold", s), ("predicted", r["predicted_tags"][part])):
            e, u = sc["elas"], sc["eulas"]
            speed = (f"{s['words_per_second']:,} | {s['words_per_cpu_second']:,}" if tags == "gold" else " | ")
            lines.append(f"| {part} | {tags} | **{pct(e['f1'])}** | {pct(e['precision'])} | {pct(e['recall'])} | "
                         f"{pct(u['f1'])} | {sc['gold_arcs']} | {sc['predicted_arcs']} | {speed} |")
    lines += ["", f"Training: {r['train_seconds']:.0f} s wall ({r['train_cpu_seconds']:.0f} s CPU; load average "
              f"{r['load_average']:.1f} on the shared machine at the end), best epoch {r['best_epoch']} of {len(r['history'])}, "
              f"{r['train_graphs_used']} training graphs derived and used, {r['train_graphs_skipped']} skipped; "
              f"{r['labels']} classifier outputs.", "",
              "Dev ELAS per epoch (as training scored it: "
              + ("the file's gold tags" if r["parser_tags"] == "gold" else "tags predicted by the model's tagger")
              + "): " + ", ".join(f"{h['epoch']}: {pct(h['dev_elas'])}" for h in r["history"]) + "."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", default="en_gum", action=Given,
                    help="the treebank, with a DEPS column (default: %(default)s)")
    ap.add_argument("--data", type=Path, default=DATA, action=Given, metavar="DIR",
                    help="treebanks directory (default: %(default)s)")
    ap.add_argument("--epochs", type=int, default=10, help="epochs at most (default: %(default)s)")
    ap.add_argument("--hash-bits", type=int, default=20, help="feature hash table of 2^N rows (default: %(default)s)")
    ap.add_argument("--workdir", type=Path, help="where the model goes (default: a temporary directory)")
    add_output_options(ap, DOCS)
    ap.add_argument("--json", type=Path, help="also write the figures as JSON (default: none)")
    args = ap.parse_args(argv)
    out = output_path(ap, args, DOCS)
    if not (args.data / args.treebank / "train.conllu").is_file():
        return no_data(args, ["treebank", "data"], f"no treebank data under {args.data / args.treebank} "
                       "(needs {train,dev,test}.conllu with a DEPS column)")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tsdsl-bench-dag-"))
    row = run(args.treebank, args.epochs, args.hash_bits, workdir, args.data)
    text = render(row, produced_by("dag.py", args))
    print(text)
    if out is not None:
        out.write_text(text, encoding="utf-8")
        print(f"table written to {out}")
    if args.json:
        args.json.write_text(json.dumps(row, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
