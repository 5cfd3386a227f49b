"""Fuzzing the parser and the checker: whatever the text, parse_spec + check_spec either
succeed or raise a SpecError subclass with located diagnostics -- never another exception
(a KeyError in the checker, a lark exception, a RecursionError, a hang...).

Inputs: arbitrary text, soups of spec tokens, grammar-derived specs
(``hypothesis.extra.lark.from_lark`` over grammars/ts.lark) and real systems/*.ts
files with a few tokens mutated.  The example counts come from the Hypothesis
profile (tests/conftest.py); inputs that once crashed are pinned with @example.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from strategies import mutated_specs, spec_texts, spec_token_soup
from tsdsl.lang import check_spec, load_system_text
from tsdsl.errors import Diagnostic, SpecError
from tsdsl.lang.parse import parse_spec

CODE = re.compile(r"^TS\d{3}$")


def parse_and_check(text: str, recovering: bool = False) -> None:
    """Parse and check ``text``; a SpecError must carry well-formed, located diagnostics.
    ``recovering``: through load_system_text, which checks the rest of a file past its syntax
    errors."""
    try:
        if recovering:
            load_system_text(text, "fuzz.ts")
        else:
            check_spec(parse_spec(text, "fuzz.ts"))
    except SpecError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert isinstance(d, Diagnostic)
            assert CODE.match(d.code), d
            assert d.message
            assert d.span.line >= 1 and d.span.col >= 1, d  # parse_spec has the text: always located
        rendered = str(exc)
        assert rendered.startswith(f"{exc.first.span}: error[{exc.first.code}]: ")


# Inputs that crashed before being fixed -- kept as regressions (pinned with @example).
UNLATIN_ESCAPE = 'system x "caf\\u00e9"\n'  # \u escape beyond Latin-1: UnicodeEncodeError in _unquote (VisitError)
TRUNCATED_ESCAPE = 'system x\ncite "\\x4"\n'  # truncated \x escape: UnicodeDecodeError in _unquote
SURROGATE_ESCAPE = 'system x "\\ud800"\n'  # lone surrogate escape
DEEP_PARENS = "system x\nparam N = " + "(" * 3000 + "1" + ")" * 3000 + "\nSHIFT = +\n"  # RecursionError (lark)
DEEP_NOTS = "system x\nA : (σ, β) => (σ, β) if " + "not " * 3000 + "true\n"  # RecursionError (lark)
LONG_SUM = "system x\nparam N = " + "+".join(["1"] * 5000) + "\nSHIFT = +\n"  # RecursionError in _eval
HUGE_CAPACITY = "system x\ncapacity 100000\nL = ←*\n"  # K*K index pairs: the checker hung
LONG_EXTENDS = 'system x\nextends "' + "a" * 300 + '"\nSHIFT = +\n'  # OSError (name too long) from is_file()


@example(UNLATIN_ESCAPE)
@example(TRUNCATED_ESCAPE)
@example(SURROGATE_ESCAPE)
@example(DEEP_PARENS)
@example(DEEP_NOTS)
@example(LONG_SUM)
@example(HUGE_CAPACITY)
@example(LONG_EXTENDS)
@given(st.text())
def test_arbitrary_text_only_raises_spec_errors(text):
    parse_and_check(text)


@given(st.text(alphabet=st.sampled_from(list("system x\n()[]{}|,:=>-<→←σβs\"\\#1n. \t"))))
def test_spec_alphabet_text_only_raises_spec_errors(text):
    parse_and_check("system x\n" + text)


@given(spec_token_soup())
def test_token_soup_only_raises_spec_errors(text):
    parse_and_check(text)


@given(spec_texts())
def test_grammar_derived_specs_only_raise_spec_errors(text):
    parse_and_check(text)


@given(mutated_specs())
def test_mutated_systems_only_raise_spec_errors(text):
    parse_and_check(text)


@example(DEEP_PARENS)
@example(DEEP_NOTS)
@example(UNLATIN_ESCAPE)
@example("system x\n" + "A : (σ, β) (σ, β)\n" * 5000)  # a syntax error on every line: the parse stops
@given(st.one_of(mutated_specs(), spec_token_soup(), spec_texts()))
def test_checking_past_syntax_errors_only_raises_spec_errors(text):
    parse_and_check(text, recovering=True)
