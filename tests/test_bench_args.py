"""The bench scripts' command lines (bench/, not part of the package): every option has a help
text that states its default, a data path the user names that does not exist is an error
(exit 2, nothing measured), and no script writes into docs/ unless asked (``--write-docs``).

Nothing here measures: each script's parser is taken from its ``main`` before it runs, or the
script stops at its first check of the data.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

from test_help import undocumented

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py") if "def main(" in p.read_text(encoding="utf-8"))


def load(name: str, monkeypatch):
    """bench/NAME.py as a module (its directory on sys.path, as when it runs as a script)."""
    monkeypatch.syspath_prepend(str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class Parsed(Exception):
    def __init__(self, parser):
        self.parser = parser


def parser_of(name: str, monkeypatch) -> argparse.ArgumentParser:
    module = load(name, monkeypatch)

    def capture(self, *_args, **_kwargs):
        raise Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(Parsed) as info:
        module.main([])
    return info.value.parser


def test_every_bench_script_is_covered():
    assert {"learn", "kernels", "batch", "verify_speed", "dag", "tagging"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_option_of_a_bench_script_has_help_with_its_default(name, monkeypatch):
    """bench/batch.py's --data, --spec, --runs and --batch had no help; learn.py's --out no
    default shown, and its --beam help named the hidden --one (options for the script's own
    child processes are hidden: ``argparse.SUPPRESS``)."""
    parser = parser_of(name, monkeypatch)
    hidden = [a for a in parser._actions if a.help == argparse.SUPPRESS]
    for action in hidden:
        parser._actions.remove(action)
    assert undocumented(parser) == []
    for action in parser._actions:
        assert "--one" not in (action.help or ""), action.option_strings


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_bench_description_is_a_whole_sentence(name, monkeypatch):
    """bench/verify_speed.py's description stopped mid-sentence (the first line of a longer one)."""
    description = parser_of(name, monkeypatch).description.rstrip()
    assert description.endswith((".", ")", ".)")), description


@pytest.mark.parametrize("name", ["learn", "dag", "model_size", "parse_speed", "tagging"])
def test_writing_into_docs_is_opt_in(name, monkeypatch):
    """bench/learn.py wrote docs/results.md by default, so the README's quick example replaced
    the published table: no --out option defaults to a file, and --write-docs names docs/."""
    parser = parser_of(name, monkeypatch)
    options = {s: a for a in parser._actions for s in a.option_strings}
    assert options["--out"].default is None
    assert options["--write-docs"].default is False
    assert "docs/" in options["--write-docs"].help
    for action in parser._actions:
        if isinstance(action.default, (str, Path)):
            assert "docs" not in Path(action.default).parts, (action.option_strings, action.default)


@pytest.mark.parametrize("name, argv", [
    ("learn", ["--treebanks", "no-such-treebank"]),
    ("kernels", ["--data", "/no/such/file.conllu"]),
    ("batch", ["--data", "/no/such/file.conllu"]),
    ("dag", ["--data", "/no/such/dir"]),
    ("dag", ["--treebank", "no-such-treebank"]),
    ("model_size", ["--data", "/no/such/dir"]),
    ("tagging", ["--data", "/no/such/dir"]),
    ("tagging", ["--treebanks", "no-such-treebank"]),
    ("coverage", ["--treebanks", "no-such-treebank"]),
    ("derive_speed", ["--treebank", "no-such-treebank"]),
    ("derived_oracle", ["--treebank", "no-such-treebank"]),
    ("verify_speed", ["--only", "coverage", "--data", "/no/such/dir"]),
    ("udpipe_peer", ["--treebanks", "no-such-treebank"]),
    ("kernel_ab", ["/no/such/model"]),
])
def test_a_named_data_path_that_does_not_exist_exits_2(name, argv, monkeypatch, capsys):
    """The scripts exited 0 having measured nothing when --data named no file: only the default
    shared data, absent, is a skip (exit 0); what the user named is a mistake."""
    module = load(name, monkeypatch)
    monkeypatch.setattr(sys, "argv", [f"bench/{name}.py", *argv])
    assert module.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"bench/{name}.py: ") and "no" in err


def test_absent_default_data_is_a_skip_with_exit_0(monkeypatch, capsys, tmp_path):
    module = load("coverage", monkeypatch)
    monkeypatch.setattr(module, "DATA", tmp_path)
    assert module.main([]) == 0
    assert capsys.readouterr().out.startswith("skipped: ")


def test_output_path_refuses_out_with_write_docs(monkeypatch, capsys):
    load("learn", monkeypatch)
    import benchargs

    ap = argparse.ArgumentParser()
    docs = benchargs.ROOT / "docs" / "x.md"
    benchargs.add_output_options(ap, docs)
    assert benchargs.output_path(ap, ap.parse_args([]), docs) is None
    assert benchargs.output_path(ap, ap.parse_args(["--write-docs"]), docs) == docs
    assert benchargs.output_path(ap, ap.parse_args(["--out", "t.md"]), docs) == Path("t.md")
    with pytest.raises(SystemExit) as info:
        benchargs.output_path(ap, ap.parse_args(["--out", "t.md", "--write-docs"]), docs)
    assert info.value.code == 2


def test_parse_speed_keeps_each_treebank_apart(monkeypatch, tmp_path, capsys):
    """bench/parse_speed.py --treebank: each treebank's table has markers of its own (so that
    writing one never replaces another's), and a treebank the data directory lacks is skipped
    with a message naming it (exit 0, nothing trained)."""
    module = load("parse_speed", monkeypatch)
    ns = argparse.Namespace
    gum = module.markers(ns(epochs="defaults", treebank="en_gum"))
    lines = module.markers(ns(epochs="defaults", treebank="en_lines"))
    short = module.markers(ns(epochs="2", treebank="en_lines"))
    assert gum == ("<!-- parse-speed-defaults:begin -->", "<!-- parse-speed-defaults:end -->")
    assert len({gum, lines, short}) == 3 and all("en_lines" in m for m in lines + short)
    monkeypatch.setattr(module, "DATA", tmp_path)
    assert module.main(["--treebank", "xx_none", "--systems", "arc-eager", "--workdir", str(tmp_path / "w")]) == 0
    assert "skipped: no xx_none treebank" in capsys.readouterr().out
    assert not (tmp_path / "w").exists()
