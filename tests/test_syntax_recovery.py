"""A syntax error does not hide the rest of the file: each statement with one is reported and
skipped, and the rest is checked without it where it can be (tsdsl.lang.recover), with a note
that says which of the two happened.  No semantic error that only follows from a skipped
statement is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsdsl.cli import main
from tsdsl.errors import SpecSyntaxError
from tsdsl.lang import load_system, load_system_text
from tsdsl.lang.parse import MAX_SYNTAX_ERRORS, parse_spec

HEAD = "system r\nlists σ, β\nroot left\nterminal (σ, [])\nSHIFT : (σ, b|β) => (σ|b, β)\n"  # 5 lines
CHECKED = "the statement with a syntax error was skipped and the rest of the file checked without it"
CHECKED_ALL = "the statements with syntax errors were skipped and the rest of the file checked without them"


def _report(text: str, file: str = "r.ts") -> SpecSyntaxError:
    with pytest.raises(SpecSyntaxError) as info:
        load_system_text(text, file)
    return info.value


def _got(exc: SpecSyntaxError) -> list[tuple[str, str]]:
    return [(d.code, str(d.span)) for d in exc.diagnostics]


def test_a_syntax_error_and_a_semantic_error_are_reported_together():
    exc = _report(HEAD + "LEFT : (σ|s, b|β) => (σ, b|β) arc b s\nRIGHT : (σ|s, b|β) => (σ|s|b, β) if frob(s)\n")
    assert _got(exc) == [("TS100", "r.ts:6:37"), ("TS212", "r.ts:7:37")]
    assert exc.note == CHECKED
    text = str(exc)
    assert text.splitlines()[-2:] == ["2 errors", f"note: {CHECKED}"]
    assert "    RIGHT : (σ|s, b|β) => (σ|s|b, β) if frob(s)" in text  # the semantic error shows its line


def test_the_command_line_prints_both_and_exits_with_an_error(capsys, tmp_path: Path):
    spec = tmp_path / "r.ts"
    spec.write_text(HEAD + "LEFT : (σ|s, b|β) => (σ, b|β) arc b s\nRIGHT : (σ|s, b|β) => (σ|s|b, β) arc s -> q\n",
                    encoding="utf-8")
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    assert f"{spec}:6:37: error[TS100]: " in err and f"{spec}:7:43: error[TS210]: " in err
    assert err.rstrip().endswith(f"note: {CHECKED}") and "Traceback" not in err


def test_every_bad_statement_is_reported_once_and_later_lines_keep_their_place():
    exc = _report(HEAD + "A : (σ|s, β) (σ, β)\nB : (σ|s, β => (σ, β)\nC : (σ|s, β) => (σ, β) if has_head(t)\n")
    assert _got(exc) == [("TS100", "r.ts:6:14"), ("TS100", "r.ts:7:13"), ("TS210", "r.ts:8:36")]
    assert exc.note == CHECKED_ALL


def test_a_case_on_a_continuation_line_skips_its_whole_rule():
    exc = _report(HEAD + "A : (σ|s, b|β) => (σ, b|β) arc b -> s\n  | (σ|s, []) => (σ, [] if true\n"
                  "B : (σ|s, β) => (σ, β) if has_head(t)\n")
    assert _got(exc) == [("TS100", "r.ts:7:25"), ("TS210", "r.ts:8:36")]


@pytest.mark.parametrize("tail", [
    "drop LEFT\n",  # TS217: no LEFT to drop
    "oracle o\nreachable h -> d if true\npenalty LEFT if true\n",  # TS233: a penalty for no action
    "LEFT : (σ|s, b|β) => (σ, b|β) arc b -> s\n",  # TS200: LEFT twice
], ids=["drop", "penalty", "twice"])
def test_nothing_is_reported_for_a_skipped_transition_being_missing(tail):
    exc = _report(HEAD + "LEFT : (σ|s, b|β) => (σ, b|β) arc b s\n" + tail)
    assert _got(exc) == [("TS100", "r.ts:6:37")]
    assert exc.note == CHECKED


def test_a_file_whose_only_transition_is_skipped_is_not_said_to_have_none():
    exc = _report("system r\ncapacity 2\nL = ← {B false}\n")  # TS215 (no transitions) would follow
    assert _got(exc) == [("TS100", "r.ts:3:10")]
    assert exc.note == CHECKED


def test_a_skipped_reachability_rule_leaves_its_oracle_without_complaint():
    exc = _report(HEAD + "oracle o\nreachable h -> if true\n")  # TS234 (no reachability rule) would follow
    assert _got(exc) == [("TS100", "r.ts:7:19")]


@pytest.mark.parametrize("text, line, why", [
    # without `lists`, every pattern would be read against the default lists
    ("system r\nlists σ, β,\nterminal (σ, [])\nSHIFT : (σ, b|β) => (σ|b, β)\n", 2,
     "the `lists` statement on line 2 may declare what the rest of the file depends on"),
    # without `param K`, `capacity K` would be an unknown parameter and 0
    ("system r\nparam K = \ncapacity K\nSHIFT = +\n", 2,
     "the `param` statement on line 2 may declare what the rest of the file depends on"),
    ("system r\nflag seen[token\nSHIFT : (σ, b|β) => (σ|b, β) then seen[b] := true\nterminal (σ, [])\n", 2,
     "the `flag` statement on line 2 may declare what the rest of the file depends on"),
    # a misspelt keyword: what the line declares cannot be told
    ("system r\nlsts σ, β\nterminal (σ, [])\nSHIFT : (σ, b|β) => (σ|b, β) if frob(b)\n", 2,
     "line 2 does not show which statement it is, and the rest may depend on it"),
    # a rewrite rule in a control-parameter file: without it the file would change style
    ("system r\ncapacity 2\nSHIFT = +\nA : (σ, β) (σ, β)\n", 4,
     "without the transition on line 4, the file would be read in the other style"),
], ids=["lists", "param", "flag", "unknown", "style"])
def test_semantic_checks_are_not_run_when_the_rest_may_depend_on_the_skipped_line(text, line, why):
    exc = _report(text)
    assert [d.code for d in exc.diagnostics] == ["TS100"] and exc.first.span.line == line
    assert exc.note == f"semantic checks were not run: {why}; fix the syntax error and check again"


def test_an_error_in_the_system_line_stops_the_parse():
    exc = _report("system r x\nSHIFT = +\nL = ← {Q: 1}\n")
    assert _got(exc) == [("TS100", "r.ts:1:10")]
    assert exc.note == "semantic checks were not run: fix the syntax error and check again"


def test_a_file_of_syntax_errors_stops_at_the_limit():
    exc = _report("system r\n" + "A : (σ, β) (σ, β)\n" * (MAX_SYNTAX_ERRORS + 5))
    assert len(exc.diagnostics) == MAX_SYNTAX_ERRORS
    assert exc.note.startswith(f"semantic checks were not run (the parse stopped after {MAX_SYNTAX_ERRORS} syntax")


def test_an_extended_file_with_a_syntax_error_is_reported_with_the_child(tmp_path: Path):
    (tmp_path / "base.ts").write_text("system base\ncapacity 2\nSHIFT = + {\n", encoding="utf-8")
    (tmp_path / "child.ts").write_text('system child\nextends "base.ts"\nL = ← {B false}\n', encoding="utf-8")
    with pytest.raises(SpecSyntaxError) as info:
        load_system(tmp_path / "child.ts")
    assert _got(info.value) == [("TS100", f"{tmp_path}/base.ts:3:12"), ("TS100", f"{tmp_path}/child.ts:3:10")]
    assert info.value.note == "semantic checks were not run: fix the syntax error and check again"


def test_parse_spec_reports_every_syntax_error():
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(HEAD + "A : (σ|s, β) (σ, β)\nB : (σ|s, β => (σ, β)\n", "r.ts")
    assert _got(info.value) == [("TS100", "r.ts:6:14"), ("TS100", "r.ts:7:13")]


def test_a_bad_override_does_not_hide_the_syntax_errors():
    with pytest.raises(SpecSyntaxError):
        load_system_text(HEAD + "A : (σ|s, β) (σ, β)\n", "r.ts", overrides={"NOSUCH": 1})


def test_an_extended_file_with_a_syntax_error_says_the_child_was_not_checked(tmp_path: Path):
    (tmp_path / "base.ts").write_text("system base\ncapacity 2\nSHIFT = + {\n", encoding="utf-8")
    (tmp_path / "child.ts").write_text('system child\nextends "base.ts"\nL = ← {Q: 1}\n', encoding="utf-8")
    with pytest.raises(SpecSyntaxError) as info:
        load_system(tmp_path / "child.ts")
    assert _got(info.value) == [("TS100", f"{tmp_path}/base.ts:3:12")]  # the child's TS205 is not checked
    assert info.value.note == "semantic checks were not run: fix the syntax error and check again"
