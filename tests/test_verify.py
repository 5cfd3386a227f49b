"""`tsdsl verify`: pinned verdicts of shipped systems, and deliberately broken specs.

Each broken spec (written to tmp_path, most of them extending a real system) must
fail exactly the property it breaks, at the smallest sentence length where it
can, with a counterexample whose trace names the actions.  Small bounds keep it
fast: exhaustive up to n = 4, 10 Hypothesis examples up to n = 6.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tsdsl import load_system
from tsdsl.cli import main
from tsdsl.verify.verifier import PROPERTIES, longest_fit, render_verdict, verify_system

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"
SPECS = sorted(SYSTEMS.glob("*.ts"))

SMALL = dict(max_n=4, random_max_n=6, examples=10)

_VERDICTS: dict[str, object] = {}


def verdict(stem: str):
    """The verdict of a shipped system (computed once per session)."""
    if stem not in _VERDICTS:
        _VERDICTS[stem] = verify_system(load_system(SYSTEMS / f"{stem}.ts"), **SMALL)
    return _VERDICTS[stem]


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text.replace("SYSTEMS", str(SYSTEMS)), encoding="utf-8")
    return p


def holds(v) -> dict[str, bool | None]:
    return {p: v.properties[p].holds for p in PROPERTIES}


# ---- pinned verdicts of shipped systems ------------------------------------------------


def test_arc_standard_holds_everything_in_2n_minus_1():
    v = verdict("arc-standard")
    assert v.ok
    assert holds(v) == {p: True for p in PROPERTIES}
    assert v.exhaustive_up_to == 4
    assert [(s.n, s.longest) for s in v.sizes] == [(0, 0), (1, 1), (2, 3), (3, 5), (4, 7)]
    assert "longest derivation measured (n:longest 1:1, 2:3, 3:5, 4:7), fits 2n - 1 for n = 1..4" in v.properties["termination"].detail
    # every projective tree is derived: 1, 2, 7, 30 of them for n = 1..4
    assert [(s.class_trees, s.derivable_class_trees) for s in v.sizes[1:]] == [(1, 1), (2, 2), (7, 7), (30, 30)]


def test_arc_eager_is_unsound_at_n1():
    v = verdict("arc-eager")
    assert holds(v) == {"soundness": False, "completeness": True, "progress": True, "termination": True}
    cx = v.properties["soundness"].counterexample
    assert (cx.n, cx.actions, cx.output) == (1, ["SHIFT"], [None])
    assert "without a head" in cx.note
    assert "SHIFT" in cx.trace and "(terminal)" in cx.trace


def test_arc_eager_root_heuristic_is_sound():
    v = verdict("arc-eager-root-heuristic")
    assert v.ok
    assert v.properties["soundness"].holds is True
    assert v.properties["soundness"].counterexample is None


def test_arc_eager_unshift_progress_fails_at_n2():
    v = verdict("arc-eager-unshift")
    assert v.properties["progress"].holds is False
    cx = v.properties["progress"].counterexample
    assert (cx.n, cx.actions) == (2, ["SHIFT", "UNSHIFT"])
    assert "no legal action" in cx.note
    assert "UNSHIFT" in cx.trace
    assert v.properties["termination"].holds is True  # the shifted flag stops the loops
    assert [s.dead_ends for s in v.sizes][:2] == [0, 0]  # no dead end at n = 0, 1


def test_covington_longest_derivation_is_quadratic():
    v = verdict("covington")
    assert v.ok
    assert [s.longest for s in v.sizes[1:]] == [n * (n + 1) // 2 for n in range(1, 5)]
    assert v.longest_fit == {"formula": "(1/2)n^2 + (1/2)n", "n": [1, 4]}
    assert "fits (1/2)n^2 + (1/2)n for n = 1..4" in v.properties["termination"].detail


def test_a_measured_longest_derivation_is_never_printed_as_a_bound():
    from tsdsl.verify.verifier import SizeStats

    sizes = [SizeStats(n, 0, 0, 0, 0, 0, l) for n, l in [(1, 1), (2, 2), (3, 4), (4, 6)]]
    assert longest_fit(sizes) is None  # 1, 2, 4, 6 fit no one polynomial of degree <= 2
    assert longest_fit(sizes[:3]) is None  # three lengths always fit: not evidence
    # 4n - 6 from n = 3 on: the fit names the lengths it was measured on, not all of them
    sizes = [SizeStats(n, 0, 0, 0, 0, 0, l) for n, l in [(1, 1), (2, 3), (3, 6), (4, 10), (5, 14), (6, 18)]]
    assert longest_fit(sizes) == {"formula": "4n - 6", "n": [3, 6]}


TEST_SPECS = Path(__file__).resolve().parent / "data" / "specs"


def test_a_window_bounded_covington_gets_no_completeness_verdict_and_no_bound():
    """`covers any`: completeness is skipped, and says why; the termination line gives the
    measured longest derivations (4n - 6 from n = 3), a fit on them, and no bound."""
    v = verify_system(load_system(TEST_SPECS / "covington-window-3.ts"), max_n=6, examples=5)
    c = v.properties["completeness"]
    assert c.status == "skipped" and c.holds is None and "covers any" in c.detail and "is derivable" not in c.detail
    assert v.ok
    t = v.properties["termination"]
    assert t.holds and "<=" not in t.detail.split("actions")[-1]
    assert [s.longest for s in v.sizes if s.n >= 3] == [4 * s.n - 6 for s in v.sizes if s.n >= 3]
    assert "fits 4n - 6 for n = 3..6" in t.detail
    d = v.to_dict()["properties"]
    assert d["completeness"]["status"] == "skipped" and d["completeness"]["basis"] is None
    assert d["termination"]["basis"]["proved"] is False and d["termination"]["basis"]["exhaustive_n"] == 6
    assert "completeness  skipped" in render_verdict(v)


def test_arc_swift_k6_is_held_complete_only_as_far_as_checked():
    """Complete for n <= 7 (exhaustively) and on random trees beyond, which never draw the deep
    chain: the verdict says so and claims no proof.  The 8-word chain 1 -> 2 -> ... -> 7 with
    1 -> 8 is not derivable: the derivation search on that tree finds none."""
    system = load_system(TEST_SPECS / "arc-swift-6.ts")
    v = verify_system(system, max_n=5, random_max_n=9, examples=5)
    c = v.properties["completeness"]
    assert c.holds and c.basis["proved"] is False and c.basis["exhaustive_n"] == 5
    assert c.basis["random"]["n"] == [6, 9]
    assert "n <= 5 exhaustively" in c.detail and "not a proof" in c.detail
    from tsdsl.kernels import compile_system

    kernel = compile_system(system, fallback=False, profile="explore")
    deep = [0, 1, 2, 3, 4, 5, 6, 1]  # heads of words 1..8
    shallow = [0, 1, 2, 3, 4, 5, 1]  # the same shape over 7 words: within reach
    found = kernel.derive([deep, shallow], budget=10 ** 6)
    assert list(found.status) == [found.NOT_DERIVABLE, found.DERIVED]


# ---- deliberately broken specs -------------------------------------------------------------

# (a) REDUCE without `if has_head(s)`.  Plain arc-eager is already unsound at n = 1
# (test_arc_eager_is_unsound_at_n1), so the guard is removed from arc-eager-slp,
# whose terminal needs the stack reduced to the root and which is sound as shipped.
UNGUARDED_REDUCE = """\
system broken_reduce "arc-eager-slp whose REDUCE lacks its guard"
  extends  "SYSTEMS/arc-eager-slp.ts"
  REDUCE    : (σ|s, β)   => (σ, β)
"""

# (b) arc-eager without RIGHT-ARC: nothing can attach a word to a word on its left.
NO_RIGHT_ARC = """\
system no_right_arc "arc-eager without RIGHT-ARC"
  extends  "SYSTEMS/arc-eager.ts"
  drop RIGHT-ARC
"""

NO_RIGHT_ARC_HEURISTIC = """\
system no_right_arc_heuristic "arc-eager with the root heuristic, without RIGHT-ARC"
  extends  "SYSTEMS/arc-eager-root-heuristic.ts"
  drop RIGHT-ARC
"""

# (c) SHIFT and an UNSHIFT with no flag to stop them: SHIFT, UNSHIFT, SHIFT, ...
LOOPING_UNSHIFT = """\
system looping_unshift "arc-eager with an UNSHIFT that can loop"
  extends  "SYSTEMS/arc-eager-root-heuristic.ts"
  UNSHIFT   : (σ|s, β)   => (σ, s|β)   if not is_root(s)
"""

# (d) a dead end: arcs need a third word on the stack, so two words and an empty
# buffer are stuck (n = 1 is fine: one word on the stack is terminal).
DEAD_END = """\
system dead_end "rootless arc-standard whose arcs need three words on the stack"
  produces projective
  root     none
  lists    σ, β
  initial  ([], [1..n])
  terminal ([w], [])
  SHIFT     : (σ, b|β)     => (σ|b, β)
  LEFT-ARC  : (σ|t|s, β)   => (σ|s, β)   arc s -> t   if len(σ) >= 3
  RIGHT-ARC : (σ|t|s, β)   => (σ|t, β)   arc t -> s   if len(σ) >= 3
"""


def verify_text(tmp_path: Path, name: str, text: str, **kw):
    return verify_system(load_system(write(tmp_path, name, text)), **{**SMALL, **kw})


def test_sound_baseline_of_broken_reduce():
    v = verify_system(load_system(SYSTEMS / "arc-eager-slp.ts"), max_n=4, examples=0)
    assert v.properties["soundness"].holds is True


def test_broken_reduce_is_unsound(tmp_path):
    # examples=0: the exhaustive part alone finds the counterexample
    v = verify_text(tmp_path, "broken-reduce.ts", UNGUARDED_REDUCE, examples=0)
    r = v.properties["soundness"]
    assert r.holds is False
    cx = r.counterexample
    assert cx.n == 1
    assert cx.actions == ["SHIFT", "REDUCE"]
    assert cx.output == [None]
    assert "word(s) 1 without a head" in cx.note
    lines = cx.trace.splitlines()
    assert "REDUCE" in lines[2] and "SHIFT" in lines[1] and "(terminal)" in lines[-1]
    text = render_verdict(v)
    assert "counterexample (soundness), n = 1:" in text
    assert "actions: SHIFT REDUCE" in text


# Regression: Hypothesis used to raise an ExceptionGroup out of verify_system when the
# random checks found two distinct failures (progress and soundness here).
def test_random_checks_with_two_kinds_of_failure(tmp_path):
    v = verify_text(tmp_path, "broken-reduce.ts", UNGUARDED_REDUCE, max_n=1, random_max_n=3)
    assert v.properties["soundness"].holds is False or v.properties["progress"].holds is False
    assert all(p.counterexample is not None for p in v.properties.values() if p.holds is False)


@pytest.mark.parametrize("text,n,gold,actions", [
    (NO_RIGHT_ARC, 1, [0], ["SHIFT"]),
    (NO_RIGHT_ARC_HEURISTIC, 2, [0, 1], ["SHIFT", "SHIFT"]),
], ids=["arc-eager", "root-heuristic"])
def test_missing_right_arc_is_incomplete(tmp_path, text, n, gold, actions):
    v = verify_text(tmp_path, "no-right-arc.ts", text)
    r = v.properties["completeness"]
    assert r.holds is False
    cx = r.counterexample
    assert (cx.n, cx.gold) == (n, gold)  # the smallest tree that needs a rightward arc
    assert cx.actions == actions  # the closest reachable output
    assert "misses 1 arc(s)" in cx.note
    assert all(a in cx.trace for a in actions)
    text_out = render_verdict(v)
    assert f"gold heads: {' '.join(map(str, gold))}" in text_out
    assert v.sizes[n].derivable_class_trees < v.sizes[n].class_trees
    assert all(s.derivable_class_trees == s.class_trees for s in v.sizes[:n])


def test_looping_unshift_does_not_terminate(tmp_path):
    v = verify_text(tmp_path, "loop.ts", LOOPING_UNSHIFT)
    r = v.properties["termination"]
    assert r.holds is False
    cx = r.counterexample
    assert cx.n == 2  # at n = 1 SHIFT empties the buffer: terminal, no room to UNSHIFT
    assert cx.actions == ["SHIFT", "UNSHIFT"]
    assert "repeats after SHIFT UNSHIFT" in cx.note
    lines = cx.trace.splitlines()
    # the trace ends where it started: the last configuration is the first one
    assert lines[1].split()[1:3] == lines[-1].split()[1:3]
    assert "UNSHIFT" in cx.trace
    assert v.longest_ratio is None or all(s.longest is None for s in v.sizes if s.n >= 2)
    assert "no cycles" not in r.detail


def test_dead_end_breaks_progress(tmp_path):
    v = verify_text(tmp_path, "dead.ts", DEAD_END)
    r = v.properties["progress"]
    assert r.holds is False
    cx = r.counterexample
    assert (cx.n, cx.actions) == (2, ["SHIFT", "SHIFT"])
    assert cx.note == "no legal action in a non-terminal configuration"
    assert "SHIFT" in cx.trace
    assert [s.dead_ends for s in v.sizes[:3]] == [0, 0, 1]
    assert v.properties["termination"].holds is True


# ---- CLI ------------------------------------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_verify_json(capsys):
    code, out, err = run(capsys, "verify", "--json", "--max-n", "3", "--examples", "5", "--random-max-n", "4",
                         str(SYSTEMS / "arc-standard.ts"), str(SYSTEMS / "arc-eager.ts"))
    assert code == 1  # arc-eager fails soundness
    data = json.loads(out)
    assert [d["system"] for d in data] == ["arc_standard", "arc_eager"]
    assert [d["ok"] for d in data] == [True, False]
    sound = data[1]["properties"]["soundness"]
    assert sound["holds"] is False
    assert sound["counterexample"]["actions"] == ["SHIFT"]
    assert set(data[0]["properties"]) == set(PROPERTIES)


def test_cli_verify_text_exit_codes(capsys, tmp_path):
    code, out, _ = run(capsys, "verify", "--max-n", "3", "--examples", "0", str(SYSTEMS / "arc-standard.ts"))
    assert code == 0 and "termination   holds" in out
    code, out, _ = run(capsys, "verify", "--max-n", "3", "--examples", "0", str(write(tmp_path, "d.ts", DEAD_END)))
    assert code == 1
    assert "progress      FAILS" in out and "actions: SHIFT SHIFT" in out


def test_cli_verify_report(capsys, tmp_path):
    report = tmp_path / "out" / "verification.md"
    specs = [str(p) for p in SPECS]
    code, out, err = run(capsys, "verify", "--report", str(report), "--max-n", "3", "--examples", "0", *specs)
    assert code == 0  # with --report the table is the product, failures or not
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# Verification verdicts")
    assert "| system | class (covers) | paper's claim | sound | complete | progress | terminates |" in text
    rows = [l for l in text.splitlines() if l.startswith("| `")]
    for p in SPECS:
        assert any(l.startswith(f"| `{p.name}` |") for l in rows), p.name
    eager = next(l for l in rows if l.startswith("| `arc-eager.ts` |"))
    assert "**no** (n = 1)" in eager
    assert "## Counterexamples" in text and "### `arc-eager.ts`" in text
    # the table is also printed as text per system
    assert out.count("soundness") >= len(SPECS)


def test_random_cases_are_counted_per_check_not_with_the_shrinking():
    # --examples is per random check (two here); a check that fails (arc-eager's soundness:
    # words left without a head) is then shrunk by Hypothesis, which the count leaves out
    for spec in ("arc-eager.ts", "covington.ts"):
        v = verify_system(load_system(SYSTEMS / spec), max_n=3, random_max_n=8, examples=5)
        assert 1 <= v.random_examples <= 2 * 5, (spec, v.random_examples)
        assert v.random_trees <= 5 and v.random_derivations <= 5
        assert v.random_examples == v.random_trees + v.random_derivations


def test_each_property_line_counts_the_cases_of_its_own_check(capsys):
    """`--examples 5` printed "10 random cases" on every line (both checks' cases together),
    while cli.md said "at most --examples per check"."""
    code, out, _ = run(capsys, "verify", "--max-n", "3", "--examples", "5", "--random-max-n", "6",
                       str(SYSTEMS / "arc-hybrid.ts"))
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()[1:5]}
    assert lines["completeness"].endswith("(n <= 3 exhaustively; 5 random trees for n = 4..6, not a proof)")
    for p in ("soundness", "progress"):
        assert lines[p].endswith("(n <= 3 exhaustively; 5 random derivations for n = 4..6, not a proof)"), lines[p]
    assert "random cases" not in out
    code, out, _ = run(capsys, "verify", "--json", "--max-n", "3", "--examples", "5", "--random-max-n", "6",
                       str(SYSTEMS / "arc-hybrid.ts"))
    doc = json.loads(out)[0]
    assert (doc["random_trees"], doc["random_derivations"], doc["random_examples"]) == (5, 5, 10)


def test_cli_verify_report_records_the_whole_command_line(capsys, tmp_path):
    """The report said `Generated by tsdsl verify --report FILE SPEC...` without the options
    used (`--max-n`, `--examples`): it quotes the command as given, shell-quoted."""
    report = tmp_path / "my report.md"
    code, _, _ = run(capsys, "verify", "--report", str(report), "--max-n", "2", "--examples", "0", "arc-standard")
    assert code == 0
    line = report.read_text(encoding="utf-8").splitlines()[2]
    quoted = shlex.quote(str(report))
    assert quoted.startswith("'")  # the space is quoted, so the line can be run again
    assert line.startswith(f"Generated by `tsdsl verify --report {quoted} --max-n 2 --examples 0 arc-standard` (")
