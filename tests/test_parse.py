"""The parser: the SPEC_ERRORS label table, string escapes, nesting limits."""

from __future__ import annotations

import pytest

from tsdsl.lang import syntax as S
from tsdsl.errors import SpecSyntaxError
from tsdsl.lang.parse import MAX_NESTING, SPEC_ERRORS, parse_spec

EXAMPLES = [(label, example) for label, examples in SPEC_ERRORS.items() for example in examples]


def _first(text: str):
    with pytest.raises(SpecSyntaxError) as info:
        parse_spec(text, "ex.ts")
    return info.value.first


def test_every_label_has_examples():
    assert SPEC_ERRORS
    for label, examples in SPEC_ERRORS.items():
        assert label and examples, label
        assert all(isinstance(e, str) for e in examples), label


@pytest.mark.parametrize("label, example", EXAMPLES, ids=[repr(e) for _, e in EXAMPLES])
def test_spec_errors_example_yields_its_label(label, example):
    """Each example of the table fails to parse and is reported with its own label."""
    d = _first(example)
    assert d.code == "TS100"
    assert d.message.startswith(label + " ("), d.message


@pytest.mark.parametrize("label, example", [(l, e) for l, e in EXAMPLES if e.startswith("system x\n")],
                         ids=[repr(e) for l, e in EXAMPLES if e.startswith("system x\n")])
def test_label_also_matches_after_other_statements(label, example):
    """The mistake is recognised wherever it is, not only in the first statement."""
    text = example.replace("system x\n", "system x\ncite \"c\"\nroot left\n", 1)
    d = _first(text)
    assert d.message.startswith(label + " ("), d.message
    assert d.span.line >= 4


def test_unlabelled_syntax_error_still_reports_what_was_found():
    d = _first("system x\nS = + @\n")
    assert d.message == "unexpected character '@'"
    assert (d.span.line, d.span.col) == (2, 7)


@pytest.mark.parametrize(
    "written, text",
    [
        (r'"plain"', "plain"),
        (r'"a \"q\" b"', 'a "q" b'),
        (r'"back\\slash"', "back\\slash"),
        (r'"tab\there"', "tab\there"),
        (r'"caf\u00e9"', "café"),
        (r'"\x41\U0001F600"', "A\U0001F600"),
        (r'"Fernández"', "Fernández"),
        (r'"kept \q"', "kept \\q"),
    ],
)
def test_string_escapes(written, text):
    spec = parse_spec(f"system x {written}\ncite {written}\n")
    assert spec.title == text
    assert [st.text for st in spec.statements if isinstance(st, S.Cite)] == [text]


@pytest.mark.parametrize("escape, col", [(r"\x4", 10), (r"\ud800", 10), (r"\U00110000", 10), (r"\u", 10)])
def test_bad_string_escape_is_located(escape, col):
    d = _first(f'system x\ncite "abc{escape}"\n')
    assert d.code == "TS100"
    assert (d.span.line, d.span.col) == (2, col)
    assert d.message.startswith(f"bad escape `{escape[:2]}")


@pytest.mark.parametrize(
    "text",
    [
        "system x\nparam N = " + "(" * 200 + "1" + ")" * 200 + "\n",
        "system x\nparam N = " + " + ".join(["1"] * 500) + "\n",
        "system x\nA : (σ, β) => (σ, β) if " + "not " * 500 + "true\n",
        "system x\nA : (σ, β) => (σ, β) if " + "(" * 300 + "true" + ")" * 300 + "\n",
    ],
    ids=["parens", "long-sum", "nots", "guard-parens"],
)
def test_deep_nesting_is_a_located_error_not_a_recursion_error(text):
    d = _first(text)
    assert d.code == "TS101"
    assert d.span.line == 2 and d.span.col >= 1


def test_reasonable_nesting_is_fine():
    depth = MAX_NESTING // 4
    spec = parse_spec("system x\nparam N = " + "(" * depth + "1" + ")" * depth + "\n")
    assert isinstance(spec.statements[0], S.Param)


def test_the_grammar_is_read_from_this_checkout():
    """The parser uses the grammar of the source tree it runs from, even when an editable
    install of another checkout maps the ``tsdsl.grammars`` package elsewhere."""
    from pathlib import Path

    from tsdsl.lang.parse import grammar_path

    assert grammar_path() == Path(__file__).resolve().parent.parent / "grammars" / "ts.lark"


SWIFT_HYPHENS = """system swift_h
  root right
  lists σ, β
  initial ([], [1..n|root])
  terminal ([], [r]) if is_root(r)
  SHIFT       : (σ, b|β)     => (σ|b, β)     if not is_root(b)
  LEFT-ARC-1  : (σ|s, b|β)   => (σ, b|β)     arc b -> s
  LEFT-ARC-2  : (σ|t|s, b|β) => (σ, b|β)     arc b -> t  if has_head(s)
  RIGHT-ARC-1 : (σ|s, b|β)   => (σ|s|b, β)   arc s -> b
  RIGHT-ARC-2 : (σ|t|s, b|β) => (σ|t|b, β)   arc t -> b  if has_head(s)
"""


def test_a_transition_name_may_have_a_digit_after_a_hyphen(tmp_path):
    """`LEFT-ARC-2` is one name where a transition is declared, dropped or penalised
    (docs/language.md, lexical rules); the actions keep the name as written."""
    from tsdsl.lang import load_system, load_system_text

    system = load_system_text(SWIFT_HYPHENS, "h.ts")
    assert [a.name for a in system.fixed_actions] == ["SHIFT", "LEFT-ARC-1", "LEFT-ARC-2", "RIGHT-ARC-1",
                                                     "RIGHT-ARC-2"]
    (tmp_path / "h.ts").write_text(SWIFT_HYPHENS, encoding="utf-8")
    (tmp_path / "child.ts").write_text(
        'system child\n  extends "h.ts"\n  drop RIGHT-ARC-2\n  oracle o\n  reachable h -> d if not has_head(d)\n'
        "  penalty LEFT-ARC-2 if has_head(s)\n  loss = unreachable\n", encoding="utf-8")
    child = load_system(tmp_path / "child.ts")
    assert "RIGHT-ARC-2" not in [a.name for a in child.fixed_actions]
    assert [name for name, _ in child.oracles[0].penalties] == ["LEFT-ARC-2"]
    cp = parse_spec("system x\nL-2 = ← {B: false}\n")
    assert cp.statements[0].name == "L-2"


def test_elsewhere_a_hyphen_before_a_digit_is_a_subtraction():
    """Only a transition's name takes `-2`: `K-1` in an expression or a guard is K minus 1."""
    spec = parse_spec("system x\nparam K = 3\ncapacity K-1\nA : (σ|s, β) => (σ, β) if len(σ) > K-1\n")
    setting, rule = spec.statements[1], spec.statements[2]
    assert isinstance(setting.value, S.BinOp) and setting.value.op == "-"
    assert isinstance(rule.cases[0].guards[0].value, S.BinOp)
    d = _first("system x\nA : (σ|s, β) => (σ, β) class C-2\n")
    assert d.code == "TS100" and d.message == "unexpected '-'"


def test_the_packaged_specs_are_read_from_this_checkout():
    """Names such as ``arc-standard-swap`` resolve to the specs of the source tree the module
    runs from, even when an editable install of another checkout maps ``tsdsl.systems``
    elsewhere (a worktree's `tsdsl train arc-standard-swap` trained the main checkout's spec)."""
    from pathlib import Path

    from tsdsl.lang.chain import packaged_root

    assert packaged_root() == Path(__file__).resolve().parent.parent / "systems"
