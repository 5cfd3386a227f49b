"""The command line, driven through ``tsdsl.cli.main`` with captured output.

Covers ``check`` (OK lines, exit codes, located errors without tracebacks),
``show`` (``--set`` overrides, ``--json`` for every shipped spec) and ``trace``
(an illegal action exits non-zero and names the legal ones).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tsdsl import load_system
from tsdsl.cli import main

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ROOT / "systems"
SPECS = sorted(SYSTEMS.glob("*.ts"))

BAD_GUARD = """\
system bad
  lists σ, β
  terminal (σ, [])
  SHIFT : (σ, b|β) => (σ|b, β) if has_hed(b)
"""

BAD_SYNTAX = """\
system bad
  lists σ, β
  terminal (σ, [])
  SHIFT : (σ, b|β) (σ|b, β)
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- check -----------------------------------------------------------------------


def test_check_ok(capsys):
    path = str(SYSTEMS / "arc-eager.ts")
    code, out, err = run(capsys, "check", path)
    assert code == 0
    assert out == f"{path}: OK (rewrite, 4 actions)\n"
    assert err == ""


def test_check_all_seed_specs_ok(capsys):
    paths = [str(p) for p in SPECS]
    code, out, err = run(capsys, "check", *paths)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == len(paths)
    for path, line in zip(paths, lines):
        assert line.startswith(f"{path}: OK (")


def test_check_unbounded_says_actions_grow(capsys):
    path = str(SYSTEMS / "easy-first.ts")
    code, out, _ = run(capsys, "check", path)
    assert code == 0
    assert out == f"{path}: OK (control-parameters, actions grow with the sentence)\n"


def test_check_bad_spec_is_located_and_has_no_traceback(capsys, tmp_path):
    bad = tmp_path / "bad.ts"
    bad.write_text(BAD_GUARD, encoding="utf-8")
    code, out, err = run(capsys, "check", str(bad))
    assert code == 1
    assert out == ""
    assert f"{bad}:4:35: error[TS212]: unknown guard function 'has_hed'" in err
    assert "SHIFT : (σ, b|β) => (σ|b, β) if has_hed(b)" in err  # the source line
    assert "^" in err  # and a caret under it
    assert "Traceback" not in err


def test_check_syntax_error_is_located(capsys, tmp_path):
    bad = tmp_path / "syntax.ts"
    bad.write_text(BAD_SYNTAX, encoding="utf-8")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 1
    assert f"{bad}:4:20: error[TS100]: " in err
    assert "unexpected '('" in err
    assert "    expected one of: '=>'" in err
    assert "Traceback" not in err


def test_syntax_label_in_first_statement(capsys, tmp_path):
    bad = tmp_path / "first.ts"
    bad.write_text("system bad\n  SHIFT : (σ, b|β) (σ|b, β)\n", encoding="utf-8")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 1
    assert f"{bad}:2:20: error[TS100]: missing `=>` between the two sides of a rewrite rule (unexpected '(')" in err


def test_syntax_label_in_later_statement(capsys, tmp_path):
    bad = tmp_path / "syntax.ts"
    bad.write_text(BAD_SYNTAX, encoding="utf-8")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 1
    assert "missing `=>` between the two sides of a rewrite rule" in err


def test_check_goes_on_after_a_bad_spec(capsys, tmp_path):
    bad = tmp_path / "bad.ts"
    bad.write_text(BAD_GUARD, encoding="utf-8")
    good = str(SYSTEMS / "covington.ts")
    code, out, err = run(capsys, "check", str(bad), good)
    assert code == 1
    assert out == f"{good}: OK (rewrite, 4 actions)\n"
    assert "TS212" in err


def test_check_missing_file(capsys, tmp_path):
    missing = tmp_path / "nope.ts"
    code, out, err = run(capsys, "check", str(missing))
    assert code == 1
    assert "error[TS001]: no such spec file" in err
    assert "Traceback" not in err


def test_show_bad_spec_exits_1(capsys, tmp_path):
    bad = tmp_path / "bad.ts"
    bad.write_text(BAD_GUARD, encoding="utf-8")
    code, out, err = run(capsys, "show", str(bad))
    assert code == 1
    assert out == ""
    assert f"{bad}:4:35: error[TS212]" in err


# ---- show and --set ----------------------------------------------------------------


def test_show_text_lists_actions_with_locations(capsys):
    path = SYSTEMS / "arc-eager-nm-2013.ts"
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0
    assert out.startswith("system arc_eager_nm_2013: Non-monotonic arc-eager (Honnibal et al. 2013)\n")
    assert "actions: 4\n" in out
    line = next(k for k, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if text.lstrip().startswith("LEFT-ARC"))
    assert out.splitlines()[1] == f"  file       {path}"
    assert f"  LEFT-ARC   [line {line}]" in out
    assert str(path.parent) not in out.split("\n", 2)[2]  # the folder once, in the header only
    assert "      arc       b -> s  overwrite" in out
    assert "    case 2: (sigma|t|s, beta) => (sigma|t, beta)" in out
    assert "      implicit  not is_root(s) and not has_head(s)" in out


def test_show_text_names_the_file_once_and_inherited_actions_relative_to_it(capsys):
    """The full path of a spec printed on every action line was noise: the header names the
    spec (and what it extends) once; an inherited action says which file, relative to it.
    --json keeps the full origins."""
    path = SYSTEMS / "arc-eager-slp.ts"
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0
    assert out.splitlines()[1] == f"  file       {path} (extends arc-eager.ts)"
    line = next(k for k, text in enumerate((SYSTEMS / "arc-eager.ts").read_text(encoding="utf-8").splitlines(), 1)
                if text.lstrip().startswith("SHIFT"))
    assert f"  SHIFT   [arc-eager.ts:{line}]" in out
    assert out.count(str(SYSTEMS)) == 1
    code, out, _ = run(capsys, "show", "--json", str(path))
    shift = next(a for a in json.loads(out)["actions"] if a["name"] == "SHIFT")
    assert shift["origin"] == f"packaged:arc-eager.ts:{line}"  # stable: its place in the packaged folder


def _show_json(capsys, spec, cwd, monkeypatch) -> dict:
    monkeypatch.chdir(cwd)
    code, out, err = run(capsys, "show", "--json", spec)
    assert code == 0, err
    return json.loads(out)


def test_show_json_is_versioned_and_the_same_from_any_directory(capsys, monkeypatch, tmp_path):
    """A trial: `show --json` had no format key and named files by absolute paths, so a
    packaged spec showed a site-packages path and the JSON changed with the directory."""
    from tsdsl.show import JSON_FORMAT

    packaged = _show_json(capsys, "arc-eager-slp", tmp_path, monkeypatch)
    assert list(packaged)[0] == "format" and packaged["format"] == JSON_FORMAT == 1
    assert packaged["source"]["file"] == "packaged:arc-eager-slp.ts"
    assert packaged["source"]["chain"] == ["packaged:arc-eager.ts", "packaged:arc-eager-slp.ts"]
    assert all(a["origin"].startswith("packaged:arc-eager") for a in packaged["actions"])
    spec = tmp_path / "mine" / "slp.ts"
    spec.parent.mkdir()
    spec.write_text((SYSTEMS / "arc-eager-slp.ts").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    here = _show_json(capsys, "slp.ts", spec.parent, monkeypatch)
    there = _show_json(capsys, "../../mine/slp.ts", tmp_path / "deep" / "er", monkeypatch)
    absolute = _show_json(capsys, str(spec), "/", monkeypatch)
    assert here == there == absolute
    assert here["source"]["file"] == "slp.ts" and here["source"]["chain"] == ["packaged:arc-eager.ts", "slp.ts"]
    assert str(tmp_path) not in json.dumps(here)


def test_every_node_kind_of_show_json_is_documented(capsys):
    """docs/cli.md documents the JSON layout: every key, predicate op and match item that the
    JSON of any shipped spec (and the predicate renderer) can contain is named there."""
    import inspect

    from tsdsl.ir import walk

    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = section[section.index("### `tsdsl show SPEC"):section.index("### `tsdsl trace SPEC")]
    ops = set(re.findall(r'return \["(\w+)"', inspect.getsource(walk._Json)))
    assert {"has_head", "global_flag", "token_flag", "arc", "path", "connected", "len", "cmp", "in"} <= ops
    keys: set[str] = set()

    def collect(node) -> None:
        if isinstance(node, dict):
            keys.update(k for k in node if not k.isupper() and k not in names)
            for k, v in node.items():
                collect(v)
        elif isinstance(node, list):
            for v in node:
                collect(v)

    for spec in SPECS:
        code, out, _ = run(capsys, "show", "--json", str(spec))
        data = json.loads(out)
        # keys that are names from the spec (lists, params, flags) are not layout
        names = ({d["name"] for d in data["lists"]} | set(data["params"]) | set(data["token_flags"])
                 | set(data["global_flags"]))
        collect(data)
    missing = sorted(k for k in ops | keys if f"`{k}`" not in section and f'"{k}"' not in section)
    assert not missing, f"docs/cli.md does not document these show --json keys or ops: {missing}"


def test_set_K_changes_show(capsys):
    path = str(SYSTEMS / "easy-first-bounded.ts")
    code, default, _ = run(capsys, "show", path)
    assert code == 0
    code, k4, _ = run(capsys, "show", path, "--set", "K=4")
    assert code == 0
    assert default != k4
    assert "  params     D=1, K=3\n" in default and "actions: 5\n" in default
    assert "  params     D=1, K=4\n" in k4 and "actions: 7\n" in k4
    assert "LEFT-ARC(4,3)" in k4 and "LEFT-ARC(4,3)" not in default
    # `capacity` is an alias of K
    code, cap4, _ = run(capsys, "show", path, "--set", "capacity=4")
    assert code == 0 and cap4 == k4


def test_set_param_changes_derived_settings(capsys):
    code, out, _ = run(capsys, "show", str(SYSTEMS / "attardi.ts"), "--set", "N=3")
    assert code == 0
    assert "  params     D=3, K=4, N=3\n" in out
    assert "actions: 7\n" in out


def test_set_unknown_param_exits_2(capsys):
    code, out, err = run(capsys, "show", str(SYSTEMS / "easy-first-bounded.ts"), "--set", "X=1")
    assert code == 2
    assert out == ""
    assert err.strip() == "tsdsl: --set: unknown parameter 'X' for easy_first_bounded; known: D, K, start"


def test_set_bad_value_exits_2(capsys):
    code, _, err = run(capsys, "show", str(SYSTEMS / "easy-first-bounded.ts"), "--set", "K=four")
    assert code == 2
    assert "expected an integer or inf" in err


def test_set_on_check(capsys):
    path = str(SYSTEMS / "easy-first-bounded.ts")
    code, out, _ = run(capsys, "check", path, "--set", "K=4")
    assert code == 0
    assert out == f"{path}: OK (control-parameters, 7 actions)\n"


@pytest.mark.parametrize("spec", SPECS, ids=[p.stem for p in SPECS])
def test_show_json_every_spec(capsys, spec):
    code, out, err = run(capsys, "show", "--json", str(spec))
    assert code == 0, err
    data = json.loads(out)
    system = load_system(spec)
    assert data["name"] == system.name
    assert data["style"] in ("control-parameters", "rewrite")
    assert [d["name"] for d in data["lists"]] == [d.name for d in system.lists]
    expected = system.actions_for(6) if system.unbounded else system.actions
    assert [a["name"] for a in data["actions"]] == [a.name for a in expected]
    for got, want in zip(data["actions"], expected):
        assert len(got["cases"]) == len(want.cases) >= 1
        for case in got["cases"]:
            assert set(case) >= {"match", "guard", "implicit", "arcs", "result", "sets", "origin"}
            assert set(case["result"]) == {d.name for d in system.lists}
        assert got["origin"].rsplit(":", 1)[0] in data["source"]["chain"]
    if system.unbounded:
        assert data["unbounded"] is True and data["instantiated_for_tokens"] == 6


def test_show_json_n_instantiates_unbounded(capsys):
    code, out, _ = run(capsys, "show", "--json", str(SYSTEMS / "easy-first.ts"), "--n", "5")
    assert code == 0
    data = json.loads(out)
    assert data["instantiated_for_tokens"] == 5
    # LEFT-ARC(i,i-1) and RIGHT-ARC(i,i-1) for i = 2..5
    assert [a["name"] for a in data["actions"]] == (
        [f"LEFT-ARC({i},{i - 1})" for i in range(2, 6)] + [f"RIGHT-ARC({i},{i - 1})" for i in range(2, 6)]
    )


# ---- trace ------------------------------------------------------------------------------


def test_trace_ok_prints_heads(capsys):
    code, out, err = run(
        capsys, "trace", str(SYSTEMS / "arc-eager-slp.ts"), "--words", "Book the flight through Houston",
        "--actions", "RIGHT-ARC SHIFT LEFT-ARC RIGHT-ARC SHIFT LEFT-ARC RIGHT-ARC REDUCE REDUCE REDUCE",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["step", "sigma", "beta", "action", "arc", "added"]
    assert "(terminal)" in lines[-2]
    assert lines[-1] == "heads: 0 3 1 5 3"


def test_trace_not_terminal_names_next_actions(capsys):
    code, out, _ = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--n", "2", "--actions", "SHIFT")
    assert code == 0
    assert "[root, w1]" in out
    assert out.splitlines()[-1] == "(not terminal; legal next: SHIFT, LEFT-ARC, RIGHT-ARC)"


def test_trace_illegal_action_exits_nonzero_and_names_legal(capsys):
    code, out, err = run(
        capsys, "trace", str(SYSTEMS / "arc-eager-slp.ts"), "--words", "Book the flight",
        "--actions", "SHIFT REDUCE",
    )
    assert code != 0
    assert err.strip() == "tsdsl: step 1: REDUCE is not legal (legal here: SHIFT, LEFT-ARC, RIGHT-ARC)"
    assert "Traceback" not in err
    # the steps done so far are still printed
    assert "[root, Book]" in out


def test_trace_after_terminal_exits_nonzero(capsys):
    code, _, err = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--words", "a b",
                       "--actions", "SHIFT,SHIFT,SHIFT")
    assert code != 0
    assert "step 2: SHIFT is not legal (the configuration is terminal)" in err


def test_trace_labels(capsys):
    code, out, _ = run(capsys, "trace", str(SYSTEMS / "arc-eager.ts"), "--words", "a b",
                       "--actions", "SHIFT RIGHT-ARC:obj")
    assert code == 0
    assert "a -obj-> b" in out
    assert out.splitlines()[-2:] == ["heads: _ 1", "labels: _ obj"]


def test_trace_actions_file(capsys, tmp_path):
    f = tmp_path / "actions.txt"
    f.write_text("SHIFT SHIFT SHIFT LEFT-ARC SHIFT\nSHIFT LEFT-ARC RIGHT-ARC RIGHT-ARC RIGHT-ARC\n", encoding="utf-8")
    code, out, _ = run(capsys, "trace", str(SYSTEMS / "arc-standard-slp.ts"),
                       "--words", "Book the flight through Houston", "--actions-file", str(f))
    assert code == 0
    assert out.splitlines()[-1] == "heads: 0 3 1 5 3"


def test_trace_indexed_action_names(capsys):
    # commas separate actions, except inside an index list such as LEFT-ARC(3,2)
    code, out, err = run(capsys, "trace", str(SYSTEMS / "easy-first.ts"), "--words", "a b c",
                         "--actions", "LEFT-ARC(3,2), RIGHT-ARC(2, 1):dep")
    assert code == 0, err
    assert "LEFT-ARC(3,2)" in out and "b -> a" in out
    assert "RIGHT-ARC(2,1):dep" in out and "b -dep-> c" in out
    # the last word standing goes to the root by the spec's end rule, which no row shows
    assert out.splitlines()[-3:] == ["heads: 2 0 2", "labels: _ root dep",
                                     "finally (the spec's end rule): root -root-> b"]


def test_systems_lists_every_packaged_spec_by_a_name_commands_accept(capsys):
    code, out, _ = run(capsys, "systems")
    assert code == 0
    names = [line.split(":")[0] for line in out.splitlines() if not line.startswith(" ")]
    assert names == sorted(p.stem for p in SPECS)
    arc_eager = load_system("systems/arc-eager.ts")
    assert f"arc-eager: {arc_eager.title}   [oracle: goldberg_nivre_2012]\n    {arc_eager.claim}\n" in out
    # which specs declare an oracle block, and which do not (derive-oracle, search)
    assert f"attardi: {load_system('systems/attardi.ts').title}   [oracle: none]\n" in out
    code, out, _ = run(capsys, "check", names[0])  # the name alone, from any directory
    assert code == 0 and out.startswith(f"{names[0]}: OK")


def test_systems_with_readings_names_them_under_readings(capsys):
    _, out, _ = run(capsys, "systems", "--readings")
    readings = sorted(p.stem for p in (SYSTEMS / "readings").glob("*.ts"))
    assert [line.split(":")[0][len("readings/"):] for line in out.splitlines()
            if line.startswith("readings/")] == readings


@pytest.mark.parametrize("not_derived, over_budget, graphs, note", [
    (0, 0, False, ""),
    (1, 0, False, " (1 tree without a derivation skipped)"),
    (1, 1, False, " (1 tree without a derivation skipped, over the search budget (--search-budget))"),
    (5, 2, False, " (5 trees without a derivation skipped, 2 of them over the search budget (--search-budget))"),
    (3, 0, True, " (3 graphs without a derivation skipped)"),
])
def test_the_training_summary_counts_trees_without_a_derivation(not_derived, over_budget, graphs, note):
    """`1 trees ... skipped` read as unsolvable where the search had given up."""
    from types import SimpleNamespace

    from tsdsl.cli.parsers import not_derived_note

    result = SimpleNamespace(not_derived=not_derived, over_budget=over_budget, graphs=graphs)
    assert not_derived_note(result) == note


# ---- number options: each held to its range by argparse -----------------------------

TOY = Path(__file__).resolve().parent.parent / "docs" / "examples" / "toy-dev.conllu"

REQUIRED = {  # the other arguments each command needs to parse
    "show": ["arc-eager"], "trace": ["arc-eager"], "verify": ["arc-eager"],
    "coverage": ["arc-eager", "x.conllu"], "check-oracle": ["arc-eager"], "derive-oracle": ["arc-eager"],
    "train": ["arc-eager", "--train", "t.conllu", "--out", "m"], "parse": ["m"], "draw": ["x.conllu", "-o", "x.svg"],
}

# (command, option, lowest value accepted, value just below it, highest accepted and just above it or None)
BOUNDS = [
    ("show", "--n", "1", "0", None),
    ("trace", "--n", "0", "-1", None),
    ("trace", "--sentence", "1", "0", None),
    ("trace", "--budget", "1", "0", None),
    ("verify", "--max-n", "1", "0", None),
    ("verify", "--random-max-n", "1", "0", None),
    ("verify", "--examples", "0", "-1", None),  # 0: no random checks (documented)
    ("verify", "--budget", "1", "0", None),
    ("verify", "--max-size", "1", "0", None),
    ("verify", "--screen-n", "1", "0", None),
    ("verify", "--state-limit", "1", "0", None),
    ("coverage", "--budget", "1", "0", None),
    ("coverage", "--limit", "1", "0", None),
    ("coverage", "--max-len", "1", "0", None),
    ("coverage", "--reach-budget", "0", "-1", None),  # 0: do not count (documented)
    ("check-oracle", "--configs", "1", "0", None),
    ("check-oracle", "--max-n", "1", "0", None),
    ("check-oracle", "--seed", "0", "-5", None),
    ("check-oracle", "--budget", "1", "0", None),
    ("check-oracle", "--table1-configs", "1", "0", None),
    ("check-oracle", "--table1-max-len", "1", "0", None),
    ("derive-oracle", "--configs", "1", "0", None),
    ("derive-oracle", "--max-n", "1", "0", None),
    ("derive-oracle", "--exhaustive-n", "0", "-1", None),  # 0: none (documented)
    ("train", "--epochs", "1", "0", None),
    ("train", "--patience", "1", "0", None),
    ("train", "--search-budget", "1", "0", None),
    ("train", "--explore", "0", "-0.1", ("1", "1.5")),
    ("train", "--explore-after", "0", "-1", None),
    ("train", "--beam", "1", "0", ("256", "257")),  # MAX_BEAM (trial 32)
    ("train", "--seed", "0", "-5", None),
    ("train", "--hash-bits", "12", "11", ("26", "27")),
    ("train", "--prune", "0", "-0.5", None),
    ("train", "--repair-max-n", "1", "0", None),
    ("parse", "--beam", "1", "0", ("256", "257")),
    ("draw", "--limit", "0", "-1", None),  # 0: no limit (documented)
]


def number_options() -> set[tuple[str, str]]:
    """(command, option) of every option whose value is converted (a number), over every command."""
    from test_help import COMMANDS

    return {(name, a.option_strings[-1]) for name, sp in COMMANDS.items() for a in sp._actions
            if a.option_strings and a.type is not None and a.type is not str}


def test_every_number_option_has_its_bounds_tested():
    assert number_options() == {(c, o) for c, o, *_ in BOUNDS}


def test_no_number_option_is_a_bare_int_or_float():
    from test_help import COMMANDS

    bare = [(name, a.option_strings[-1]) for name, sp in COMMANDS.items() for a in sp._actions
            if a.type in (int, float)]
    assert not bare, f"give these a range (tsdsl.cli.base.at_least / number_in): {bare}"


@pytest.mark.parametrize("command, option, lowest, below, top", BOUNDS, ids=[f"{c} {o}" for c, o, *_ in BOUNDS])
def test_a_number_out_of_range_is_a_usage_error(capsys, command, option, lowest, below, top):
    from tsdsl.cli import build_parser

    parser = build_parser()
    base = [command, *REQUIRED[command], option]
    parser.parse_args(base + [lowest])  # the bound itself is accepted
    bad = [(below, "at least" if top is None else "between")]
    if top is not None:
        parser.parse_args(base + [top[0]])
        bad.append((top[1], "between"))
    for value, words in bad:
        with pytest.raises(SystemExit) as info:
            main(base + [value])
        err = capsys.readouterr().err
        assert info.value.code == 2
        assert f"tsdsl {command}: error: argument {option}: must be " in err and words in err
        assert f"got {value}" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as info:
        main(base + ["many"])
    assert info.value.code == 2 and "got 'many'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["train", "arc-eager", "--train", str(TOY), "--out", "never-written", "--seed", "-5"],
    ["check-oracle", "arc-eager", "--max-n", "0"],
    ["check-oracle", "arc-eager", "--max-n", "-2"],
    ["derive-oracle", "arc-eager", "--max-n", "0"],
    ["verify", "arc-eager", "--max-n", "-1", "--examples", "0"],
    ["coverage", "arc-eager", str(TOY), "--limit", "0"],
    ["check-oracle", "arc-eager", "--configs", "0"],
    ["show", "easy-first", "--n", "-1"],
    ["trace", "arc-eager", "--n", "-1"],
    ["derive-oracle", "arc-eager", "--configs", "-1"],
], ids=lambda argv: " ".join(a for a in argv if not a.startswith("/")))
def test_the_reported_numbers_are_refused_before_any_work(capsys, tmp_path, monkeypatch, argv):
    """A new user's trial: each ended in a traceback, or checked nothing and said so as a success."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and f"tsdsl {argv[0]}: error: argument " in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_table1_without_a_sentence_short_enough_is_refused(capsys):
    """--table1-max-len 1 left no sentence of the file: the averages were printed as 0.00000."""
    code, out, err = run(capsys, "check-oracle", "covington-nm", "--table1", str(TOY), "--table1-max-len", "1")
    assert code == 2 and out == ""
    assert err == f"tsdsl: --table1 {TOY}: no sentence of 1 word or fewer (--table1-max-len)\n"


# ---- output files: one behaviour for every command --------------------------------------

SAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "sample.conllu"

OUTPUTS = {  # a command line per output option, OUT standing for the path to write
    "parse -o": ["parse", "no-such-model", str(SAMPLE), "-o", "OUT"],
    "parse --nm-log": ["parse", "no-such-model", str(SAMPLE), "--nm-log", "OUT"],
    "draw -o": ["draw", str(SAMPLE), "-o", "OUT"],
    "trace --html": ["trace", "arc-eager", "--html", "OUT"],
    "verify --report": ["verify", "arc-eager", "--report", "OUT"],
    "verify --repair --out": ["verify", "arc-eager", "--repair", "--out", "OUT"],
    "compile --emit-pyx": ["compile", "arc-eager", "--emit-pyx", "OUT"],
}


def test_a_model_directory_under_a_file_is_refused_before_training(capsys, tmp_path, monkeypatch):
    """`train --out afile/m` trained, then failed to save (`tsdsl: afile: File exists`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("", encoding="utf-8")
    code, out, err = run(capsys, "train", "arc-eager", "--train", str(TOY), "--out", "afile/m", "--quiet")
    assert (code, out, err) == (2, "", "tsdsl: cannot write afile/m: afile is not a directory\n")


@pytest.mark.parametrize("bad, reason", [
    ("adir.html", "is a directory"),
    ("new.html/", "the path names a directory (it ends in /)"),
    ("afile/x.html", "afile is not a directory"),
])
@pytest.mark.parametrize("option", sorted(OUTPUTS))
def test_an_output_that_names_a_directory_is_refused_with_the_users_path(capsys, tmp_path, monkeypatch, option,
                                                                           bad, reason):
    """`parse -o adir` named a hidden temporary file (`.adir.a00_hj6t.tmp: Is a directory`), and
    `draw -o adir.svg/` wrote adir.svg."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir.html").mkdir()
    (tmp_path / "afile").write_text("", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, err = run(capsys, *[bad if a == "OUT" else a for a in OUTPUTS[option]])
    assert (code, out) == (2, "")
    assert err == f"tsdsl: cannot write {bad}: {reason}\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("option, bad, reason", [
    ("-o", "afile", "it exists and is not a directory"),
    ("-o", "/dev/null", "it exists and is not a directory"),
    ("-o", "afile/cache", "afile is not a directory"),
    ("-o", "/proc/nope", "cannot create a file in /proc (No such file or directory)"),
    ("--emit-pyx", "/proc/nope/k.pyx", "cannot create a file in /proc (No such file or directory)"),
    ("--emit-pyx", "afile/k.pyx", "afile is not a directory"),
])
def test_compile_refuses_a_bad_output_path_before_building(capsys, tmp_path, monkeypatch, option, bad, reason):
    """`compile -o k/k.pyx` (a file) said `cannot write the kernel cache k/k.pyx: File exists`
    with exit 1 and no `tsdsl:`, and `--emit-pyx /proc/nope/k.pyx` named `_runtime.pxi`:
    every bad path is now a usage error naming the path given, found before the build."""
    import tsdsl.kernels.build

    if bad.startswith("/proc/") and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("", encoding="utf-8")
    monkeypatch.setattr(tsdsl.kernels.build, "build", lambda *a, **k: pytest.fail("built before the path check"))
    argv = ["compile", "arc-hybrid", option, bad] + (["--build"] if option == "--emit-pyx" else [])
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (2, "", f"tsdsl: cannot write {bad}: {reason}\n")
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]


def test_outputs_create_their_missing_directories(capsys, tmp_path):
    from tsdsl.treebank.conllu import read_conllu, write_conllu

    out = tmp_path / "new" / "sub" / "x.conllu"
    write_conllu(str(out), read_conllu(SAMPLE))  # what `parse -o new/sub/x.conllu` calls
    assert out.read_text(encoding="utf-8") == SAMPLE.read_text(encoding="utf-8")
    code, _, _ = run(capsys, "draw", str(SAMPLE), "-o", str(tmp_path / "pics" / "x.svg"))
    assert code == 0 and (tmp_path / "pics" / "x.svg").is_file()


def test_a_failed_write_names_the_users_path_and_leaves_nothing(capsys, tmp_path, monkeypatch):
    import errno

    import tsdsl.files

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tsdsl.files.os, "fsync", full)
    out = tmp_path / "x.svg"
    code, _, err = run(capsys, "draw", str(SAMPLE), "-o", str(out))
    assert code == 1 and err == f"tsdsl: {out}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []


def _unwritable_directory(monkeypatch, directory):
    """Make ``directory`` act as a read-only mount, as root sees one: files and directories
    cannot be created in it (``chmod`` would not stop root, so ``os.open`` and ``os.mkdir``
    refuse instead)."""
    import errno
    import os as os_module

    real_open, real_mkdir = os_module.open, os_module.mkdir

    def refused(name):
        if Path(name).parent.resolve() == Path(directory).resolve():
            raise OSError(errno.EROFS, "Read-only file system", name)

    def fake_open(name, *a, **kw):
        refused(name)
        return real_open(name, *a, **kw)

    def fake_mkdir(name, *a, **kw):
        refused(name)
        return real_mkdir(name, *a, **kw)

    monkeypatch.setattr(os_module, "open", fake_open)
    monkeypatch.setattr(os_module, "mkdir", fake_mkdir)


UNWRITABLE = dict(OUTPUTS, **{"train --out": ["train", "arc-eager", "--train", str(TOY), "--out", "OUT", "--quiet"]})


@pytest.mark.parametrize("option", sorted(UNWRITABLE))
@pytest.mark.parametrize("where", ["ro/x.html", "ro/new/x.html"])
def test_an_output_in_an_unwritable_directory_is_refused_before_the_work(capsys, tmp_path, monkeypatch, option,
                                                                          where):
    """A read-only --out/-o was found only after the work (a whole training run), and the error
    named the hidden temporary file (`DIR/.M.epu47m6m: Read-only file system`)."""
    import importlib

    def no_work(*a, **kw):
        raise AssertionError("the work started before the output was checked")

    monkeypatch.setattr(importlib.import_module("tsdsl.learn.train"), "compile_system", no_work)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ro").mkdir()
    _unwritable_directory(monkeypatch, tmp_path / "ro")
    code, out, err = run(capsys, *[where if a == "OUT" else a for a in UNWRITABLE[option]])
    assert (code, out) == (2, "")
    assert err == f"tsdsl: cannot write {where}: cannot create a file in ro (Read-only file system)\n"
    assert list((tmp_path / "ro").iterdir()) == []


def test_an_empty_model_directory_in_an_unwritable_parent_is_refused_before_training(capsys, tmp_path,
                                                                                       monkeypatch):
    """An existing (empty) --out is replaced through a temporary sibling: its parent must
    take a new file too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ro" / "M").mkdir(parents=True)
    _unwritable_directory(monkeypatch, tmp_path / "ro")
    code, out, err = run(capsys, "train", "arc-eager", "--train", str(TOY), "--out", "ro/M", "--quiet")
    assert (code, out, err) == (2, "", "tsdsl: cannot write ro/M: cannot create a file in ro (Read-only file system)\n")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("option", ["parse -o", "draw -o", "verify --report"])
def test_an_output_under_proc_is_refused_before_the_work(capsys, option):
    """`-o /proc/x.conllu` parsed, then named the temporary file it could not create
    (`/proc/.x.conllu.bcgdcw4p.tmp: No such file or directory`).  Even root cannot create it."""
    code, out, err = run(capsys, *["/proc/tsdsl-x.html" if a == "OUT" else a for a in OUTPUTS[option]])
    assert (code, out) == (2, "")
    assert err.startswith("tsdsl: cannot write /proc/tsdsl-x.html: cannot create a file in /proc (")


def test_a_write_that_fails_at_the_end_names_the_users_path(capsys, tmp_path, monkeypatch):
    """The directory took the test file, but creating the temporary file failed (the mount
    turned read-only meanwhile): the message named `.x.svg.403epe5t.tmp`, whose name the user
    never saw."""
    import errno
    import os
    import tempfile

    real = tempfile.mkstemp

    def late(*a, prefix=None, dir=None, **kw):
        if prefix == ".x.svg.":
            raise OSError(errno.EROFS, "Read-only file system", os.path.join(dir, prefix + "403epe5t.tmp"))
        return real(*a, prefix=prefix, dir=dir, **kw)

    monkeypatch.setattr(tempfile, "mkstemp", late)
    out = tmp_path / "x.svg"
    code, _, err = run(capsys, "draw", str(SAMPLE), "-o", str(out))
    assert code == 1 and err == f"tsdsl: {out}: Read-only file system\n"
    assert list(tmp_path.iterdir()) == []


def test_a_write_into_an_unwritable_directory_is_an_oserror_naming_the_path(tmp_path, monkeypatch):
    """write_atomic itself does not refuse as a usage error: the caches (repairs, derived
    oracles) catch OSError to go on without caching, and the message names the user's path."""
    import errno

    from tsdsl.files import write_atomic

    _unwritable_directory(monkeypatch, tmp_path)
    with pytest.raises(OSError) as caught:
        write_atomic(tmp_path / "x.json", "{}")
    assert (caught.value.errno, caught.value.filename) == (errno.EROFS, str(tmp_path / "x.json"))


def test_a_model_save_that_fails_at_the_end_names_the_users_directory(capsys, tmp_path, monkeypatch):
    """`train --out DIR/M` failed after training with `DIR/.M.epu47m6m: Read-only file system`."""
    import errno

    import tsdsl.learn.model

    real = tsdsl.learn.model._write_contents

    def full(model, d):
        real(model, d)
        raise OSError(errno.ENOSPC, "No space left on device", str(d / "weights.npz"))

    monkeypatch.setattr(tsdsl.learn.model, "_write_contents", full)
    code, _, err = run(capsys, "train", "arc-eager", "--train", str(TOY), "--out", str(tmp_path / "M"),
                       "--epochs", "1", "--hash-bits", "12", "--no-tagger", "--quiet")
    assert code == 1 and err == f"tsdsl: {tmp_path / 'M'}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spec, options, mode", [
    ("arc-eager", (), "dynamic oracle (exploration from epoch 2)"),
    ("arc-eager", ("--explore", "0.5", "--explore-after", "0"), "dynamic oracle (exploration from epoch 1, probability 0.5)"),
    ("arc-eager", ("--explore-after", "2"), "dynamic oracle (no exploration: --explore-after 2 leaves none of the 2 epochs)"),
    ("arc-eager", ("--oracle", "static"), "static oracle"),
    ("arc-eager", ("--oracle", "search"), "oracle by search (canonical)"),
    ("arc-eager", ("--oracle", "search", "--search-follow", "model"), "oracle by search (the model's best-scoring free action)"),
    ("arc-eager", ("--beam", "2"), "dynamic oracle, beam 2 (early update), no exploration"),
    ("covington", ("--skip-detours",),
     "dynamic oracle (exploration from epoch 2); zero-cost detours counted as mistakes (--skip-detours)"),
    ("arc-standard", (), "static oracle"),  # its declared loss is a lower bound: auto trains it static
])
def test_train_says_first_how_it_follows_the_gold_trees(capsys, tmp_path, spec, options, mode):
    """train said "oracle goldberg_nivre_2012/loss reproduces 100.0% ..." but not whether it trained
    with the dynamic oracle, the static one or the search (only model.json did)."""
    code, out, err = run(capsys, "train", spec, "--train", str(TOY), "--out", str(tmp_path / "m"), "--epochs", "2",
                         "--hash-bits", "12", "--no-tagger", *options)
    assert code == 0, err
    training = [line for line in err.splitlines() if line.startswith("training: ")]
    assert training == [f"training: {mode}"], err
    kind = json.loads((tmp_path / "m" / "model.json").read_text(encoding="utf-8"))["oracle"]
    assert mode.startswith({"dynamic": "dynamic oracle", "static": "static oracle", "search": "oracle by search"}[kind])


# ---- argument order ----------------------------------------------------------------------

def test_an_input_after_an_option_is_read_as_the_input(capsys, tmp_path):
    """`parse MODEL --text t.txt IN.conllu` printed the top-level usage (`unrecognized arguments`);
    IN.conllu is the input, which does not go with --text."""
    text = tmp_path / "t.txt"
    text.write_text("A b .\n", encoding="utf-8")
    code, out, err = run(capsys, "parse", str(tmp_path / "no-model"), "--text", str(text), str(SAMPLE))
    assert (code, out, err) == (2, "", "tsdsl: give either IN.conllu or --text FILE, not both\n")


def test_a_leftover_argument_gets_the_commands_usage(capsys):
    with pytest.raises(SystemExit) as info:
        main(["parse", "model", str(SAMPLE), "extra"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("usage: tsdsl parse ") and err.endswith("tsdsl parse: error: unrecognized arguments: extra\n")


@pytest.mark.parametrize("option", ["--train", "--dev"])
@pytest.mark.parametrize("bad, reason", [("nope.conllu", "no such file"), ("adir", "is a directory")])
def test_a_missing_train_or_dev_file_is_refused_before_any_work(capsys, tmp_path, monkeypatch, option, bad, reason):
    """`train --dev NOPE` was refused only after the oracle work on --train (minutes in): the
    inputs are checked with the outputs, before the spec's repair is even looked at."""
    import importlib

    train_module = importlib.import_module("tsdsl.learn.train")  # the module, not the function

    def no_work(*_args, **_kwargs):
        raise AssertionError("the training work began before the inputs were checked")

    monkeypatch.setattr(train_module, "use_repair", no_work)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    files = {"--train": str(TOY), "--dev": str(TOY), option: bad}
    code, out, err = run(capsys, "train", "arc-eager", "--train", files["--train"], "--dev", files["--dev"],
                         "--out", "m", "--quiet")
    what = "training file" if option == "--train" else "dev file"
    assert (code, out, err) == (2, "", f"tsdsl: cannot read the {what} {bad}: {reason}\n")
    assert not (tmp_path / "m").exists()


def test_trace_unknown_action_is_not_called_illegal(capsys):
    """`--actions "SHIFT FOO"` said `FOO is not legal (legal here: ...)`, as if FOO were an
    action of the spec; a name the spec does not have is a typo: say so, with a near miss."""
    code, out, err = run(capsys, "trace", "arc-eager", "--words", "a b", "--actions", "SHIFT FOO")
    assert code == 2
    assert err == "tsdsl: step 1: unknown action 'FOO' (the actions are SHIFT, LEFT-ARC, RIGHT-ARC, REDUCE)\n"
    assert "[root, a]" in out  # the steps done so far are still printed
    code, _, err = run(capsys, "trace", "arc-eager", "--words", "a b", "--actions", "SHIFT right-arc:obj")
    assert code == 2
    assert err == ("tsdsl: step 1: unknown action 'right-arc' (the actions are SHIFT, LEFT-ARC, RIGHT-ARC, "
                   "REDUCE; did you mean RIGHT-ARC?)\n")


@pytest.mark.parametrize("given, says", [
    ("SPEC", "the generated Cython must go to a file ending in .pyx"),
    ("k.ts", "the generated Cython must go to a file ending in .pyx"),
    ("emit/_api.pxi", "_api.pxi is a shared include file, written next to the .pyx (the kernel would include itself)"),
    ("emit/_runtime.pxi", "_runtime.pxi is a shared include file"),
    ("LINK", "is the input file"),
])
def test_compile_emit_pyx_refuses_a_path_that_would_replace_the_spec_or_an_include(capsys, tmp_path, monkeypatch,
                                                                                    given, says):
    """`compile SPEC --emit-pyx SPEC` replaced the user's spec with generated Cython (exit 0),
    and `--emit-pyx emit/_api.pxi` left a kernel that includes itself.  Only a .pyx that is
    not the spec (by any path or link) and not a shared include's name is written."""
    import shutil

    import tsdsl.kernels.build

    monkeypatch.chdir(tmp_path)
    shutil.copy(SYSTEMS / "arc-eager.ts", tmp_path / "mine.ts")
    (tmp_path / "link.pyx").symlink_to(tmp_path / "mine.ts")
    text = (tmp_path / "mine.ts").read_text(encoding="utf-8")
    monkeypatch.setattr(tsdsl.kernels.build, "build", lambda *a, **k: pytest.fail("built"))
    path = {"SPEC": "mine.ts", "LINK": "link.pyx"}.get(given, given)
    code, out, err = run(capsys, "compile", "mine.ts", "--emit-pyx", path)
    assert (code, out) == (2, "")
    assert err.startswith(f"tsdsl: --emit-pyx {path}") and says in err and "Traceback" not in err
    assert (tmp_path / "mine.ts").read_text(encoding="utf-8") == text
    assert not (tmp_path / "emit").exists() or not any((tmp_path / "emit").iterdir())
    # a proper .pyx beside it is still written
    code, out, err = run(capsys, "compile", "mine.ts", "--emit-pyx", "k.pyx")
    assert code == 0 and (tmp_path / "k.pyx").read_text(encoding="utf-8").startswith("# cython:")
    assert (tmp_path / "mine.ts").read_text(encoding="utf-8") == text


def test_running_out_of_memory_is_said_without_a_traceback(capsys, monkeypatch):
    # a kernel or numpy that cannot allocate raises MemoryError, often without a message
    from tsdsl.cli import checks

    def no_memory(self, args):
        raise MemoryError()

    monkeypatch.setattr(checks.Verify, "run", no_memory)
    assert main(["verify", str(ROOT / "systems" / "arc-eager.ts")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tsdsl verify: out of memory;") and "Traceback" not in err
    with pytest.raises(MemoryError):  # --debug shows it as it is
        main(["--debug", "verify", str(ROOT / "systems" / "arc-eager.ts")])
