"""Packaged systems by name: every command that takes a SPEC resolves names the same way, and
a mistyped name or path gets a 'did you mean' with no traceback."""

from __future__ import annotations

import argparse

import pytest

from tsdsl.cli import build_parser, main
from tsdsl.lang import packaged_systems
from tsdsl.lang.chain import did_you_mean

from test_help import subparsers

COMMANDS = subparsers(build_parser())
SPEC_COMMANDS = sorted(name for name, sp in COMMANDS.items()
                       if any(a.dest in ("spec", "specs") for a in sp._actions))


def argv_for(name: str, spec: str) -> list[str]:
    """``tsdsl NAME SPEC`` with placeholders for the other required arguments."""
    argv = [name]
    for a in COMMANDS[name]._actions:
        if isinstance(a, argparse._HelpAction):
            continue
        if a.dest in ("spec", "specs"):
            argv.append(spec)
        elif not a.option_strings and a.nargs not in ("?", "*"):
            argv.append("placeholder.conllu")
        elif a.required:
            argv += [a.option_strings[0], "placeholder"]
    return argv


def test_the_commands_taking_specs_are_found():
    assert {"check", "show", "trace", "compile", "verify", "coverage", "check-oracle", "derive-oracle",
            "train"} <= set(SPEC_COMMANDS)


@pytest.mark.parametrize("name", SPEC_COMMANDS)
def test_a_mistyped_name_gets_did_you_mean(name, capsys):
    code = main(argv_for(name, "arc-eagr"))
    err = capsys.readouterr().err
    assert code != 0
    assert "arc-eagr: error[TS001]: no such spec file or packaged system; did you mean `arc-eager`?" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("path, name, where", [
    ("systems/arc-eager.ts", "arc-eager", ", or run from the repository root"),
    ("systems/readings/arc-hybrid-literal.ts", "readings/arc-hybrid-literal", ", or run from the repository root"),
    ("/nowhere/systems/covington", "covington", ""),
])
def test_a_missing_path_to_a_packaged_system_names_the_system(path, name, where, capsys, tmp_path, monkeypatch):
    """The docs' `tsdsl check systems/arc-eager.ts`, run after `pip install` from another
    directory, said only `no such spec file`."""
    monkeypatch.chdir(tmp_path)
    code = main(["check", path])
    err = capsys.readouterr().err
    assert code != 0
    assert err == (f"{path}: error[TS001]: no such spec file (the packaged system of that name is `{name}`: "
                   f"pass the name{where})\n")


def test_the_docs_compile_system_path_names_the_packaged_system(tmp_path, monkeypatch):
    from tsdsl.errors import SpecSyntaxError
    from tsdsl.kernels import compile_system

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecSyntaxError, match="the packaged system of that name is `arc-eager`"):
        compile_system("systems/arc-eager.ts")


def test_names_and_paths_are_suggested(tmp_path):
    (tmp_path / "mine.ts").write_text("system mine\n", encoding="utf-8")
    assert did_you_mean("covingtn", tmp_path) == "; did you mean `covington`?"
    assert did_you_mean("readings/arc-hybrid-literl", tmp_path) == "; did you mean `readings/arc-hybrid-literal`?"
    assert did_you_mean("mien.ts", tmp_path) == "; did you mean `mine.ts`?"
    assert did_you_mean("sub/mine.ts", tmp_path) == ""
    assert did_you_mean("zzzzzz", tmp_path) == ""


def test_every_packaged_name_loads_through_the_command_line(capsys):
    names = [n for n, _ in packaged_systems()]
    assert "arc-eager" in names
    assert main(["check", *names]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == names


def test_a_source_checkout_finds_the_packaged_systems_without_installing(monkeypatch):
    # run from the repository with its root on sys.path, tsdsl.systems (pyproject.toml maps it to
    # systems/) is not importable: names still resolve, from the repository's systems/
    import importlib.resources

    from tsdsl.lang import load_system
    from tsdsl.lang.chain import packaged_root

    installed = packaged_root()

    def missing(name):
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(importlib.resources, "files", missing)
    root = packaged_root()
    assert root is not None and (root / "arc-eager.ts").is_file()
    assert sorted(p.name for p in root.glob("*.ts")) == sorted(p.name for p in installed.glob("*.ts"))
    assert len(packaged_systems()) == len(list(installed.glob("*.ts")))
    assert load_system("arc-eager").name == "arc_eager"
