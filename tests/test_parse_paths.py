"""`tsdsl parse` and `tsdsl eval` against the files they are given (a new user's trial 25):
an output that is the input is refused before any work (M6), a plain-text file given as
CoNLL-U gets a hint (L4), and `eval --nm-log` refuses the log of another parse (M4).

No model is trained here: the checks come before the model is used, and the model loader
is replaced by one that fails the test if it is reached when it should not be.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tsdsl.learn.parser
from tsdsl.cli import main
from tsdsl.cli.parsers import heads_digest
from tsdsl.treebank.conllu import read_conllu

SAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "sample.conllu"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_model(monkeypatch):
    """A model loader that fails the test: the check under test must come first."""
    def refuse(*a, **kw):
        pytest.fail("the model was loaded before the paths were checked")

    monkeypatch.setattr(tsdsl.learn.parser, "load_parser", refuse)


# ---- M6: an output that is the input -------------------------------------------------


def _gold(tmp_path: Path) -> Path:
    gold = tmp_path / "gold.conllu"
    gold.write_bytes(SAMPLE.read_bytes())
    return gold


@pytest.mark.parametrize("how", ["same path", "symbolic link", "hard link", "another spelling"])
def test_parse_refuses_an_output_that_is_its_input(capsys, tmp_path, monkeypatch, no_model, how):
    """`parse M gold.conllu -o gold.conllu` replaced the gold trees with predictions, exit 0."""
    monkeypatch.chdir(tmp_path)
    gold = _gold(tmp_path)
    given = "gold.conllu"
    if how == "symbolic link":
        os.symlink("gold.conllu", "link.conllu")
        given = "link.conllu"
    elif how == "hard link":
        os.link("gold.conllu", "hard.conllu")
        given = "hard.conllu"
    elif how == "another spelling":
        given = "./gold.conllu"
    code, out, err = run(capsys, "parse", "m", given, "-o", "gold.conllu")
    assert (code, out) == (2, "")
    assert err == (f"tsdsl: -o gold.conllu is the input file {given}: writing it would replace the input; "
                   "choose another output file\n")
    assert gold.read_bytes() == SAMPLE.read_bytes()


def test_parse_refuses_an_output_through_a_directory_it_would_make(capsys, tmp_path, monkeypatch, no_model):
    """`-o sub/../gold.conllu` with no `sub` yet named no existing file, passed the check, and
    the missing directory made on the way let the parse replace the gold file (a re-check of
    trial 25's fix)."""
    monkeypatch.chdir(tmp_path)
    gold = _gold(tmp_path)
    code, out, err = run(capsys, "parse", "m", "gold.conllu", "-o", "sub/../gold.conllu")
    assert (code, out) == (2, "") and "-o sub/../gold.conllu is the input file gold.conllu" in err
    assert gold.read_bytes() == SAMPLE.read_bytes() and not (tmp_path / "sub").exists()


def test_parse_refuses_to_write_over_its_plain_text(capsys, tmp_path, monkeypatch, no_model):
    """`parse M --text same.txt -o same.txt` replaced the only copy of the text with CoNLL-U."""
    monkeypatch.chdir(tmp_path)
    Path("same.txt").write_text("A sentence .\n", encoding="utf-8")
    code, _, err = run(capsys, "parse", "m", "--text", "same.txt", "-o", "same.txt")
    assert code == 2 and err.startswith("tsdsl: -o same.txt is the input file same.txt: ")
    code, _, err = run(capsys, "parse", "m", "--text", "same.txt", "--nm-log", "same.txt")
    assert code == 2 and err.startswith("tsdsl: --nm-log same.txt is the input file same.txt: ")
    assert Path("same.txt").read_text(encoding="utf-8") == "A sentence .\n"


def test_parse_refuses_one_file_for_output_and_log(capsys, tmp_path, monkeypatch, no_model):
    monkeypatch.chdir(tmp_path)
    _gold(tmp_path)
    code, _, err = run(capsys, "parse", "m", "gold.conllu", "-o", "out.conllu", "--nm-log", "./out.conllu")
    assert (code, err) == (2, "tsdsl: -o and --nm-log name the same file out.conllu\n")
    assert not Path("out.conllu").exists()


def test_parse_refuses_an_output_that_standard_input_comes_from(tmp_path):
    gold = _gold(tmp_path)
    with open(gold, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "tsdsl.cli", "parse", "no-such-model", "-o", str(gold)],
                              stdin=stdin, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"tsdsl: -o {gold} is the input file standard input: "), proc.stderr
    assert gold.read_bytes() == SAMPLE.read_bytes()


def test_another_output_is_not_refused_as_the_input(capsys, tmp_path, monkeypatch):
    """A different existing file passes the check (the model is then loaded, and missing)."""
    monkeypatch.chdir(tmp_path)
    _gold(tmp_path)
    Path("old.conllu").write_text("", encoding="utf-8")
    code, _, err = run(capsys, "parse", "no-such-model", "gold.conllu", "-o", "old.conllu")
    assert code != 0 and "input file" not in err and "no-such-model" in err


def test_draw_refuses_an_output_that_is_one_of_its_inputs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("trees.svg").write_bytes(SAMPLE.read_bytes())  # a CoNLL-U file by an odd name
    code, _, err = run(capsys, "draw", SAMPLE, "trees.svg", "-o", "trees.svg")
    assert code == 2 and err.startswith("tsdsl: -o trees.svg is the input file trees.svg: ")
    assert Path("trees.svg").read_bytes() == SAMPLE.read_bytes()


# ---- L4: plain text given as CoNLL-U ----------------------------------------------------


class _Loaded:
    """Stands for a model: reading the input fails before it parses anything."""


def test_plain_text_given_as_conllu_gets_a_hint(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tsdsl.learn.parser, "load_parser", lambda *a, **kw: _Loaded())
    Path("plain.txt").write_text("# a comment\nThe cat sat .\n", encoding="utf-8")
    code, out, err = run(capsys, "parse", "m", "plain.txt")
    assert code != 0 and out == ""
    assert err == ("plain.txt:2: expected 10 tab-separated columns, found 1 "
                   "(plain text? use --text FILE)\n")
    # a line with tabs is broken CoNLL-U, not text: no hint
    Path("broken.conllu").write_text("1\tThe\tthe\n", encoding="utf-8")
    code, _, err = run(capsys, "parse", "m", "broken.conllu")
    assert code != 0 and err == "broken.conllu:1: expected 10 tab-separated columns, found 3\n"
    # only parse reads text by mistake: eval's error is unchanged
    code, _, err = run(capsys, "eval", "plain.txt", "plain.txt")
    assert code != 0 and "plain text?" not in err and "found 1" in err


# ---- M4: eval --nm-log checks that the log belongs to PRED ------------------------------


def _log(path: Path, **fields) -> Path:
    doc = {"model": "m", "events": [{"sentence": 1, "word": 2, "old_head": 1}], **fields}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_eval_refuses_the_nm_log_of_another_parse(capsys, tmp_path):
    """A log of another parse of the same sentences fit every position, and eval counted arcs
    PRED never had (trial 25: 997 fired for a monotonic model's output)."""
    pred = read_conllu(SAMPLE)
    other = list(pred)
    other[0] = other[0].with_heads((0, 1, 1, 5, 3), other[0].deprels)
    log = _log(tmp_path / "nm.json", output="other.conllu", heads_sha256=heads_digest(other))
    code, out, err = run(capsys, "eval", SAMPLE, SAMPLE, "--nm-log", log)
    assert (code, out) == (2, "")
    assert err == (f"tsdsl: {log} does not belong to {SAMPLE}: it was written for the output other.conllu, "
                   f"whose heads differ from those of {SAMPLE} (another model or input); pass the log of the "
                   "parse that wrote it\n")


def test_eval_counts_the_nm_log_of_its_own_parse(capsys, tmp_path):
    log = _log(tmp_path / "nm.json", output=None, heads_sha256=heads_digest(read_conllu(SAMPLE)))
    code, out, err = run(capsys, "eval", SAMPLE, SAMPLE, "--nm-log", log, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["extra"] == {"nonmonotonic_fired": 1, "nonmonotonic_repaired": 1,
                                        "nonmonotonic_broke": 0}


def test_eval_warns_that_an_old_nm_log_cannot_be_checked(capsys, tmp_path):
    log = _log(tmp_path / "old.json")
    code, out, err = run(capsys, "eval", SAMPLE, SAMPLE, "--nm-log", log)
    assert code == 0 and "nonmonotonic_fired" in out
    assert err == (f"warning: {log} records no digest of the parse it belongs to (an older tsdsl wrote it): "
                   f"cannot check that it is the log of {SAMPLE}\n")


def test_the_heads_digest_is_of_the_head_column_sentence_by_sentence():
    """Moving a word's head across a sentence boundary changes the digest: one line per
    sentence, not one stream of numbers."""
    import hashlib

    sentences = read_conllu(SAMPLE)
    text = "".join(",".join(str(h) for h in s.heads) + "\n" for s in sentences)
    assert heads_digest(sentences) == hashlib.sha256(text.encode()).hexdigest()
    assert heads_digest(sentences) != heads_digest(sentences[:1])


# ---- a missing input, or a directory, is a usage error worded as train words it ----------


@pytest.mark.parametrize("given, what", [(("nofile.conllu",), "input file nofile.conllu"),
                                         (("--text", "nofile.txt"), "text file nofile.txt"),
                                         (("sub",), "input file sub"),
                                         (("--text", "sub"), "text file sub")])
def test_parse_refuses_a_missing_input_before_loading_the_model(capsys, tmp_path, monkeypatch, no_model, given,
                                                                what):
    """A user's trial: `parse M nofile.conllu` printed the raw OS error (`tsdsl: nofile.conllu: No
    such file or directory`) and exit 1, where train says `cannot read the dev file ...`, exit 2."""
    monkeypatch.chdir(tmp_path)
    Path("sub").mkdir()
    reason = "is a directory" if what.endswith("sub") else "no such file"
    code, out, err = run(capsys, "parse", "m", *given, "-o", "out.conllu")
    assert (code, out, err) == (2, "", f"tsdsl: cannot read the {what}: {reason}\n")
    assert not Path("out.conllu").exists()


@pytest.mark.parametrize("which", ["gold", "pred", "nm-log"])
def test_eval_refuses_a_missing_input(capsys, tmp_path, monkeypatch, which):
    monkeypatch.chdir(tmp_path)
    argv = {"gold": ["nofile.conllu", SAMPLE], "pred": [SAMPLE, "nofile.conllu"],
            "nm-log": [SAMPLE, SAMPLE, "--nm-log", "nofile.conllu"]}[which]
    what = {"gold": "gold file", "pred": "predicted file", "nm-log": "--nm-log file"}[which]
    code, out, err = run(capsys, "eval", *argv)
    assert (code, out, err) == (2, "", f"tsdsl: cannot read the {what} nofile.conllu: no such file\n")
    Path("dir").mkdir()
    code, _, err = run(capsys, "eval", *[("dir" if a == "nofile.conllu" else a) for a in argv])
    assert (code, err) == (2, f"tsdsl: cannot read the {what} dir: is a directory\n")
