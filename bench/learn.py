"""Benchmark: train, parse and score real parsers for the seed systems on UD treebanks.

For each treebank (train/dev/test CoNLL-U under ``../shared/data/ud/NAME/``) and each
system, in a fresh process: ``tsdsl.learn.train`` (gold UPOS, FEATS and lemmas from the
files; dev LAS picks the best epoch), then the saved model is loaded and the test file
parsed (timed without the model loading: the whole ``Parser.parse_sentences`` call, token
tables and tree repair included, and separately the kernel search alone), then scored with
``tsdsl.treebank.evaluate`` (UAS and LAS with punctuation; LAS on universal labels as in CoNLL 2018).

Results go to one table, printed (``--out FILE`` writes it to FILE, ``--write-docs`` into
``docs/results.md``; ``--json`` the rows), with the issue's targets:
best LAS per treebank (en_lines >= 83.7, el_gdt >= 84.7, en_gum >= 84.2), greedy
non-monotonic arc-eager (Honnibal & Johnson 2015) >= plain arc-eager on average, greedy
parsing >= 30,000 words/s, greedy training of one model on en_gum (15 epochs) <= 5 minutes.

Skips with a message (exit 0) when ``../shared/data/ud`` (or ``$TSDSL_UD_DATA``) is absent;
treebanks named with ``--treebanks`` that are not there are an error (exit 2).

    python bench/learn.py [--treebanks en_lines el_gdt en_gum] [--systems arc-eager ...]
                          [--epochs 15] [--jobs 2] [--beam-systems arc-eager] [--beam-width 8]
                          [--out FILE | --write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchargs import Given, add_output_options, no_data, output_path, produced_by
from docblocks import blocks_of

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("TSDSL_UD_DATA") or ROOT.parent / "shared" / "data" / "ud")  # a worktree: set TSDSL_UD_DATA
TREEBANKS = ("en_lines", "el_gdt", "en_gum")
DOCS = ROOT / "docs" / "results.md"  # where --write-docs puts the table
TARGET_LAS = {"en_lines": 83.7, "el_gdt": 84.7, "en_gum": 84.2}

# name -> (spec, overrides, training options beyond the defaults, description)
SYSTEMS = {
    "arc-eager": ("systems/arc-eager.ts", {}, {}, "arc-eager (Nivre 2003), Goldberg & Nivre 2012 oracle"),
    "arc-hybrid": ("systems/arc-hybrid.ts", {}, {}, "arc-hybrid as control parameters (Bohnet et al. 2016)"),
    "tree-constrained": ("systems/readings/arc-eager-tree-constrained-root.ts", {}, {},
                         "tree-constrained arc-eager (Nivre & Fernández-González 2014), dummy root as in "
                         "their experiments"),
    "hj-unshift": ("systems/readings/arc-eager-unshift-shift-empty.ts", {}, {},
                   "non-monotonic arc-eager with Unshift (Honnibal & Johnson 2015), SHIFT allowed on an empty "
                   "stack, training oracle of section 2.2 (the default loss)"),
    "easy-first-k3": ("systems/easy-first-bounded.ts", {"K": 3}, {},
                      "bounded easy-first K=3 (Bohnet et al. 2016), static oracle (its loss is a lower bound)"),
    "easy-first-k4": ("systems/easy-first-bounded.ts", {"K": 4}, {},
                      "bounded easy-first K=4 (Bohnet et al. 2016), static oracle (its loss is a lower bound)"),
    "easy-first-k2": ("systems/easy-first-bounded.ts", {"K": 2}, {},
                      "bounded easy-first K=2 (arc-standard; Bohnet et al. 2016), static oracle"),
    "easy-first": ("systems/easy-first.ts", {}, {},
                   "easy-first K = inf (Goldberg & Elhadad 2010 as control parameters), every family instance "
                   "scored from its tokens (easy-first-2010.yaml), its declared exact oracle, dynamic"),
    "easy-first-search": ("systems/easy-first.ts", {}, {"oracle": "search"},
                          "easy-first K = inf as above, trained along the static oracle by search (one fixed "
                          "order) instead of its declared oracle"),
    "easy-first-nonproj-d2-search": ("systems/easy-first-nonproj.ts", {"D": 2}, {"oracle": "search"},
                                     "non-projective easy-first D=2, static oracle by search"),
    "easy-first-nonproj-d2": ("systems/easy-first-nonproj.ts", {"D": 2}, {},
                              "non-projective easy-first D=2 (Bohnet et al. 2016), as easy-first, with "
                              "easy-first-nonproj.yaml (the default for D > 1)"),
    "easy-first-nonproj-d3": ("systems/easy-first-nonproj.ts", {"D": 3}, {},
                              "non-projective easy-first D=3 (Bohnet et al. 2016), as easy-first, with "
                              "easy-first-nonproj.yaml (the default for D > 1)"),
    "easy-first-nonproj-d4": ("systems/easy-first-nonproj.ts", {"D": 4}, {},
                              "non-projective easy-first D=4 (Bohnet et al. 2016), as easy-first, with "
                              "easy-first-nonproj.yaml (the default for D > 1)"),
    "covington": ("systems/covington.ts", {}, {}, "Covington non-projective (monotonic)"),
    "covington-nm": ("systems/covington-nm.ts", {}, {},
                     "non-monotonic Covington (Fernández-González & Gómez-Rodríguez 2017), loss U + nc (`upper`, "
                     "the default)"),
    "covington-skip-detours": ("systems/covington.ts", {}, {"skip_detours": True},
                               "Covington (monotonic) trained with --skip-detours"),
    "covington-nm-skip-detours": ("systems/covington-nm.ts", {}, {"skip_detours": True},
                                  "non-monotonic Covington trained with --skip-detours"),
    # trained with the defaults (no --loss, no reading): the oracle `tsdsl train` chooses
    "arc-standard": ("systems/arc-standard.ts", {}, {}, "arc-standard as control parameters, its declared "
                     "lower-bound oracle (static)"),
    "arc-standard-swap": ("systems/arc-standard-swap.ts", {}, {}, "arc-standard + SWAP (Nivre 2009), no oracle "
                          "block: the static oracle by search, non-projective trees natively"),
    "arc-eager-cp": ("systems/arc-eager-cp.ts", {}, {}, "arc-eager as control parameters (Bohnet et al. 2016), "
                     "no oracle block: its derived oracle (exact)"),
    "attardi": ("systems/attardi.ts", {}, {}, "Attardi N = 2 as control parameters, no oracle block: the static "
                "oracle by search, non-projective trees natively"),
    "attardi-1": ("systems/attardi-1.ts", {}, {}, "Attardi N = 1 as control parameters, no oracle block: search"),
    "attardi-3": ("systems/attardi-3.ts", {}, {}, "Attardi N = 3 as control parameters, no oracle block: search"),
    "arc-standard-slp": ("systems/arc-standard-slp.ts", {}, {}, "arc-standard as rewrite rules (SLP3 Fig. 18.7), "
                         "no oracle block: search"),
    "arc-eager-slp": ("systems/arc-eager-slp.ts", {}, {}, "arc-eager as rewrite rules (SLP3 Fig. 18.9), no "
                      "oracle block: search"),
    "arc-eager-root-heuristic": ("systems/arc-eager-root-heuristic.ts", {}, {},
                                 "arc-eager with the root heuristic (Nivre & Fernández-González 2014 section 2), "
                                 "as shipped, trained with the defaults"),
    "tree-constrained-spec": ("systems/arc-eager-tree-constrained.ts", {}, {},
                              "tree-constrained arc-eager as shipped (no dummy root), trained with the defaults"),
    "unshift-spec": ("systems/arc-eager-unshift.ts", {}, {},
                     "Honnibal & Johnson 2015 Table 1 as shipped, trained with the defaults: its verified guard "
                     "repair, its second oracle (section 2.2's training oracle, an upper bound)"),
    # the oracle by search with the model's order (--search-follow model), docs/learning.md
    "easy-first-k2-learned": ("systems/easy-first-bounded.ts", {"K": 2}, {"oracle": "search", "search_follow": "model"},
                              "bounded easy-first K=2, the search as a non-deterministic oracle (learned order)"),
    "easy-first-k3-learned": ("systems/easy-first-bounded.ts", {"K": 3}, {"oracle": "search", "search_follow": "model"},
                              "bounded easy-first K=3, learned order"),
    "easy-first-k4-learned": ("systems/easy-first-bounded.ts", {"K": 4}, {"oracle": "search", "search_follow": "model"},
                              "bounded easy-first K=4, learned order"),
    "attardi-learned": ("systems/attardi.ts", {}, {"search_follow": "model"}, "Attardi N = 2, learned order"),
    "arc-standard-swap-learned": ("systems/arc-standard-swap.ts", {}, {"search_follow": "model"},
                                  "arc-standard + SWAP, learned order"),
    "arc-eager-slp-learned": ("systems/arc-eager-slp.ts", {}, {"search_follow": "model"},
                              "arc-eager as SLP3 rewrite rules, learned order"),
    "tree-constrained-spec-learned": ("systems/arc-eager-tree-constrained.ts", {}, {"search_follow": "model"},
                                      "tree-constrained arc-eager as shipped, learned order"),
    "nm-2013": ("systems/arc-eager-nm-2013.ts", {}, {}, "non-monotonic arc-eager (Honnibal, Goldberg & Johnson "
                "2013), its declared oracle; unlabeled REDUCE arcs labeled by the noted-label rule"),
}


def run_one(tb: str, name: str, epochs: int, beam: int, workdir: Path, hash_bits: int) -> dict:
    """Train, parse and score one (treebank, system) pair in this process."""
    sys.path.insert(0, str(ROOT))
    from tsdsl.treebank.conllu import read_conllu, write_conllu
    from tsdsl.treebank.evaluate import evaluate
    from tsdsl.learn.parser import load_parser
    from tsdsl.learn.train import TrainOptions, train

    spec, overrides, extra, _ = SYSTEMS[name]
    out = workdir / f"{tb}-{name}-b{beam}"
    # this table measures parsers on gold tags: no tagger, the parser trains on the files' tags
    # (docs/results-tagging.md has the pipeline with predicted tags)
    opts = TrainOptions(epochs=epochs, beam=beam, overrides=dict(overrides), hash_bits=hash_bits, tagger=False,
                        parser_tags="gold", **extra)
    t0 = time.perf_counter()
    res = train(str(ROOT / spec), str(DATA / tb / "train.conllu"), str(DATA / tb / "dev.conllu"), str(out), opts,
                progress=None)
    train_s = time.perf_counter() - t0
    parser = load_parser(out)
    test = read_conllu(DATA / tb / "test.conllu")
    parser.parse_sentences(test[:50])  # warm caches
    t0 = time.perf_counter()
    parsed, stats = parser.parse_sentences(test)
    parse_s = time.perf_counter() - t0
    from tsdsl.learn.data import columns_of, make_batch
    batch = make_batch([columns_of(s) for s in test], parser.model.features.token_attrs)
    t0 = time.perf_counter()
    parser.engine.parse(batch, beam=parser.beam)
    kernel_s = time.perf_counter() - t0
    pred_path = out / "test.pred.conllu"
    write_conllu(pred_path, parsed)
    sc = evaluate(test, parsed)
    meta = json.loads((out / "model.json").read_text())
    return {
        "treebank": tb, "system": name, "beam": beam, "epochs": epochs, "best_epoch": res.best_epoch,
        "train_seconds": round(train_s, 1), "parse_words_per_second": round(stats.words / parse_s),
        "kernel_words_per_second": round(stats.words / kernel_s), "test_words": stats.words,
        "uas": round(100 * sc.uas.score, 2), "las": round(100 * sc.las.score, 2),
        "las_full": round(100 * sc.las_full.score, 2), "dev_las": round(100 * (meta.get("dev_las") or 0), 2),
        "crossing_recall": round(100 * (sc.crossing.score or 0), 2), "crossing_arcs": sc.crossing.total,
        "repaired_words": stats.repaired_words, "stuck": stats.stuck, "outputs": len(meta["outputs"]),
        "lifted_arcs": meta.get("lifted_arcs"), "oracle": meta.get("oracle"),
        "not_derived": (meta.get("search") or {}).get("over_budget", 0) + (meta.get("search") or {}).get("not_derivable", 0),
    }


def measure_speed(row: dict, workdir: Path, repeats: int = 3) -> dict:
    """Parse speed of an already trained model (best of ``repeats``), in this process alone."""
    sys.path.insert(0, str(ROOT))
    from tsdsl.treebank.conllu import read_conllu
    from tsdsl.learn.data import columns_of, make_batch
    from tsdsl.learn.parser import load_parser

    parser = load_parser(workdir / f"{row['treebank']}-{row['system']}-b{row['beam']}")
    test = read_conllu(DATA / row["treebank"] / "test.conllu")
    parser.parse_sentences(test[:50])
    best_all = best_kernel = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        _, stats = parser.parse_sentences(test)
        best_all = min(best_all, time.perf_counter() - t0)
        batch = make_batch([columns_of(s) for s in test], parser.model.features.token_attrs)
        t0 = time.perf_counter()
        parser.engine.parse(batch, beam=parser.beam)
        best_kernel = min(best_kernel, time.perf_counter() - t0)
    row = dict(row)
    row["parse_words_per_second"] = round(stats.words / best_all)
    row["kernel_words_per_second"] = round(stats.words / best_kernel)
    row["speed_alone"] = True
    return row


def run_child(tb, name, epochs, beam, workdir, hash_bits) -> dict:
    cmd = [sys.executable, __file__, "--one", tb, name, "--epochs", str(epochs), "--beam", str(beam),
           "--workdir", str(workdir), "--hash-bits", str(hash_bits)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"treebank": tb, "system": name, "beam": beam, "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# (question, [(label, system), ...]) compared per treebank, with the papers' findings they echo
FINDINGS = (
    ("Bohnet et al. 2016, bounded capacity: K = 3 and 4 against K = 2 (arc-standard) and K = inf",
     [("K=2", "easy-first-k2"), ("K=3", "easy-first-k3"), ("K=4", "easy-first-k4"), ("K=inf", "easy-first")]),
    ("Bohnet et al. 2016, non-projective easy-first: D against crossing arcs recovered",
     [("D=2", "easy-first-nonproj-d2"), ("D=3", "easy-first-nonproj-d3"), ("D=4", "easy-first-nonproj-d4")]),
    ("Fernandez-Gonzalez & Gomez-Rodriguez 2017 Table 3: non-monotonic against monotonic Covington",
     [("monotonic", "covington"), ("non-monotonic", "covington-nm")]),
    ("Honnibal & Johnson 2015 / Honnibal et al. 2013: non-monotonic arc-eager against arc-eager",
     [("arc-eager", "arc-eager"), ("H&J 2015", "hj-unshift"), ("nm-2013", "nm-2013")]),
    ("Attardi with N = 1, 2, 3 (Bohnet et al. 2016's Attardi family)",
     [("N=1", "attardi-1"), ("N=2", "attardi"), ("N=3", "attardi-3")]),
)


def option_flags(name: str) -> str:
    """The training options beyond the defaults that system ``name`` trains with here, as
    `tsdsl train` flags ("" for none)."""
    return " ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in SYSTEMS[name][2].items())


#: the systems of docs/results.md's table: every entry but the training variants
TABLE_SYSTEMS = [name for name in SYSTEMS if not name.endswith(("-search", "-learned", "-skip-detours"))]

# family -> its systems: issue 11 asks every system to stay within 1 LAS of the best of its family
# (arc-hybrid is arc-standard with three active tokens in Bohnet et al. 2016, section 4.4)
FAMILIES = (
    ("arc-eager", ["arc-eager", "arc-eager-slp", "arc-eager-root-heuristic", "arc-eager-cp", "tree-constrained",
                   "tree-constrained-spec", "hj-unshift", "unshift-spec", "nm-2013"]),
    ("arc-standard", ["arc-standard", "arc-standard-slp", "easy-first-k2", "arc-standard-swap", "arc-hybrid"]),
    ("easy-first", ["easy-first-k2", "easy-first-k3", "easy-first-k4", "easy-first", "easy-first-nonproj-d2",
                    "easy-first-nonproj-d3", "easy-first-nonproj-d4"]),
    ("Attardi", ["attardi-1", "attardi", "attardi-3"]),
    ("Covington", ["covington", "covington-nm"]),
)
FAMILY_GAP = 1.0


def families(ok: list[dict]) -> list[str]:
    """Per family and treebank, each greedy system's test LAS against the family's best, with
    the systems more than :data:`FAMILY_GAP` below it named."""
    greedy = {(r["treebank"], r["system"]): r for r in ok if r["beam"] == 1}
    tbs = list(dict.fromkeys(tb for tb, _ in greedy))
    out = ["", "## Each system against the best of its family", "",
           f"Test LAS minus the family's best on the same treebank (greedy; more than {FAMILY_GAP:g} below in "
           "bold).", "", "| family | system | " + " | ".join(tbs) + " |", "|---|---|" + "---|" * len(tbs)]
    far = []
    for family, members in FAMILIES:
        best = {tb: max((greedy[tb, m]["las"] for m in members if (tb, m) in greedy), default=None) for tb in tbs}
        for m in members:
            cells = []
            for tb in tbs:
                r = greedy.get((tb, m))
                if r is None or best[tb] is None:
                    cells.append("")
                    continue
                gap = r["las"] - best[tb]
                cells.append(f"**{gap:+.2f}**" if gap < -FAMILY_GAP else f"{gap:+.2f}")
                if gap < -FAMILY_GAP:
                    far.append(f"{m} on {tb} ({gap:+.2f})")
            if any(cells):
                out.append(f"| {family} | {m} | " + " | ".join(cells) + " |")
    out += ["", (f"More than {FAMILY_GAP:g} LAS below the best of the family: " + ", ".join(far) + ".") if far
            else f"Every system is within {FAMILY_GAP:g} LAS of the best of its family."]
    return out


def findings(ok: list[dict]) -> list[str]:
    """Per treebank, the test LAS (and crossing-arc recall) of the systems each finding
    compares, greedy models only; nothing for a finding none of whose systems ran."""
    out: list[str] = []
    greedy = {(r["treebank"], r["system"]): r for r in ok if r["beam"] == 1}
    for question, members in FINDINGS:
        rows = []
        for tb in dict.fromkeys(tb for tb, _ in greedy):
            cells = [(label, greedy.get((tb, name))) for label, name in members]
            if sum(r is not None for _, r in cells) < 2:
                continue
            rows.append(f"- {tb}: " + "; ".join(
                f"{label} {r['las']:.2f}" + (f" (crossing {r['crossing_recall']:.1f}%)" if r.get("crossing_arcs")
                                             and "nonproj" in r["system"] else "")
                for label, r in cells if r is not None))
        if rows:
            out += ["", f"**{question}** (test LAS):", ""] + rows
    return (["", "## Findings the papers report, as measured here"] + out) if out else []


def chosen_options(args) -> list[str]:
    """The options of this run that differ from the defaults, as given on the command line
    (for the "Produced by" line: a table of a few systems names them)."""
    out = []
    if list(args.treebanks) != list(TREEBANKS):
        out += ["--treebanks", *args.treebanks]
    if list(args.systems) != TABLE_SYSTEMS:
        out += ["--systems", *args.systems]
    if args.beam_systems:
        out += ["--beam-systems", *args.beam_systems, "--beam-width", str(args.beam_width)]
    if args.epochs != 15:
        out += ["--epochs", str(args.epochs)]
    if args.hash_bits != 20:
        out += ["--hash-bits", str(args.hash_bits)]
    return out


def render(rows: list[dict], args) -> str:
    lines = ["# Learning results", "",
             f"Produced by `{produced_by('learn.py', args, *chosen_options(args))}` (do not edit by hand). "
             "Gold UPOS, FEATS and lemmas; LAS on",
             "universal labels as in the CoNLL 2018 evaluation; punctuation counted; best epoch on dev.",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
             f"at most {args.epochs} epochs, dev patience 5; hash table 2^{args.hash_bits} rows; "
             f"{args.jobs} trainings at a time; the parser alone, as `--no-tagger --parser-tags gold` trains it "
             "(no tagger; the dev LAS that picks the epoch is on gold tags, where `tsdsl train` with its defaults "
             "prints a predicted-tag dev LAS: see results-tagging.md); every other option `tsdsl train`'s default.",
             "", "Parse words/s: the whole `Parser.parse_sentences` call on the test set (model loaded); "
             "kernel words/s: the compiled search alone"
             + ("; both measured again with one model at a time on an otherwise idle machine (best of 3)."
                if any(r.get("speed_alone") for r in rows) else "; measured while another training ran."), "",
             "Model size and training memory against accuracy: [results-size.md](results-size.md) "
             "(`bench/model_size.py`). Tagging, and LAS with predicted tags beside UDPipe 1: "
             "[results-tagging.md](results-tagging.md) (`bench/tagging.py`, `bench/udpipe_peer.py`). "
             "Easy-first with K = inf and non-projective easy-first trained along the search's fixed order "
             "(an ablation): [results-easy-first.md](results-easy-first.md); "
             "the DAG system on enhanced dependencies (ELAS): [results-dag.md](results-dag.md).", "",
             "| treebank | system | beam | train s | parse words/s | kernel words/s | test UAS | test LAS | "
             "LAS full labels | dev LAS | best epoch | repaired words |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['treebank']} | {r['system']} | {r['beam']} | failed: {' '.join(r['error'])} |"
                         + " |" * 8)
            continue
        lines.append(f"| {r['treebank']} | {r['system']} | {r['beam']} | {r['train_seconds']:.0f} | "
                     f"{r['parse_words_per_second']:,} | {r['kernel_words_per_second']:,} | {r['uas']:.2f} | "
                     f"**{r['las']:.2f}** | {r['las_full']:.2f} | {r['dev_las']:.2f} | {r['best_epoch']} | "
                     f"{r['repaired_words']} |")
    ok = [r for r in rows if "error" not in r]
    lines += ["", "Systems:", ""]
    for name in dict.fromkeys(r["system"] for r in rows):
        spec, overrides, extra, text = SYSTEMS[name]
        opts = " ".join([f"--set {k}={v}" for k, v in overrides.items()] + ([option_flags(name)] if extra else []))
        used = ", ".join(sorted({r.get("oracle") or "?" for r in ok if r["system"] == name}))
        lines.append(f"- **{name}**: {text}; `{spec}`{' ' + opts if opts else ''} (trained: {used})")
    crossing = {(r["treebank"], r["system"], r["beam"]): r for r in ok if r.get("crossing_arcs")}
    if crossing:
        tbs = list(dict.fromkeys(tb for tb, _, _ in crossing))
        arcs = {tb: next(r["crossing_arcs"] for (t, _, _), r in crossing.items() if t == tb) for tb in tbs}
        lines += ["", "Crossing-arc recall (CUR, `tsdsl eval`: of the test arcs that cross another gold arc, the "
                  "share attached to the right head), %:", "",
                  "| system | beam | " + " | ".join(f"{tb} ({arcs[tb]} arcs)" for tb in tbs) + " |",
                  "|---|---|" + "---|" * len(tbs)]
        for name, beam in dict.fromkeys((n, b) for _, n, b in crossing):
            cells = [f"{crossing[tb, name, beam]['crossing_recall']:.1f}" if (tb, name, beam) in crossing else ""
                     for tb in tbs]
            lines.append(f"| {name} | {beam} | " + " | ".join(cells) + " |")
    lines += ["", "## Targets", ""]
    if list(args.systems) != TABLE_SYSTEMS:
        lines += ["Over the systems of this table only (docs/results.md has every seed system).", ""]
    for tb, target in TARGET_LAS.items():
        cand = [r for r in ok if r["treebank"] == tb]
        if not cand:
            continue
        best = max(cand, key=lambda r: r["las"])
        verdict = "met" if best["las"] >= target else f"missed by {target - best['las']:.2f}"
        lines.append(f"- {tb}: best LAS {best['las']:.2f} ({best['system']}, beam {best['beam']}) "
                     f"vs target {target}: **{verdict}**")
    pairs = [(a["las"], b["las"]) for a in ok for b in ok if a["system"] == "hj-unshift" and b["system"] == "arc-eager"
             and a["treebank"] == b["treebank"] and a["beam"] == b["beam"] == 1]
    if pairs:
        nm = sum(p[0] for p in pairs) / len(pairs)
        base = sum(p[1] for p in pairs) / len(pairs)
        lines.append(f"- greedy non-monotonic arc-eager (H&J 2015) vs arc-eager, mean test LAS over {len(pairs)} "
                     f"treebanks: {nm:.2f} vs {base:.2f}: **{'met' if nm >= base else 'missed'}**")
    greedy = [r for r in ok if r["beam"] == 1]
    if greedy:
        slow = min(greedy, key=lambda r: r["parse_words_per_second"])
        fast = [r for r in greedy if r["parse_words_per_second"] >= 30000]
        lines.append(f"- greedy parsing >= 30,000 words/s: {len(fast)} of {len(greedy)} greedy models "
                     f"(slowest: {slow['system']} on {slow['treebank']}, {slow['parse_words_per_second']:,} words/s)")
    gum = [r for r in ok if r["treebank"] == "en_gum" and r["beam"] == 1]
    if gum:
        quick = [r for r in gum if r["train_seconds"] <= 300]
        lines.append(f"- greedy training on en_gum ({args.epochs} epochs) <= 5 min: {len(quick)} of {len(gum)} "
                     "systems: " + ", ".join(f"{r['system']} {r['train_seconds']:.0f} s" for r in gum))
    lines += families(ok)
    lines += findings(ok)
    text = "\n".join(lines) + "\n"
    # sections other benchmarks keep in this file (bench/docblocks.py), carried over
    kept = blocks_of(args.out) if args.out is not None else []
    return text + "".join("\n" + b for b in kept)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebanks", nargs="+", default=list(TREEBANKS), action=Given,
                    help=f"treebanks under {DATA} (default: {' '.join(TREEBANKS)})")
    ap.add_argument("--systems", nargs="*", default=TABLE_SYSTEMS, choices=list(SYSTEMS), metavar="SYSTEM",
                    help="systems trained greedily (default: every seed system of docs/results.md, not the "
                         "-search and -learned variants; choices: %(choices)s)")
    ap.add_argument("--epochs", type=int, default=15, help="epochs at most per training (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=2, help="trainings at a time (default: %(default)s)")
    ap.add_argument("--hash-bits", type=int, default=20,
                    help="feature hash table of 2^N rows (default: %(default)s)")
    ap.add_argument("--beam", type=int, default=1, help=argparse.SUPPRESS)  # a child's (--one) beam width
    ap.add_argument("--beam-systems", nargs="*", default=[], choices=list(SYSTEMS), metavar="SYSTEM",
                    help="also train these with beam search of --beam-width (default: none)")
    ap.add_argument("--beam-width", type=int, default=8,
                    help="beam width of the --beam-systems trainings (default: %(default)s)")
    ap.add_argument("--workdir", type=Path, help="where models go (default: a temporary directory)")
    add_output_options(ap, DOCS)
    ap.add_argument("--json", type=Path, help="also write the rows as JSON (default: none)")
    ap.add_argument("--merge", type=Path, nargs="*", default=[],
                    help="rows of earlier runs (--json files) to put in the same table (default: none)")
    ap.add_argument("--remeasure-speed", action="store_true",
                    help="with --merge and --workdir: no training; measure the parse speed of the models "
                         "already in --workdir again, one at a time, and rewrite the table (default: off)")
    ap.add_argument("--one", nargs=2, metavar=("TREEBANK", "SYSTEM"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], args.epochs, args.beam, args.workdir, args.hash_bits)))
        return 0
    args.out = output_path(ap, args, DOCS)
    missing = [tb for tb in args.treebanks if not (DATA / tb / "train.conllu").is_file()]
    if missing:
        return no_data(args, ["treebanks"], f"no treebank data under {DATA} for {', '.join(missing)} "
                       "(the benchmark needs ../shared/data/ud/NAME/{train,dev,test}.conllu, or $TSDSL_UD_DATA)")
    if args.remeasure_speed:
        rows = [json.loads(f.read_text(encoding="utf-8")) for f in args.merge]
        rows = [measure_speed(r, args.workdir) if "error" not in r else r for rs in rows for r in rs]
        finish(rows, args)
        return 0
    sys.path.insert(0, str(ROOT))
    from tsdsl.lang import load_system
    from tsdsl.kernels import compile_system

    for name in dict.fromkeys(args.systems + args.beam_systems):  # build kernels once, before the jobs
        spec, overrides, _, _ = SYSTEMS[name]
        compile_system(load_system(ROOT / spec, overrides or None))
    jobs = [(tb, name, 1) for tb in args.treebanks for name in args.systems]
    jobs += [(tb, name, args.beam_width) for tb in args.treebanks for name in args.beam_systems]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="tsdsl-bench-learn-"))
    rows: list[dict] = []
    for f in args.merge:
        rows += json.loads(f.read_text(encoding="utf-8"))
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_child, tb, name, args.epochs, beam, workdir, args.hash_bits)
                   for tb, name, beam in jobs]
        for f in futures:
            r = f.result()
            rows.append(r)
            print(json.dumps(r), flush=True)
    finish(rows, args)
    return 0


def finish(rows: list[dict], args) -> None:
    """Print the table, and write it where ``--out``/``--write-docs`` say (and ``--json``)."""
    text = render(rows, args)
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
        print(f"table written to {args.out}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
