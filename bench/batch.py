"""Benchmark: the batch API against the one-state loop and spaCy's ArcEager oracle, per step.

Every variant runs the dynamic oracle over the projective sentences of a treebank (en_gum
train by default): at each step the legality and cost of every action, the first zero-cost
one taken and applied, until every sentence is parsed; the final heads are checked against
gold.  Measured side by side in one run (CPU-time medians of ``--runs``):

- **one-state loop**: the kernel's one-state Python API, a Python loop over sentences and
  steps (``legal_mask``, ``costs`` into reused arrays, ``apply``), unlabeled (its costs
  ignore labels); and the same loop reading the stack through ``snapshot()`` each step, as a
  parser extracting features would;
- **batch API**: :class:`tsdsl.kernels.batch.StateBatch` over batches of B sentences (sorted by
  length, as neural trainers bucket them), one Python iteration per batch step: ``legal_mask``,
  ``costs`` (unlabeled [B, A], or labeled [B, A, L] with every DEPREL of the file), the first
  zero-cost output picked with numpy, ``apply``; with ``+ lists`` also the ``lists()`` view read
  each step;
- **oracle pass**: ``CompiledSystem.oracle_pass``, the whole loop in the kernel (the ceiling);
- **spaCy**: ``get_oracle_sequence_from_state`` of spaCy's ArcEager (labeled), by the yardstick
  script ``../shared/bench/reference/spacy_oracle_bench.py`` run in place in its own virtualenv
  (never a dependency of tsdsl): ``python -m venv /work/venvs/spacy &&
  /work/venvs/spacy/bin/pip install spacy``.

Rates are words and transitions (oracle steps) per CPU second; the ratios printed below the
table compare the labeled batch API with the one-state loop and with spaCy.  Rows are skipped
with a message when the data, the compiler or spaCy is missing.

    python bench/batch.py [--runs 3] [--batch 64 256] [--limit N] [--spacy-python PATH] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# the shared directory beside the repository (or beside the directory of its worktrees)
SHARED = Path(os.environ["TSDSL_SHARED"]) if os.environ.get("TSDSL_SHARED") else next(
    (p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT.parent / "shared")
REFERENCE = SHARED / "bench" / "reference"
DATA = SHARED / "data" / "ud" / "en_gum" / "train.conllu"
SPACY_PYTHON = Path("/work/venvs/spacy/bin/python")
SPACY_HOWTO = "python -m venv /work/venvs/spacy && /work/venvs/spacy/bin/pip install spacy"

sys.path.insert(0, str(ROOT))  # measure this checkout (its code, not an installed tsdsl)

from benchargs import Given, no_data  # noqa: E402  (bench/, the script's directory)

from tsdsl.kernels.compiled import ILLEGAL  # noqa: E402
from tsdsl.treebank.conllu import read_conllu  # noqa: E402
from tsdsl.treebank.trees import is_projective  # noqa: E402


@dataclass
class Row:
    impl: str
    words: int = 0
    transitions: int = 0
    cpu_s: Optional[float] = None
    runs: tuple = ()
    mismatched_words: Optional[int] = None
    skipped: str = ""

    @property
    def words_per_s(self) -> Optional[float]:
        return self.words / self.cpu_s if self.cpu_s else None

    @property
    def steps_per_s(self) -> Optional[float]:
        return self.transitions / self.cpu_s if self.cpu_s else None


def median_cpu(fn: Callable, runs: int):
    times, result = [], None
    for _ in range(runs):
        c0 = time.process_time()
        result = fn()
        times.append(time.process_time() - c0)
    return statistics.median(times), tuple(round(t, 4) for t in times), result


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---- tsdsl variants ---------------------------------------------------------------------------


def one_state_loop(ks, golds, read_stack: bool):
    """The one-state API in a Python loop (unlabeled); returns (transitions, mismatched words)."""
    A = ks.n_actions
    mask = np.empty(A, dtype=np.uint8)
    costs = np.empty(A, dtype=np.int32)
    names = ks.action_names
    T = bad = 0
    for gold in golds:
        st = ks.initial(len(gold))
        ks.attach_gold(st, gold)
        while not ks.is_terminal(st):
            ks.legal_mask(st, mask)
            ks.costs(st, costs)
            if read_stack:
                ks.snapshot(st)
            a = int(np.argmax(costs == 0))
            ks.apply(st, names[a])
            T += 1
        heads = ks.output(st).heads
        bad += sum(h != g for h, g in zip(heads, gold))
    return T, bad


def batch_loop(ks, tb, order, size: int, labeled: bool, read_lists: bool):
    """The batch API over batches of ``size`` sentences; returns (transitions, mismatched words)."""
    T = bad = 0
    for start in range(0, len(order), size):
        idx = order[start:start + size]
        batch = ks.batch(tb, select=idx)
        B = batch.size
        L = batch.n_labels if labeled else 1
        mask = np.empty((B, batch.n_actions), dtype=np.uint8)
        costs = np.empty((B, batch.n_actions, batch.n_labels) if labeled else (B, batch.n_actions), dtype=np.int32)
        term = np.empty(B, dtype=np.bool_)
        lists = np.empty((B, batch.n_lists, batch.max_len), dtype=np.int32)
        lengths = np.empty((B, batch.n_lists), dtype=np.int32)
        while not batch.is_terminal(term).all():
            batch.legal_mask(mask)
            batch.costs(costs, labeled=labeled)
            if read_lists:
                batch.lists(lists, lengths)
            flat = costs.reshape(B, -1)
            pick = np.argmax(flat == 0, axis=1)
            live = ~term
            T += int(live.sum())
            batch.apply(np.where(live, pick // L, -1), np.where(live, pick % L, -1) if labeled else None)
        heads = batch.heads(finished=True)
        for b, i in enumerate(idx):
            n = tb.offsets[i + 1] - tb.offsets[i]
            bad += int((heads[b, 1:n + 1] != tb.heads[tb.offsets[i]:tb.offsets[i + 1]]).sum())
    return T, bad


# ---- spaCy -----------------------------------------------------------------------------------------


def measure_spacy(data: Path, runs: int, python: Path) -> Row:
    row = Row("spaCy ArcEager oracle loop (labeled)")
    script = REFERENCE / "spacy_oracle_bench.py"
    if not script.exists():
        row.skipped = f"no yardstick script at {script}"
        return row
    if not python.exists():
        row.skipped = f"no spaCy python at {python}; create it with: {SPACY_HOWTO}"
        return row
    progress(f"spaCy: {runs} runs (full, loop, init) of {script.name}")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run([str(python), str(script), str(data), str(runs), "--projective-only"],
                          cwd=REFERENCE, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        row.skipped = f"spacy_oracle_bench.py failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}"
        return row
    out = proc.stdout
    head = re.search(r"spaCy (\S+); examples (\d+) .*; words (\d+)", out)
    t = re.search(r"^loop: transitions (\d+)", out, re.M)
    cpu = re.search(r"^\s+loop cpu\s+median ([\d.]+) s", out, re.M)
    secs = re.search(r"^\s+loop cpu\s+seconds:(.*)$", out, re.M)
    bad = re.search(r"mismatched sents (\d+) words (\d+)", out)
    moves = re.search(r"moves.n_moves = (\d+)", out)
    if not (head and t and cpu):
        row.skipped = "could not read the output of spacy_oracle_bench.py"
        return row
    row.impl = f"spaCy {head.group(1)} ArcEager oracle loop (labeled, {moves.group(1) if moves else '?'} actions)"
    row.words, row.transitions, row.cpu_s = int(head.group(3)), int(t.group(1)), float(cpu.group(1))
    row.runs = tuple(float(x) for x in secs.group(1).split()) if secs else ()
    row.mismatched_words = int(bad.group(2)) if bad else None
    return row


# ---- report -------------------------------------------------------------------------------------------


def rate(x: Optional[float]) -> str:
    if x is None:
        return "-"
    for div, unit in ((1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g} {unit}"
    return f"{x:.3g}"


def table(rows: list[Row]) -> str:
    lines = ["| implementation | words | transitions | CPU s (median) | words/s | steps/s | wrong heads |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.skipped:
            lines.append(f"| {r.impl} | skipped: {r.skipped} | | | | | |")
            continue
        lines.append(f"| {r.impl} | {r.words} | {r.transitions} | {r.cpu_s:.3f} | {rate(r.words_per_s)} | "
                     f"{rate(r.steps_per_s)} | {'-' if r.mismatched_words is None else r.mismatched_words} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, action=Given, metavar="FILE.conllu",
                    help="the treebank whose projective sentences are followed (default: %(default)s)")
    ap.add_argument("--spec", default=str(ROOT / "systems" / "arc-eager.ts"),
                    help="the spec measured, with a dynamic oracle (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement; the median is reported "
                                                         "(default: %(default)s)")
    ap.add_argument("--batch", type=int, nargs="+", default=[64, 256], metavar="B",
                    help="batch sizes of the batch API rows (default: 64 256)")
    ap.add_argument("--limit", type=int, default=None,
                    help="only the first N sentences, and no spaCy row (default: the whole file)")
    ap.add_argument("--spacy-python", type=Path, default=SPACY_PYTHON,
                    help="python of a virtualenv with spaCy (default: %(default)s)")
    ap.add_argument("--no-spacy", action="store_true", help="leave out the spaCy row (default: off)")
    ap.add_argument("--json", type=Path, help="also write the rows to this file (default: none)")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        return no_data(args, ["data"], f"no treebank at {args.data} (the shared data sits beside the repository)")
    try:
        from tsdsl.kernels import compile_system

        ks = compile_system(args.spec, fallback=False)
    except Exception as exc:  # no compiler: nothing of tsdsl's to measure
        print(f"skipped: the kernel could not be built ({exc})")
        return 0
    sents = [s for s in read_conllu(args.data)][:args.limit]
    sents = [s for s in sents if is_projective(list(s.heads))]
    golds = [list(s.heads) for s in sents]
    labels = sorted({l for s in sents for l in s.deprels})
    lid = {l: k for k, l in enumerate(labels)}
    tb = ks.pack(golds, [[lid[l] for l in s.deprels] for s in sents], len(labels))
    words = tb.words
    order = np.argsort(np.diff(tb.offsets), kind="stable")
    progress(f"{args.data}: {len(sents)} projective sentences, {words} words, {len(labels)} labels; "
             f"{ks.system.name}, {ks.n_actions} actions")
    rows: list[Row] = []

    def run(name: str, fn: Callable) -> Row:
        progress(f"  {name}")
        cpu, times, (T, bad) = median_cpu(fn, args.runs)
        row = Row(name, words, T, cpu, times, bad)
        rows.append(row)
        return row

    one = run("one-state loop (unlabeled)", lambda: one_state_loop(ks, golds, False))
    run("one-state loop + snapshot() each step (unlabeled)", lambda: one_state_loop(ks, golds, True))
    best = {}
    for size in args.batch:
        run(f"batch API, B = {size} (unlabeled)", lambda: batch_loop(ks, tb, order, size, False, False))
        best[size] = run(f"batch API, B = {size} (labeled, {len(labels)} labels)",
                         lambda: batch_loop(ks, tb, order, size, True, False))
        run(f"batch API, B = {size} (labeled) + lists() each step", lambda: batch_loop(ks, tb, order, size, True, True))

    def whole_pass():
        res = ks.oracle_pass(tb, copy=False)
        return res.transitions, res.mismatched_words

    run("oracle_pass, the loop in the kernel (labeled)", whole_pass)
    spacy = None
    if not args.no_spacy:
        if args.limit is not None:
            spacy = Row("spaCy ArcEager oracle loop", skipped="not run with --limit (it reads the whole file)")
        else:
            spacy = measure_spacy(args.data, args.runs, args.spacy_python)
        rows.append(spacy)
    print(f"{args.data.name}: {len(sents)} projective sentences, {words} words; {ks.system.name}; "
          f"CPU-time medians of {args.runs} runs; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print(table(rows))
    print()
    for size, row in best.items():
        print(f"batch API B = {size} (labeled) / one-state loop (unlabeled): {row.words_per_s / one.words_per_s:.1f} x "
              f"words/s, {row.steps_per_s / one.steps_per_s:.1f} x steps/s")
        if spacy is not None and not spacy.skipped:
            print(f"batch API B = {size} (labeled) / spaCy oracle loop: {row.words_per_s / spacy.words_per_s:.1f} x "
                  f"words/s, {row.steps_per_s / spacy.steps_per_s:.1f} x steps/s")
    if spacy is not None and spacy.skipped:
        print(f"spaCy: skipped ({spacy.skipped})")
    if args.json:
        args.json.write_text(json.dumps([dict(asdict(r), words_per_s=r.words_per_s, steps_per_s=r.steps_per_s)
                                         for r in rows], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
