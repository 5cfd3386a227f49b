"""Benchmark: the oracle pass, interpreter against compiled kernel against two yardsticks.

An *oracle pass* runs every sentence of a treebank through a transition system with its
declared dynamic oracle: at each step it computes the legality and the cost of every
action, takes the first zero-cost legal action (in the system's action order) and applies
it; at the end the final heads are compared with gold.  Projective systems (arc-eager,
arc-hybrid, arc-eager-unshift) see only the projective sentences; Covington sees all.

Implementations, measured side by side in one run (CPU-time medians of ``--runs``):

- tsdsl interpreter (pure Python: ``Interpreter`` + ``FastOracle``), on the first
  ``--interp-sentences`` sentences only: it runs at thousands of transitions per second, and
  rates per word and per transition are comparable across subsets;
- tsdsl compiled kernel (``tsdsl.kernels.compile_system(...).oracle_pass``), unlabeled, and
  labeled (every arc action times every DEPREL of the file costed at each step);
- for arc-eager, two yardsticks kept outside the repository in ../shared/bench/reference:
  a hand-written C oracle (``oracle_c.c``, O(1) and O(n) costs) and spaCy's own ArcEager
  oracle (labeled), run in a separate virtualenv because spaCy is no dependency of tsdsl.

With ``--before REV`` the compiled unlabeled pass also runs with the code of git revision REV
(extracted with ``git archive`` into a temporary directory, built into the same kernel cache
under its own key), in alternating runs with this checkout's (now, before, now, before...), so
that speed-ups are measured side by side on the same machine minutes.

Ratios are CPU time per word.  Targets: compiled >= 100x the interpreter; compiled unlabeled
arc-eager <= 1.5x the C O(1) reference; compiled labeled arc-eager >= 20x faster than spaCy's
oracle loop; with ``--before e52ca30`` (the code issue 13 measured: its costs by scratch
copy), arc-hybrid and Covington >= 10x faster than it.  Against any other REV the ratio is
reported without a target.

    python bench/kernels.py [--runs 5] [--limit N] [--interp-sentences 300] [--before REV]
                            [--json out.json] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
# the shared directory next to the checkout, or next to one of its parents (a worktree)
SHARED = Path(os.environ["TSDSL_SHARED"]) if os.environ.get("TSDSL_SHARED") else next(
    (p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT.parent / "shared")
REFERENCE = SHARED / "bench" / "reference"
DATA = SHARED / "data" / "ud" / "en_gum" / "train.conllu"
SPACY_VENV = Path("/work/venvs/spacy")
SPACY_HOWTO = "python -m venv /work/venvs/spacy && /work/venvs/spacy/bin/pip install spacy"
SYSTEMS = ["arc-eager", "arc-hybrid", "arc-eager-unshift", "covington", "covington-nm"]

# Measure this checkout's package even where the editable install points elsewhere.
sys.path.insert(0, str(ROOT))

from benchargs import Given, no_data  # noqa: E402  (bench/, the script's directory)

from tsdsl import Interpreter, __version__, load_system  # noqa: E402
from tsdsl.treebank.conllu import read_conllu  # noqa: E402
from tsdsl.oracle import FastOracle  # noqa: E402
from tsdsl.treebank.trees import is_projective  # noqa: E402

TARGET_INTERP = 100.0  # interpreter / compiled, per word, at least
TARGET_C = 1.5  # compiled unlabeled arc-eager / C O(1), per word, at most (issue 13; 3.0 before)
TARGET_BEFORE = 10.0  # --before BASELINE: BASELINE / this checkout, per word, at least, for the systems below
BEFORE_TARGETED = ("arc-hybrid", "covington")
BEFORE_BASELINE = "e52ca30"  # the code issue 13 measured ("at least 10x faster than today")
TARGET_SPACY = 20.0  # spaCy loop / compiled labeled arc-eager, per word, at least


@dataclass
class Row:
    """One line of the table: one implementation's pass over one set of sentences."""

    system: str
    impl: str
    sentences: int = 0
    words: int = 0
    transitions: int = 0
    cpu_s: Optional[float] = None  # median CPU seconds of one pass
    runs: list[float] = field(default_factory=list)
    mismatched_sentences: Optional[int] = None
    mismatched_words: Optional[int] = None
    note: str = ""
    skipped: str = ""  # why it was not measured (then the figures are empty)

    @property
    def per_word(self) -> Optional[float]:
        return self.cpu_s / self.words if self.cpu_s and self.words else None

    def as_dict(self) -> dict:
        d = asdict(self)
        if self.cpu_s:
            d["transitions_per_s"] = self.transitions / self.cpu_s
            d["words_per_s"] = self.words / self.cpu_s
        return d


@dataclass
class Corpus:
    """The sentences of one CoNLL-U file (or its first ``--limit``), as the passes need them."""

    path: Path  # the file given to the yardsticks (the data, or its first sentences)
    heads: list[list[int]]
    labels: list[list[str]]
    projective: list[bool]

    @property
    def non_projective(self) -> int:
        return self.projective.count(False)


def load_corpus(data: Path, limit: Optional[int], tmp: Path) -> Corpus:
    sents = read_conllu(data)
    if limit is not None and limit < len(sents):
        sents = sents[:limit]
        path = tmp / f"first{limit}.conllu"
        path.write_text("".join(s.to_text() for s in sents), encoding="utf-8")
    else:
        path = data
    heads = [list(s.heads) for s in sents]
    return Corpus(path.resolve(), heads, [list(s.deprels) for s in sents], [is_projective(h) for h in heads])


def subset(corpus: Corpus, projective_only: bool) -> list[int]:
    """Indices of the sentences a system sees."""
    return [i for i, p in enumerate(corpus.projective) if p or not projective_only]


def median_cpu(fn, runs: int, repeat: int = 1):
    """Median CPU seconds of one call of ``fn`` over ``runs`` runs of ``repeat`` calls each."""
    times, result = [], None
    for _ in range(runs):
        c0 = time.process_time()
        for _ in range(repeat):
            result = fn()
        times.append((time.process_time() - c0) / repeat)
    return statistics.median(times), times, result


def one_line(text: str, limit: int = 160) -> str:
    """The first line of a (possibly long) message, for the table."""
    first = (text.strip().splitlines() or [""])[0]
    return first if len(first) <= limit else first[: limit - 3] + "..."


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---- tsdsl interpreter ------------------------------------------------------------------


def interp_pass(it: Interpreter, golds: list[list[int]]):
    """One oracle pass; returns (transitions, final heads, stuck sentences, steps without a zero-cost action)."""
    transitions = stuck = forced = 0
    outputs = []
    for gold in golds:
        c = it.initial(len(gold))
        oracle = FastOracle(it, None, gold)
        while not it.is_terminal(c):
            costs = oracle.costs(c)  # {legal action: cost}, in the system's action order
            if not costs:  # not terminal, yet no legal action: a dead end
                stuck += 1
                break
            action = next((a for a, v in costs.items() if v == 0), None)
            if action is None:  # the oracle is only a bound here: take the cheapest
                forced += 1
                action = min(costs, key=costs.get)
            it.apply(c, action)
            transitions += 1
        outputs.append(it.output(c).heads)
    return transitions, outputs, stuck, forced


def measure_interp(name: str, corpus: Corpus, sentences: int, runs: int) -> Row:
    system = load_system(ROOT / "systems" / f"{name}.ts")
    projective_only = system.covers in ("projective", "projective-dag")
    idx = subset(corpus, projective_only)
    golds = [corpus.heads[i] for i in idx[:sentences]]
    it = Interpreter(system)
    progress(f"  interpreter: {len(golds)} sentences x {runs} runs")
    med, times, (transitions, outputs, stuck, forced) = median_cpu(lambda: interp_pass(it, golds), runs)
    bad = [sum(p != g for p, g in zip(out, gold)) for out, gold in zip(outputs, golds)]
    notes = [f"first {len(golds)} of {len(idx)} sentences"]
    if stuck:
        notes.append(f"{stuck} dead ends (no legal action before terminal)")
    if forced:
        notes.append(f"{forced} steps without a zero-cost action")
    return Row(name, "tsdsl interpreter", len(golds), sum(map(len, golds)), transitions, med, times,
               sum(b > 0 for b in bad), sum(bad), "; ".join(notes))


# ---- tsdsl compiled kernel --------------------------------------------------------------


def import_compiler():
    """``tsdsl.kernels.compile_system``, or the reason it is not there."""
    try:
        from tsdsl.kernels import compile_system
    except ImportError as e:
        return None, f"compiled kernel not available: {e}"
    return compile_system, ""


def gold_heads(name: str, corpus: Corpus):
    """The sentences a system is measured on (projective ones for projective systems) and
    their gold heads as int32 arrays."""
    import numpy as np

    system = load_system(ROOT / "systems" / f"{name}.ts")
    idx = subset(corpus, system.covers in ("projective", "projective-dag"))
    return idx, [np.asarray(corpus.heads[i], dtype=np.int32) for i in idx]


def measure_compiled(name: str, corpus: Corpus, runs: int, passes: int, compile_system) -> list[Row]:
    import numpy as np

    idx, heads = gold_heads(name, corpus)
    vocab = {lab: k for k, lab in enumerate(sorted({lab for i in idx for lab in corpus.labels[i]}))}
    labels = [np.asarray([vocab[lab] for lab in corpus.labels[i]], dtype=np.int32) for i in idx]
    words = sum(len(h) for h in heads)
    unlabeled = Row(name, "tsdsl compiled", len(heads), words)
    labeled = Row(name, f"tsdsl compiled, labeled ({len(vocab)} labels)", len(heads), words)
    try:
        t0 = time.perf_counter()
        ks = compile_system(str(ROOT / "systems" / f"{name}.ts"))
        build = time.perf_counter() - t0
    except Exception as e:  # a failed build is a result to report, not a crash
        unlabeled.skipped = labeled.skipped = one_line(f"kernel build failed: {type(e).__name__}: {e}")
        unlabeled.note = labeled.note = str(e)  # the whole message, for --json
        return [unlabeled, labeled]
    progress(f"  compiled: kernel ready in {build:.1f} s wall; {runs} runs x {passes} passes")
    # gold trees are laid out once, outside the timed region (the C program reads its binary once too)
    packed = ks.pack(heads)
    packed_labeled = ks.pack(heads, labels, len(vocab))
    # copy=False: the output buffers are reused pass after pass, as the C program reuses its own
    calls = [(unlabeled, lambda: ks.oracle_pass(packed, copy=False)),
             (labeled, lambda: ks.oracle_pass(packed_labeled, copy=False))]
    for row, call in calls:
        try:
            call()  # warm-up, untimed
            row.cpu_s, row.runs, res = median_cpu(call, runs, passes)
        except Exception as e:
            row.skipped = one_line(f"oracle_pass failed: {type(e).__name__}: {e}")
            row.note = str(e)
            continue
        row.transitions = res.transitions
        row.mismatched_sentences = res.mismatched_sentences
        row.mismatched_words = res.mismatched_words
        row.note = f"all {len(heads)} sentences; per pass, {passes} passes a run"
    return [unlabeled, labeled]


# ---- the same pass with the code of another revision (--before) --------------------------

_BEFORE_DRIVER = r"""
import json, sys, time
src, spec, data, limit, projective_only, passes = sys.argv[1:7]
sys.path.insert(0, src)
import numpy as np
import tsdsl
if not tsdsl.__file__.startswith(src):
    sys.exit(f"imported tsdsl from {tsdsl.__file__}, not from {src}")
from tsdsl.kernels import compile_system
from tsdsl.treebank.conllu import read_conllu
from tsdsl.treebank.trees import is_projective
sents = read_conllu(data)
if limit != "-":
    sents = sents[:int(limit)]
heads = [np.asarray(s.heads, dtype=np.int32) for s in sents
         if projective_only == "0" or is_projective(list(s.heads))]
ks = compile_system(spec)
packed = ks.pack(heads)
ks.oracle_pass(packed, copy=False)  # warm-up
print("ready", flush=True)
for line in sys.stdin:  # one timed run of `passes` passes per line read
    t0 = time.process_time()
    for _ in range(int(passes)):
        res = ks.oracle_pass(packed, copy=False)
    dt = (time.process_time() - t0) / int(passes)
    print(json.dumps({"cpu_s": dt, "transitions": int(res.transitions), "words": int(sum(map(len, heads))),
                      "sentences": len(heads), "bad_sents": int(res.mismatched_sentences),
                      "bad_words": int(res.mismatched_words)}), flush=True)
"""


def is_baseline(rev: Optional[str]) -> bool:
    """Whether ``rev`` names :data:`BEFORE_BASELINE`'s commit (the 10x target applies to it alone)."""
    if not rev:
        return False
    try:
        out = [subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{r}^{{commit}}"], capture_output=True,
                              text=True, check=True).stdout.strip() for r in (rev, BEFORE_BASELINE)]
    except (subprocess.CalledProcessError, FileNotFoundError):
        return False
    return out[0] == out[1]


def extract_revision(rev: str, tmp: Path) -> tuple[Optional[Path], str]:
    """The tree of git revision ``rev`` under ``tmp`` (git archive), or the reason it is not."""
    src = tmp / "before-src"
    src.mkdir(exist_ok=True)
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        err = getattr(e, "stderr", b"") or b""
        return None, one_line(f"git archive {rev} failed: {err.decode(errors='replace') or e}")
    return src, ""


def measure_before(name: str, corpus: Corpus, runs: int, passes: int, rev: str, src: Optional[Path],
                   why: str, compile_system) -> list[Row]:
    """The unlabeled pass with this checkout and with ``rev``'s code, in alternating runs."""
    rows = [Row(name, "tsdsl compiled (now, alternating)"), Row(name, f"tsdsl compiled ({rev})")]
    if src is None or compile_system is None:
        for r in rows:
            r.skipped = why or "compiled kernel not available"
        return rows
    system = load_system(ROOT / "systems" / f"{name}.ts")
    projective_only = system.covers in ("projective", "projective-dag")
    idx, heads = gold_heads(name, corpus)
    ks = compile_system(str(ROOT / "systems" / f"{name}.ts"))
    packed = ks.pack(heads)
    ks.oracle_pass(packed, copy=False)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    spec = src / "systems" / f"{name}.ts"
    progress(f"  before ({rev}): building and loading its kernel")
    proc = subprocess.Popen([sys.executable, "-c", _BEFORE_DRIVER, str(src), str(spec), str(corpus.path), "-",
                             "1" if projective_only else "0", str(passes)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        if proc.stdout.readline().strip() != "ready":
            proc.kill()
            err = proc.stderr.read()
            for r in rows:
                r.skipped = one_line(f"the code of {rev} failed: {err.strip().splitlines()[-1:] or ['?']}")
            return rows
        progress(f"  before ({rev}): {runs} alternating runs of {passes} passes each")
        now_t, before_t, info, res = [], [], {}, None
        for _ in range(runs):
            t0 = time.process_time()
            for _ in range(passes):
                res = ks.oracle_pass(packed, copy=False)
            now_t.append((time.process_time() - t0) / passes)
            proc.stdin.write("go\n")
            proc.stdin.flush()
            info = json.loads(proc.stdout.readline())
            before_t.append(info["cpu_s"])
    finally:
        proc.stdin.close()
        proc.wait()
    words = sum(len(h) for h in heads)
    now, before = rows
    now.sentences, now.words, now.runs, now.cpu_s = len(idx), words, now_t, statistics.median(now_t)
    now.transitions, now.mismatched_sentences, now.mismatched_words = (res.transitions, res.mismatched_sentences,
                                                                       res.mismatched_words)
    before.sentences, before.words, before.runs, before.cpu_s = info["sentences"], info["words"], before_t, \
        statistics.median(before_t)
    before.transitions, before.mismatched_sentences, before.mismatched_words = (info["transitions"],
                                                                                info["bad_sents"], info["bad_words"])
    for r in rows:
        r.note = f"alternating runs with the other; per pass, {passes} passes a run"
    before.note = f"the code of {rev} (git archive); " + before.note
    return rows


# ---- yardsticks (arc-eager only) ------------------------------------------------------


def reference_missing() -> str:
    need = [REFERENCE / f for f in ("oracle_c.c", "conllu_heads.py", "spacy_oracle_bench.py")]
    missing = [str(p) for p in need if not p.is_file()]
    return f"reference files not found: {', '.join(missing)}" if missing else ""


_CPU_MEDIAN = re.compile(r"(\w+)?\s*cpu\s+median\s+([\d.]+) s\s+sents/s \d+\s+words/s \d+(?:\s+transitions/s (\d+))?")


def measure_c(corpus: Corpus, runs: int, passes: int, tmp: Path) -> list[Row]:
    """Compile oracle_c.c into ``tmp``, convert the data, run it; rows for its o1 and scan passes."""
    rows = [Row("arc-eager", "C reference, O(1) costs"), Row("arc-eager", "C reference, O(n) scan")]
    why = reference_missing()
    cc = shutil.which("gcc") or shutil.which("cc")
    if not why and cc is None:
        why = "no C compiler (gcc or cc) on PATH"
    if why:
        for r in rows:
            r.skipped = why
        return rows
    exe, binary = tmp / "oracle_c", tmp / "data.bin"
    progress(f"  C reference: {runs} runs x {passes} passes")
    try:
        subprocess.run([cc, "-O2", "-o", str(exe), str(REFERENCE / "oracle_c.c")], check=True,
                       capture_output=True, text=True)
        subprocess.run([sys.executable, str(REFERENCE / "conllu_heads.py"), str(corpus.path), str(binary)],
                       check=True, capture_output=True, text=True)
        out = subprocess.run([str(exe), str(binary), str(runs), str(passes)], check=True,
                             capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        for r in rows:
            r.skipped = f"{Path(e.cmd[0]).name} failed (exit {e.returncode}): {one_line(e.stderr or '')}"
        return rows
    by_variant = {"o1": rows[0], "scan": rows[1]}
    head = re.search(r"projective (\d+) \((\d+) words\)", out)
    current = None
    for line in out.splitlines():
        m = re.match(r"(scan|o1): transitions (\d+) .*mismatched sents (\d+) words (\d+)", line)
        if m:
            current = by_variant[m.group(1)]
            current.transitions = int(m.group(2))
            current.mismatched_sentences, current.mismatched_words = int(m.group(3)), int(m.group(4))
            current.sentences, current.words = int(head.group(1)), int(head.group(2))
            current.note = f"oracle_c.c, gcc -O2; per pass, {passes} passes a run"
            continue
        m = re.match(r"\s+cpu\s+per-pass seconds:(.*)", line)
        if m and current:
            current.runs = [float(x) for x in m.group(1).split()]
        m = _CPU_MEDIAN.match(line)
        if m and current:
            current.cpu_s = float(m.group(2))
    for r in rows:
        if r.cpu_s is None:
            r.skipped = "could not parse the output of oracle_c"
    return rows


def measure_paired(corpus: Corpus, runs: int, passes: int, tmp: Path, compile_system) -> list[Row]:
    """The compiled arc-eager kernel and the C O(1) reference in alternating runs (kernel run,
    C run, kernel run, ...), so that both see the same machine: on a shared machine the speed
    of a core drifts between minutes, and separate measurements can differ by a third."""
    rows = [Row("arc-eager", "tsdsl compiled (paired)"), Row("arc-eager", "C reference, O(1) (paired)")]
    exe, binary = tmp / "oracle_c", tmp / "data.bin"
    if not exe.exists() or not binary.exists() or compile_system is None:
        for r in rows:
            r.skipped = "needs the C reference and the compiled kernel"
        return rows
    idx, heads = gold_heads("arc-eager", corpus)
    ks = compile_system(str(ROOT / "systems" / "arc-eager.ts"))
    packed = ks.pack(heads)
    progress(f"  paired: {runs} alternating runs of {passes} passes each")
    ks.oracle_pass(packed, copy=False)  # warm-up
    kernel, c_times = [], []
    res = None
    for _ in range(runs):
        t0 = time.process_time()
        for _ in range(passes):
            res = ks.oracle_pass(packed, copy=False)
        kernel.append((time.process_time() - t0) / passes)
        out = subprocess.run([str(exe), str(binary), "1", str(passes)], check=True, capture_output=True,
                             text=True).stdout
        o1 = out[out.index("o1:"):]
        c_times.append(float(_CPU_MEDIAN.search(o1).group(2)))
    words = sum(len(corpus.heads[i]) for i in idx)
    for row, times in zip(rows, (kernel, c_times)):
        row.sentences, row.words, row.runs = len(idx), words, times
        row.cpu_s = statistics.median(times)
        row.transitions = res.transitions
        row.mismatched_sentences, row.mismatched_words = res.mismatched_sentences, res.mismatched_words
        row.note = f"alternating runs; per pass, {passes} passes a run"
    rows[1].mismatched_sentences = rows[1].mismatched_words = None
    return rows


def spacy_python(option: Optional[str]) -> tuple[Optional[Path], str]:
    path = Path(option) if option else SPACY_VENV / "bin" / "python"
    if not path.exists():
        return None, f"no spaCy python at {path}; create it with: {SPACY_HOWTO} (or pass --spacy-python PATH)"
    return path, ""


def measure_spacy(corpus: Corpus, runs: int, python: Optional[str]) -> list[Row]:
    """Run spacy_oracle_bench.py (projective sentences) in its own venv; rows for 'loop' and 'full'."""
    rows = [Row("arc-eager", "spaCy oracle loop (labeled)"),
            Row("arc-eager", "spaCy oracle full (labeled)")]
    exe, why = spacy_python(python)
    why = reference_missing() or why
    if why:
        for r in rows:
            r.skipped = why
        return rows
    progress(f"  spaCy: {runs} runs of full, loop and init (minutes on the full treebank)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proc = subprocess.run([str(exe), str(REFERENCE / "spacy_oracle_bench.py"), str(corpus.path), str(runs),
                           "--projective-only"], cwd=REFERENCE, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no message)"]
        for r in rows:
            r.skipped = f"spacy_oracle_bench.py failed (exit {proc.returncode}): {tail[0]}"
        return rows
    out = proc.stdout
    head = re.search(r"spaCy (\S+); examples (\d+) .*; words (\d+)", out)
    n_moves = re.search(r"moves.n_moves = (\d+)", out)
    bad = re.search(r"mismatched sents (\d+) words (\d+); not final (\d+)", out)
    for row, mode in zip(rows, ("loop", "full")):
        t = re.search(rf"^{mode}: transitions (\d+)", out, re.M)
        cpu = re.search(rf"^\s+{mode} cpu\s+median ([\d.]+) s", out, re.M)
        secs = re.search(rf"^\s+{mode} cpu\s+seconds:(.*)$", out, re.M)
        if not (head and t and cpu):
            row.skipped = "could not parse the output of spacy_oracle_bench.py"
            continue
        row.sentences, row.words, row.transitions = int(head.group(2)), int(head.group(3)), int(t.group(1))
        row.cpu_s = float(cpu.group(1))
        row.runs = [float(x) for x in secs.group(1).split()] if secs else []
        row.note = (f"spaCy {head.group(1)}, {n_moves.group(1) if n_moves else '?'} actions; "
                    + ("states and golds pre-built" if mode == "loop" else "with gold-state construction"))
        if bad and mode == "loop":
            row.mismatched_sentences, row.mismatched_words = int(bad.group(1)), int(bad.group(2))
            if int(bad.group(3)):
                row.note += f"; {bad.group(3)} not final"
    return rows


# ---- report ---------------------------------------------------------------------------


def rate(x: float) -> str:
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g} {unit}"
    return f"{x:.3g}"


def table(rows: list[Row]) -> str:
    head = (f"{'system':<18} {'implementation':<34} {'sentences':>9} {'words':>8} {'transitions':>11} "
            f"{'CPU s (median)':>14} {'transitions/s':>13} {'words/s':>9} {'mismatches':>11}  note")
    lines = [head, "-" * len(head)]
    for r in rows:
        if r.skipped:
            lines.append(f"{r.system:<18} {r.impl:<34} {'-':>9} {'-':>8} {'-':>11} {'-':>14} {'-':>13} {'-':>9} "
                         f"{'-':>11}  skipped: {r.skipped}")
            continue
        bad = "-" if r.mismatched_sentences is None else f"{r.mismatched_sentences}/{r.mismatched_words}"
        lines.append(f"{r.system:<18} {r.impl:<34} {r.sentences:>9} {r.words:>8} {r.transitions:>11} "
                     f"{r.cpu_s:>14.6f} {rate(r.transitions / r.cpu_s):>13} {rate(r.words / r.cpu_s):>9} "
                     f"{bad:>11}  {r.note}")
    lines.append("mismatches: sentences/words whose final head differs from gold ('-': not checked)")
    return "\n".join(lines)


def ratios(rows: list[Row], baseline: bool = False) -> list[dict]:
    """Each target ratio (CPU per word), with its value or the reason it is missing."""
    find = {(r.system, r.impl): r for r in rows}

    def get(system: str, impl: str) -> Optional[Row]:
        r = find.get((system, impl))
        if r is None:  # labeled rows carry the label count in their name
            r = next((x for x in rows if x.system == system and x.impl.startswith(impl)), None)
        return r if r is not None and r.per_word else None

    out = []
    for name in dict.fromkeys(r.system for r in rows):
        it, comp = get(name, "tsdsl interpreter"), get(name, "tsdsl compiled")
        if it is None and comp is None:
            continue
        out.append({"name": f"{name}: interpreter / compiled", "unit": "x faster", "target": ">=",
                    "goal": TARGET_INTERP, "value": it.per_word / comp.per_word if it and comp else None})
    comp, c = get("arc-eager", "tsdsl compiled"), get("arc-eager", "C reference, O(1) costs")
    out.append({"name": "arc-eager: compiled unlabeled / C O(1) reference", "unit": "x the C reference",
                "target": "<=", "goal": TARGET_C, "value": comp.per_word / c.per_word if comp and c else None})
    comp, c = get("arc-eager", "tsdsl compiled (paired)"), get("arc-eager", "C reference, O(1) (paired)")
    if comp and c:
        out.append({"name": "arc-eager: same, alternating runs", "unit": "x the C reference",
                    "target": "<=", "goal": TARGET_C, "value": comp.per_word / c.per_word})
    for name in dict.fromkeys(r.system for r in rows):
        now = get(name, "tsdsl compiled (now, alternating)")
        before = next((x for x in rows if x.system == name and x.impl.startswith("tsdsl compiled (")
                       and x.impl != "tsdsl compiled (now, alternating)" and x.impl != "tsdsl compiled (paired)"
                       and x.per_word), None)
        if now is None and before is None:
            continue
        out.append({"name": f"{name}: {before.impl[16:-1] if before else 'before'} / now",
                    "unit": "x faster", "target": ">=",
                    "goal": TARGET_BEFORE if baseline and name in BEFORE_TARGETED else None,
                    "value": before.per_word / now.per_word if now and before else None})
    lab, sp = get("arc-eager", "tsdsl compiled, labeled"), get("arc-eager", "spaCy oracle loop")
    out.append({"name": "arc-eager: spaCy oracle loop / compiled labeled", "unit": "x faster",
                "target": ">=", "goal": TARGET_SPACY, "value": sp.per_word / lab.per_word if lab and sp else None})
    for r in out:
        v = r["value"]
        r["pass"] = None if v is None or r["goal"] is None else (
            v >= r["goal"] if r["target"] == ">=" else v <= r["goal"])
    return out


def ratio_lines(rs: list[dict]) -> str:
    lines = ["ratios (CPU time per word):"]
    for r in rs:
        target = "no target" if r["goal"] is None else f"target {r['target']} {r['goal']:g}"
        if r["value"] is None:
            lines.append(f"  {r['name']:<52} {'n/a':>10}  ({target}; a row is missing)")
        else:
            verdict = "" if r["pass"] is None else ("PASS" if r["pass"] else "FAIL")
            v = r["value"]
            value = f"{v:,.0f}" if v >= 100 else f"{v:.2f}"
            lines.append(f"  {r['name']:<52} {value:>10} {r['unit']:<18} ({target})  {verdict}")
    return "\n".join(lines)


# ---- the generated section of docs/kernels.md ---------------------------------------------

DOCS = ROOT / "docs" / "kernels.md"
BEGIN, END = "<!-- written by bench/kernels.py --write-docs: begin -->", "<!-- bench/kernels.py: end -->"


def docs_section(res: dict, rows: list[Row], command: str) -> str:
    """Markdown for this run: the measured rows (words/s) and the ratios with their verdicts."""
    day = time.strftime("%Y-%m-%d", time.gmtime())
    load = " ".join(f"{x:.1f}" for x in res["load_average"])
    out = [BEGIN, "",
           f"`{command}`, {day}, tsdsl {res['tsdsl']}, Python {res['python']}, this shared 2-core machine "
           f"(load average {load} at the start). Oracle pass over {Path(res['data']).parent.name} "
           f"{Path(res['data']).name} ({res['sentences']} sentences, {res['words']} words; the projective systems "
           f"see the {res['sentences'] - res['non_projective']} projective ones); CPU-time medians of "
           f"{res['runs']} runs of {res['passes']} passes. Mismatches: sentences/words whose final head is "
           "not gold.", "",
           "| system | implementation | words/s | transitions/s | mismatches |", "|---|---|---|---|---|"]
    for r in rows:
        if r.skipped:
            out.append(f"| {r.system} | {r.impl} | - | - | skipped: {r.skipped} |")
            continue
        bad = "-" if r.mismatched_sentences is None else f"{r.mismatched_sentences}/{r.mismatched_words}"
        out.append(f"| {r.system} | {r.impl} | {rate(r.words / r.cpu_s)} | {rate(r.transitions / r.cpu_s)} | {bad} |")
    out += ["", "| ratio (CPU time per word) | value | target | verdict |", "|---|---|---|---|"]
    for r in res["ratios"]:
        v = r["value"]
        value = "n/a" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.2f}")
        target = "-" if r["goal"] is None else f"{r['target']} {r['goal']:g}"
        verdict = "-" if r["pass"] is None else ("pass" if r["pass"] else "**FAIL**")
        out.append(f"| {r['name']} | {value} {r['unit'] if v is not None else ''} | {target} | {verdict} |")
    out += ["", END]
    return "\n".join(out)


def write_docs(res: dict, rows: list[Row], command: str) -> None:
    """Replace the section between the markers in docs/kernels.md (appended when absent)."""
    text = DOCS.read_text(encoding="utf-8")
    section = docs_section(res, rows, command)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOCS.write_text(text, encoding="utf-8")


# ---- driver ---------------------------------------------------------------------------


def run(*, data: Path, limit: Optional[int], runs: int, passes: int, interp_sentences: int,
        systems: list[str], yardsticks: bool, spacy: Optional[str], tmp: Path, before: Optional[str] = None) -> dict:
    """Measure everything; return the figures (rows, ratios, context) as plain data."""
    progress(f"reading {data}")
    corpus = load_corpus(data, limit, tmp)
    compile_system, why_not = import_compiler()
    if why_not:
        print(why_not, flush=True)
    rows: list[Row] = []
    src, why_before = extract_revision(before, tmp) if before else (None, "")
    for name in systems:
        progress(f"{name}:")
        rows.append(measure_interp(name, corpus, interp_sentences, runs))
        if compile_system is None:
            rows += [Row(name, "tsdsl compiled", skipped="compiled kernel not available (see above)"),
                     Row(name, "tsdsl compiled, labeled", skipped="compiled kernel not available (see above)")]
        else:
            rows += measure_compiled(name, corpus, runs, passes, compile_system)
        if before:
            rows += measure_before(name, corpus, runs, passes, before, src, why_before, compile_system)
    if yardsticks and "arc-eager" in systems:
        progress("yardsticks (arc-eager):")
        rows += measure_c(corpus, runs, passes, tmp)
        rows += measure_spacy(corpus, runs, spacy)
        rows += measure_paired(corpus, runs, passes, tmp, compile_system)
    return {
        "data": str(data), "limit": limit, "runs": runs, "passes": passes,
        "interp_sentences": interp_sentences, "before": before,
        "sentences": len(corpus.heads), "words": sum(map(len, corpus.heads)),
        "non_projective": corpus.non_projective,
        "tsdsl": __version__, "python": platform.python_version(), "machine": platform.machine(),
        "load_average": list(os.getloadavg()),
        "rows": [r.as_dict() for r in rows], "ratios": ratios(rows, is_baseline(before)), "_rows": rows,
    }


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA, action=Given, metavar="FILE.conllu",
                   help="CoNLL-U file (default: en_gum train in ../shared, %(default)s)")
    p.add_argument("--limit", type=int, help="only the first N sentences of the file (default: all)")
    p.add_argument("--runs", type=int, default=5, help="runs per measurement; the median is reported "
                                                        "(default: %(default)s)")
    p.add_argument("--passes", type=int, default=20, help="passes per run for the compiled kernel and the C program "
                                                           "(default: %(default)s)")
    p.add_argument("--interp-sentences", type=int, default=300, help="sentences the interpreter is timed on "
                                                                      "(default: %(default)s)")
    p.add_argument("--systems", nargs="+", default=SYSTEMS, metavar="SYSTEM",
                   help=f"systems measured (default: {' '.join(SYSTEMS)})")
    p.add_argument("--no-yardsticks", dest="yardsticks", action="store_false",
                   help="skip the C and spaCy runs (default: run them)")
    p.add_argument("--spacy-python", help=f"python of a venv with spaCy (default: {SPACY_VENV}/bin/python)")
    p.add_argument("--before", metavar="REV", help="also run the compiled pass with the code of git revision REV "
                                                   "(needs the checkout's .git; default: none)")
    p.add_argument("--json", type=Path, help="also write the figures to this file (default: none)")
    p.add_argument("--write-docs", action="store_true",
                   help=f"replace the generated section of {DOCS.relative_to(ROOT)} with this run's figures "
                        "(default: off, print them only)")
    args = p.parse_args(argv)
    if not args.data.is_file():
        return no_data(args, ["data"], f"data not found: {args.data} (pass --data FILE.conllu)")
    with tempfile.TemporaryDirectory(prefix="tsdsl-bench-") as tmp:
        res = run(data=args.data, limit=args.limit, runs=args.runs, passes=args.passes,
                  interp_sentences=args.interp_sentences, systems=args.systems, yardsticks=args.yardsticks,
                  spacy=args.spacy_python, tmp=Path(tmp), before=args.before)
    rows = res.pop("_rows")
    proj = res["sentences"] - res["non_projective"]
    print(f"\nOracle pass over {res['data']}{f' (first {args.limit})' if args.limit else ''}: "
          f"{res['sentences']} sentences, {res['words']} words; projective systems use the {proj} projective "
          f"sentences ({res['non_projective']} non-projective skipped), Covington uses all.")
    print(f"CPU-time medians of {args.runs} runs; tsdsl {res['tsdsl']}, Python {res['python']}.\n")
    print(table(rows))
    print()
    print(ratio_lines(res["ratios"]))
    print("load average after: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
        print(f"figures written to {args.json}")
    if args.write_docs:
        write_docs(res, rows, " ".join(["python", "bench/kernels.py", *(argv if argv is not None else sys.argv[1:])]))
        print(f"section written to {DOCS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
