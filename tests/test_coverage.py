"""Treebank coverage on small generated treebanks: exact, hand-checked numbers.

The hand-checked treebank (heads in CoNLL-U numbering):

    (0,)          projective
    (2, 0, 2)     projective
    (3, 4, 0, 3)  non-projective: 3->1 crosses 4->2, and 4->2 crosses 0->3
                  (3 crossing arcs).  A projective system's best tree must change
                  word 2's head (changing word 1 leaves 4->2 x 0->3), so it keeps
                  3->1 and 0->3: 2 reached.
    (3, 0, 2)     non-projective: 3->1 crosses 0->2 (2 crossing arcs).  Only word 1
                  can change at loss 1 (word 2 or 3 would leave a cycle or the
                  crossing), so 0->2 is kept: 1 reached.
    (2, 0, 2, 3)  projective

Projective systems derive 3/5 and reach 3 of the 5 crossing arcs; Covington
derives all 5 and so reaches all 5.
"""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import pytest

from tsdsl import load_system
from tsdsl.cli import main
from tsdsl.treebank.conllu import read_conllu
from tsdsl.treebank.trees import is_projective
from tsdsl.verify.classes import single_root_trees
from tsdsl.verify.coverage import coverage, nonprojective_arcs

HAND = [(0,), (2, 0, 2), (3, 4, 0, 3), (3, 0, 2), (2, 0, 2, 3)]


def to_conllu(trees) -> str:
    out = []
    for k, heads in enumerate(trees, 1):
        out.append(f"# sent_id = {k}\n")
        for d, h in enumerate(heads, 1):
            out.append(f"{d}\tw{d}\t_\tX\t_\t_\t{h}\t{'root' if h == 0 else 'dep'}\t_\t_\n")
        out.append("\n")
    return "".join(out)


@pytest.fixture
def hand_file(tmp_path):
    p = tmp_path / "hand.conllu"
    p.write_text(to_conllu(HAND), encoding="utf-8")
    return p


def test_nonprojective_arcs_hand_checked():
    assert nonprojective_arcs((0,)) == []
    assert nonprojective_arcs((2, 0, 2, 3)) == []
    assert nonprojective_arcs((3, 4, 0, 3)) == [(3, 1), (4, 2), (0, 3)]
    assert nonprojective_arcs((3, 0, 2)) == [(3, 1), (0, 2)]
    assert nonprojective_arcs((2, 0, 1)) == [(0, 2), (1, 3)]  # the root arc is crossed too


@pytest.mark.parametrize("spec", ["arc-eager", "arc-hybrid"])
def test_projective_system_on_hand_treebank(systems_dir, hand_file, spec):
    r = coverage(load_system(systems_dir / f"{spec}.ts"), read_conllu(hand_file), file=str(hand_file))
    assert (r.sentences, r.words, r.projective) == (5, 15, 3)
    assert (r.derivable, r.not_derivable, r.undecided, r.skipped) == (3, 2, 0, 0)
    assert r.nps_share == pytest.approx(0.6) and r.projective_share == pytest.approx(0.6)
    assert (r.nonprojective_arcs, r.nonprojective_arcs_reached, r.nonprojective_arcs_undecided) == (5, 3, 0)
    assert r.reached_share == pytest.approx(0.6)
    assert [v.status for v in r.per_sentence] == ["derivable", "derivable", "not derivable", "not derivable",
                                                  "derivable"]
    assert [v.reached_arcs for v in r.per_sentence] == [0, 0, 2, 1, 0]
    assert [v.line for v in r.per_sentence] == [1, 4, 9, 15, 20]
    assert [v.sent_id for v in r.per_sentence] == ["1", "2", "3", "4", "5"]


def test_covington_on_hand_treebank(systems_dir, hand_file):
    r = coverage(load_system(systems_dir / "covington.ts"), read_conllu(hand_file))
    assert (r.derivable, r.not_derivable, r.undecided) == (5, 0, 0)
    assert r.nps_share == 1.0
    assert (r.nonprojective_arcs, r.nonprojective_arcs_reached) == (5, 5)
    assert [v.reached_arcs for v in r.per_sentence] == [0, 0, 3, 2, 0]


def test_generated_treebank_all_small_trees(systems_dir, tmp_path):
    """Every single-root tree of 1..4 words: 1 + 2 + 9 + 64 = 76 trees, of which
    1 + 2 + 7 + 30 = 40 projective (A006013)."""
    trees = [t for n in range(1, 5) for t in single_root_trees(n, False)]
    assert len(trees) == 76 and sum(map(is_projective, trees)) == 40
    p = tmp_path / "all.conllu"
    p.write_text(to_conllu(trees), encoding="utf-8")
    sents = read_conllu(p)
    eager = coverage(load_system(systems_dir / "arc-eager.ts"), sents)
    assert (eager.sentences, eager.projective, eager.derivable, eager.not_derivable) == (76, 40, 40, 36)
    assert [v.status == "derivable" for v in eager.per_sentence] == [is_projective(t) for t in trees]
    cov = coverage(load_system(systems_dir / "covington.ts"), sents)
    assert (cov.derivable, cov.undecided) == (76, 0)
    total = sum(len(nonprojective_arcs(t)) for t in trees)
    assert cov.nonprojective_arcs == eager.nonprojective_arcs == total == cov.nonprojective_arcs_reached
    assert eager.nonprojective_arcs_undecided == 0
    assert 0 < eager.nonprojective_arcs_reached < total


def test_budget_exceeded_is_undecided(systems_dir):
    r = coverage(load_system(systems_dir / "arc-eager.ts"), HAND, budget=1, reach_budget=1)
    # one word: a single expansion decides it; the longer projective sentences need more; the
    # two non-projective ones need no search: arc-eager never builds crossing arcs
    assert [v.status for v in r.per_sentence] == ["derivable", "undecided", "not derivable", "not derivable",
                                                  "undecided"]
    assert [v.proof is not None for v in r.per_sentence] == [False, False, True, True, False]
    assert (r.derivable, r.not_derivable, r.not_derivable_by_proof, r.undecided) == (1, 2, 2, 2)
    assert r.nps_share == pytest.approx(0.2) and r.nps_share_upper == pytest.approx(0.6)
    # counting the crossing arcs reached needs the exact-loss search: out of its budget of 1
    assert (r.nonprojective_arcs, r.nonprojective_arcs_reached, r.nonprojective_arcs_undecided) == (5, 0, 5)
    assert r.reached_share is None
    text = r.render_text()
    assert "undecided:            2 (budget 1 configurations per sentence, interpreted search)" in text
    assert "not derivable:        2 (all by proof from the spec)" in text
    assert "  undecided: sentence 2, 3 words" in text


def test_deep_derivation_does_not_hit_the_recursion_limit(systems_dir):
    """Covington attaches every word of a flat 46-word tree to word 1 only after
    NO-ARCs over all words between: a derivation of ~1000 steps, far deeper than the
    recursion limit set here.  The searches keep their own stacks."""
    n = 46
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        r = coverage(load_system(systems_dir / "covington.ts"), [(0,) + (1,) * (n - 1)])
    finally:
        sys.setrecursionlimit(before)
    assert r.derivable == 1 and r.per_sentence[0].reason is None


def test_max_len_skips_and_counts(systems_dir):
    r = coverage(load_system(systems_dir / "arc-eager.ts"), HAND, max_len=3)
    assert (r.sentences, r.skipped, r.words, r.derivable, r.not_derivable) == (3, 2, 7, 2, 1)
    assert (r.nonprojective_arcs, r.nonprojective_arcs_reached) == (2, 1)
    assert [v.status for v in r.per_sentence][2:] == ["skipped", "not derivable", "skipped"]


# ---- command line ------------------------------------------------------------------------


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json(capsys, systems_dir, hand_file):
    code, out, err = run(capsys, "coverage", systems_dir / "arc-eager.ts", hand_file, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["system"] == "arc_eager" and d["file"] == str(hand_file)
    assert (d["sentences"], d["derivable"], d["not_derivable"], d["undecided"]) == (5, 3, 2, 0)
    assert (d["nonprojective_arcs"], d["nonprojective_arcs_reached"]) == (5, 3)
    assert d["nps_share"] == pytest.approx(0.6) and d["budget"] > 0
    assert [s["status"] for s in d["per_sentence"]][2] == "not derivable"


def test_cli_limit_max_len_budget_set(capsys, systems_dir, hand_file):
    code, out, _ = run(capsys, "coverage", systems_dir / "attardi.ts", hand_file, "--json",
                       "--limit", "4", "--max-len", "3", "--budget", "inf", "--set", "N=1", "--interpreted")
    d = json.loads(out)
    assert code == 0 and d["budget"] is None
    assert (d["sentences"], d["skipped"], d["derivable"], d["not_derivable"]) == (3, 1, 2, 1)
    code, out, _ = run(capsys, "coverage", systems_dir / "attardi.ts", hand_file, "--json", "--set", "N=2")
    assert json.loads(out)["derivable"] == 5


def test_cli_text(capsys, systems_dir, hand_file):
    code, out, _ = run(capsys, "coverage", systems_dir / "arc-eager.ts", hand_file)
    assert code == 0
    assert "derivable:            3 / 5 (60.00%)" in out
    assert "non-projective arcs:  5, reached 3 (60.00% of decided)" in out
    # the budget the search had: the compiled search gets COMPILED_FACTOR times --budget (the
    # line used to say 20000 configurations, a thousandth of it)
    assert ("undecided:            0 (budget 20000000 configurations per sentence: the compiled search's, "
            "1000 x --budget 20000)") in out
    code, out, _ = run(capsys, "coverage", systems_dir / "arc-eager.ts", hand_file, "--interpreted", "--budget", "inf")
    assert code == 0 and "(no search budget: --budget inf)" in out


def test_cli_bad_conllu_is_located(capsys, systems_dir, tmp_path):
    p = tmp_path / "bad.conllu"
    p.write_text(to_conllu([(0, 1)]) + "1\tx\t_\tX\t_\t_\t2\tdep\t_\t_\n\n", encoding="utf-8")
    code, out, err = run(capsys, "coverage", systems_dir / "arc-eager.ts", p)
    assert code == 1 and out == ""
    assert err == f"{p}:5: HEAD 2 out of range 0..1\n"


@pytest.mark.parametrize("budget", ["0", "-3", "lots"])
def test_cli_bad_budget(capsys, systems_dir, hand_file, budget):
    with pytest.raises(SystemExit) as info:
        main(["coverage", str(systems_dir / "arc-eager.ts"), str(hand_file), "--budget", budget])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --budget: " in err and ("must be at least 1 or inf" in err or "expected an integer or inf" in err)


def test_an_empty_file_is_warned_of_as_parse_does(capsys, systems_dir, tmp_path):
    # trial 32: coverage printed `sentences: 0` with no word (parse warns of an empty input)
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    code, out, err = run(capsys, "coverage", systems_dir / "arc-eager.ts", empty)
    assert code == 0 and "sentences:" in out
    assert err == f"warning: {empty}: no sentence to check\n"
    # --deps refuses a file without enhanced dependencies, an empty one too (one message)
    code, out, err = run(capsys, "coverage", systems_dir / "dag.ts", empty, "--deps")
    assert code == 2 and err.count("\n") == 1 and "no enhanced dependencies" in err


# ---- arc-length limits proved from the guards; progress; Ctrl-C --------------------------------

TEST_SPECS = Path(__file__).resolve().parent / "data" / "specs"
WINDOW = TEST_SPECS / "covington-window-3.ts"


def _longest_built_arc(system, n: int) -> int:
    """The longest arc any configuration of an ``n``-word sentence holds, by walking every
    configuration in the interpreter: an independent witness of the proved limit."""
    from tsdsl import Interpreter

    it = Interpreter(system)
    start = it.initial(n)
    seen, todo, longest = set(), [start], 0
    while todo:
        c = todo.pop()
        key = repr(it.snapshot(c))
        if key in seen:
            continue
        seen.add(key)
        longest = max([longest] + [abs(h - d) for h, d in it.arcs_of(c)])
        for name in it.legal(c):
            child = it.copy(c)
            it.apply(child, name)
            todo.append(child)
    return longest


def test_a_window_in_the_guards_is_proved_an_arc_length_limit():
    """`j <= i + 3` on every arc of Covington, with λ1, λ2, β in sentence order (i before j):
    no arc longer than 3, and arcs of 3 are built (the limit is the window)."""
    from tsdsl.verify.arc_length import arc_length_limit, nonderivable_by_arc_length

    system = load_system(WINDOW)
    assert arc_length_limit(system) == 3
    assert [_longest_built_arc(system, n) for n in (2, 4, 6)] == [1, 3, 3]
    assert "gold arc 1 -> 5 spans 4 words" in nonderivable_by_arc_length(system, [0, 1, 1, 1, 1])
    assert nonderivable_by_arc_length(system, [0, 1, 1, 1]) is None   # 1 -> 4 spans 3: within the window


def test_no_arc_length_limit_without_both_directions(tmp_path, systems_dir):
    """A guard bounding j - i alone proves nothing when the order of i and j is not proved
    (here a SWAP-like action puts tokens out of order); the seed systems have no limit."""
    from tsdsl.verify.arc_length import arc_length_limit

    spec = tmp_path / "unordered.ts"
    spec.write_text(WINDOW.read_text(encoding="utf-8").replace(
        "  SHIFT     : (λ1, λ2, j|β)   => (λ1·λ2|j, [], β)\n",
        "  SHIFT     : (λ1, λ2, j|β)   => (λ1·λ2|j, [], β)\n"
        "  SWAP      : (λ1|i, λ2, j|β) => (λ1, λ2, j|i|β)  if not has_head(i)\n"), encoding="utf-8")
    assert arc_length_limit(load_system(spec)) is None
    one_sided = tmp_path / "one-sided.ts"
    one_sided.write_text(WINDOW.read_text(encoding="utf-8").replace("if not j ->* i and j <= i + 3",
                                                                    "if not j ->* i"), encoding="utf-8")
    assert arc_length_limit(load_system(one_sided)) is None   # RIGHT-ARC unbounded
    assert all(arc_length_limit(load_system(p)) is None for p in sorted(systems_dir.glob("*.ts")))


def test_coverage_decides_arcs_beyond_the_window_by_proof(tmp_path):
    """Before: a gold arc longer than the window sent the compiled search to its budget, and
    the sentence was called undecided after minutes; now it is not derivable, by proof."""
    long_arc = [0] + [1] * 5 + [6 + k for k in range(20)]   # 1 -> 6 spans 5 words
    report = coverage(load_system(WINDOW), [long_arc, [0, 1, 2, 3]], budget=10)
    first = report.per_sentence[0]
    assert first.status == "not derivable" and "builds no arc longer than 3" in first.proof
    assert report.per_sentence[1].status == "derivable"
    assert report.not_derivable_by_proof == 1 and report.undecided == 0


def test_an_interrupted_coverage_keeps_what_it_decided(systems_dir):
    """Ctrl-C while a sentence is searched: CoverageInterrupted carries the report of the
    sentences decided before it."""
    from tsdsl.verify.coverage import CoverageInterrupted

    def trees():
        yield [0, 1]
        yield [2, 0]
        raise KeyboardInterrupt

    with pytest.raises(CoverageInterrupted) as stop:
        coverage(load_system(systems_dir / "arc-eager.ts"), trees())
    report = stop.value.report
    assert report.interrupted and report.sentences == 2 and report.derivable == 2
    assert "interrupted:          after 2 sentences (Ctrl-C)" in report.render_text()
    assert report.to_dict()["interrupted"] is True


def test_ctrl_c_during_a_long_compiled_search_prints_the_partial_report(tmp_path):
    """A sentence the compiled search works on for seconds (arc-swift k <= 6, a deep chain it
    cannot derive, which no proof decides): SIGINT stops the search within it, the report of
    the sentences before is printed, and the exit status is 130."""
    import signal
    import subprocess
    import time

    from tsdsl.kernels import compile_system

    system = load_system(TEST_SPECS / "arc-swift-6.ts")
    compile_system(system, fallback=False, profile="explore")   # built before the clock starts
    deep = [0, 1, 2, 3, 4, 5, 6, 1] + [8 + k for k in range(30)]
    data = tmp_path / "deep.conllu"
    data.write_text(to_conllu([(0, 1, 1), tuple(deep), (0, 1)]), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "tsdsl.cli", "coverage", str(TEST_SPECS / "arc-swift-6.ts"), str(data),
                             "--progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline()   # the first sentence's verdict: the deep one is being searched
    assert ": derivable" in first, first
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    t0 = time.perf_counter()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert time.perf_counter() - t0 < 10   # within the search, not after its 20 million configurations
    assert "sentences:            1\n" in out and "interrupted:          after 1 sentence (Ctrl-C)" in out
    assert "the report covers the first 1 of 3 sentences" in err and "Traceback" not in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_status_line_moves_while_a_step_runs():
    """On a terminal the line is redrawn every tick while the caller is busy, and rubbed out
    at the end; elsewhere it writes a plain line every log_every seconds."""
    from tsdsl.cli.status import StatusLine

    ticks = []
    term = _Terminal()
    with StatusLine(term, lambda: ticks.append(1) or f"step {len(ticks)}", tick=0.01):
        time.sleep(0.2)
    assert len(ticks) >= 3 and "\rstep 1" in term.getvalue() and "\rstep 3" in term.getvalue()
    assert term.getvalue().endswith("\r")
    log = io.StringIO()
    with StatusLine(log, lambda: "working", log_every=0.01):
        time.sleep(0.1)
    assert log.getvalue().startswith("working\n")


def test_coverage_status_names_the_sentence_being_searched(capsys, tmp_path):
    from tsdsl.cli.checks import _CoverageWatch
    from tsdsl.verify.coverage import SentenceCoverage

    watch = _CoverageWatch("x.conllu", 3, every=False)
    watch.done(SentenceCoverage(0, 1, None, 4, True, "derivable"))
    watch.starting(1, 9, 38)
    text = watch.describe()
    assert text.startswith("coverage: 1/3 sentences (1 derivable, 0 not, 0 undecided); x.conllu:9: 38 words, "
                           "searching for ")
