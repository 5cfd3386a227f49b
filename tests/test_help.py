"""``--help`` documents every argument: each positional and option has help text, and each
option that takes a value says its default (``default ...``) or that it is required.

The walk covers every subcommand of ``tsdsl.cli.build_parser``, so a new command or argument
without help fails here.
"""

from __future__ import annotations

import argparse

import pytest

from tsdsl.cli import build_parser


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def undocumented(parser: argparse.ArgumentParser) -> list[str]:
    """The arguments of ``parser`` whose help is missing or does not state the default."""
    bad = []
    for a in parser._actions:
        if isinstance(a, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue
        name = "/".join(a.option_strings) or a.dest
        if not (a.help or "").strip() or a.help == argparse.SUPPRESS:
            bad.append(f"{name}: no help")
            continue
        takes_value = a.option_strings and a.nargs != 0
        if takes_value and not a.required and "default" not in a.help.lower():
            bad.append(f"{name}: help does not state the default")
        if not a.option_strings and a.nargs in ("?", "*") and "default" not in a.help.lower():
            bad.append(f"{name}: optional positional whose help does not state the default")
    return bad


PARSER = build_parser()
COMMANDS = subparsers(PARSER)


def test_there_are_commands_to_walk():
    assert {"check", "systems", "trace", "draw", "train", "parse", "eval"} <= set(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_argument_has_help_and_every_option_its_default(name):
    bad = undocumented(COMMANDS[name])
    assert not bad, f"tsdsl {name}: " + "; ".join(bad)


def test_global_options_have_help():
    assert not undocumented(PARSER)


def test_the_walk_can_fail():
    p = argparse.ArgumentParser()
    p.add_argument("spec")
    p.add_argument("--n", type=int, default=3, help="a number")
    p.add_argument("--ok", type=int, default=3, help="a number (default 3)")
    p.add_argument("--flag", action="store_true", help="a flag")
    assert undocumented(p) == ["spec: no help", "--n: help does not state the default"]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_prints(name, capsys):
    with pytest.raises(SystemExit) as exc:
        PARSER.parse_args([name, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("usage: tsdsl " + name)


def _help_of(command: str, option: str) -> str:
    return " ".join(next(a.help for a in COMMANDS[command]._actions if option in a.option_strings).split())


def test_train_help_states_the_default_loss_and_the_derived_oracle():
    """`--loss` said "default: the first", but training takes the first exact loss, else an
    upper bound, else the first (default_loss); `--oracle` did not mention the derived oracle
    a spec without an oracle block trains with."""
    loss = _help_of("train", "--loss")
    assert "the first exact loss; else an upper bound" in loss and "else the first loss" in loss
    oracle = _help_of("train", "--oracle")
    assert "without an oracle block" in oracle and "derive-oracle" in oracle


def test_parse_help_warns_about_a_beam_the_model_was_not_trained_with():
    beam = _help_of("parse", "--beam")
    assert "greedy-trained model much worse" in beam and "warning names the trained width" in beam


def test_search_budget_helps_state_what_the_compiled_search_gets():
    """coverage's and verify's --budget said N configurations per sentence, but the compiled
    search (their default) gets COMPILED_FACTOR (coverage) or VERIFY_COMPILED_FACTOR (verify's
    random completeness check) times as many."""
    from tsdsl.verify.coverage import COMPILED_FACTOR, DEFAULT_BUDGET, VERIFY_COMPILED_FACTOR

    coverage = _help_of("coverage", "--budget")
    assert f"may expand {COMPILED_FACTOR} times as many" in coverage
    assert f"default {DEFAULT_BUDGET}, so {COMPILED_FACTOR * DEFAULT_BUDGET} compiled" in coverage
    verify = _help_of("verify", "--budget")
    assert f"may expand {VERIFY_COMPILED_FACTOR} times as many" in verify


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_cites_no_doc_file_a_pip_install_lacks(name, capsys):
    """`parse --help` said "tokenised by the rule of docs/learning.md", and a pip install ships
    no docs/ (trial 25, L8): help states the rule, or says the file is in the source repository."""
    import re

    with pytest.raises(SystemExit):
        PARSER.parse_args([name, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    bare = [m.group(0) for m in re.finditer(r"docs/[\w/-]+(?:\.\w+)?", text)
            if not text[m.end():].startswith(" in the source repository")]
    assert bare == [], bare


def test_parse_help_states_the_tokenisation_rule():
    text = _help_of("parse", "--text")
    assert "split at whitespace" in text and "English clitics split off" in text and "docs/" not in text


def test_train_help_states_the_range_of_hash_bits():
    """A user's trial: --hash-bits 27 was refused (between 12 and 26) by a help that gave no range."""
    assert "N from 12 to 26 (default 19)" in _help_of("train", "--hash-bits")
    assert next(a.metavar for a in COMMANDS["train"]._actions if "--hash-bits" in a.option_strings) == "N"


@pytest.mark.parametrize("value", ["inf", "nan", "Infinity"])
def test_a_number_option_says_it_must_be_finite(capsys, value):
    """`--prune inf` was refused with "must be a number at least 0, got inf": inf is at least 0."""
    with pytest.raises(SystemExit) as info:
        PARSER.parse_args(["train", "arc-eager", "--train", "t.conllu", "--out", "m", "--prune", value])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert f"argument --prune: must be a finite number at least 0, got {value}" in err, err
