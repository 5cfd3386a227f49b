"""Plain text to words (tsdsl.treebank.tokenize): the documented rule, and that no character
is lost, changed or split off a word it belongs to."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from tsdsl.errors import UsageError
from tsdsl.treebank.conllu import parse_conllu
from tsdsl.treebank.tokenize import INVISIBLE, read_text, text_sentence, tokenize, words_of

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
sentences = st.lists(st.sampled_from(["The", "man", "didn't", "arrive", ",", "3.5", "U.S.", "e.g.", "«σπίτι»",
                                      "Γιάννη", "नमस्ते", "well-known", "o'clock", "...", "?!", "John’s", "(",
                                      ")", "$", "10:30"]), max_size=12).map(" ".join)


@given(texts)
def test_no_character_is_lost_or_changed(text):
    """Every character but whitespace and the invisible ones (read as spaces) is in a word."""
    words = words_of(text)
    assert "".join(words) == "".join(INVISIBLE.sub(" ", text).split())
    assert all(w and not any(c.isspace() for c in w) and not INVISIBLE.search(w) for w in words)


@given(texts)
def test_space_after_rebuilds_the_text(text):
    rebuilt = "".join(w + (" " if space else "") for w, space in tokenize(text)).rstrip(" ")
    assert rebuilt == " ".join(INVISIBLE.sub(" ", text).split())


@pytest.mark.parametrize("text, words", [
    ("The man didn't arrive, did he?!", ["The", "man", "did", "n't", "arrive", ",", "did", "he", "?", "!"]),
    ("I can't. We're here; it's John’s.", ["I", "ca", "n't", ".", "We", "'re", "here", ";", "it", "'s", "John",
                                          "’s", "."]),
    ("U.S. prices rose 3.5% to $1,000 at 10:30 (e.g. today)...",
     ["U.S.", "prices", "rose", "3.5", "%", "to", "$", "1,000", "at", "10:30", "(", "e.g.", "today", ")", "..."]),
    ("Mr. Smith's well-known o'clock rock-n-roll", ["Mr", ".", "Smith", "'s", "well-known", "o'clock",
                                                    "rock-n-roll"]),
    ("Το «σπίτι» του Γιάννη, στο χωριό.", ["Το", "«", "σπίτι", "»", "του", "Γιάννη", ",", "στο", "χωριό", "."]),
    ("नमस्ते दुनिया।", ["नमस्ते", "दुनिया", "।"]),         # combining marks stay inside words
    ("e\u0301te\u0301 -- end", ["e\u0301te\u0301", "--", "end"]),
    ("a-", ["a", "-"]), ("-a", ["-", "a"]), ("'s", ["'", "s"]), ("3.", ["3", "."]),
])
def test_the_documented_rule(text, words):
    assert words_of(text) == words


@given(sentences)
def test_a_text_sentence_is_valid_conllu(text):
    s = text_sentence(text, sent_id="7")
    if not text.split():
        assert s is None
        return
    (back,) = parse_conllu(s.to_text(), require_heads=False)
    assert back.forms == tuple(words_of(text))
    assert back.sent_id == "7" and back.text == " ".join(text.split())
    assert all(w.fields[2:9] == ("_",) * 7 for w in back.words)


def test_read_text_numbers_sentences_and_keeps_lines(tmp_path):
    p = tmp_path / "in.txt"
    p.write_text("First one.\n\n  \nSecond , here\n", encoding="utf-8")
    got = read_text(str(p))
    assert [s.sent_id for s in got] == ["1", "2"]
    assert [s.line for s in got] == [1, 4]
    assert got[1].forms == ("Second", ",", "here")
    assert got[0].words[0].fields[9] == "_" and got[0].words[1].fields[9] == "SpaceAfter=No"


def test_read_text_refuses_bad_utf8_naming_the_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"fine\nstill fine\nbad \xff here\n")
    with pytest.raises(UsageError, match=r"bad\.txt:3: invalid UTF-8"):
        read_text(str(p))


def test_the_documented_corner_cases():
    """docs/learning.md lists the tokeniser's corner cases a user met (trial 25, L9): `'s`
    alone, `James'`, URLs and e-mail addresses, `-5`.  Every `` `TEXT` → `A` `B` ... `` there
    is what the tokeniser gives."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "learning.md").read_text(encoding="utf-8")
    start = page.index("Corner cases that follow from the rule")
    block = " ".join(page[start:page.index("```", start)].split())
    cases = re.findall(r"`([^`]+)`(?: alone)? → ((?:`[^`]+`(?: |(?=[,;.)]|$)))+)", block)
    texts = {text for text, _ in cases}
    assert {"'s", "James' book", "http://x.com/a?b=c", "a.b@ex.com", "-5"} <= texts, texts
    for text, tokens in cases:
        assert words_of(text) == re.findall(r"`([^`]+)`", tokens), text


def test_control_and_zero_width_characters_are_spaces(tmp_path):
    """A NUL, other control characters, U+200B (zero-width space), U+2060 and a stray BOM were
    words of their own (a new user's trial: a line of only U+200B became a one-word sentence):
    they count as spaces, in the words and in `# text`."""
    from tsdsl.treebank.tokenize import read_text, words_of

    assert words_of("a\u200bb\x00c\u2060d\ufeffe\x01") == ["a", "b", "c", "d", "e"]
    path = tmp_path / "weird.txt"
    path.write_bytes("Nul\x00char here.\nZero\u200bwidth x.\n\u200b\n\x01\x02 ctrl\n".encode("utf-8"))
    sents = read_text(str(path))
    assert [s.forms for s in sents] == [("Nul", "char", "here", "."), ("Zero", "width", "x", "."), ("ctrl",)]
    assert [line for line in sents[1].lines if line.startswith("# text")] == ["# text = Zero width x.\n"]


@pytest.mark.parametrize("sep", ["\r", "\r\n", "\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"])
def test_read_text_splits_lines_at_every_line_break(tmp_path, sep):
    """A file with old-Mac CR line ends (or U+2028/U+2029 separators) was one sentence: a CR was
    read as a space (a user's trial).  Every break str.splitlines knows ends a line, CRLF one."""
    path = tmp_path / "in.txt"
    path.write_bytes(sep.join(["Το σπίτι είναι μεγάλο.", "", "Η γάτα κοιμάται.", ""]).encode("utf-8"))
    sents = read_text(str(path))
    assert [s.forms for s in sents] == [("Το", "σπίτι", "είναι", "μεγάλο", "."), ("Η", "γάτα", "κοιμάται", ".")]
    assert [s.line for s in sents] == [1, 3]
    assert sents[1].text == "Η γάτα κοιμάται."


def test_read_text_names_the_line_of_bad_utf8_after_a_lone_cr(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"one\rtwo\r\nthree \xff\r")
    with pytest.raises(UsageError, match=r"bad\.txt:3: invalid UTF-8"):
        read_text(str(path))


@pytest.mark.parametrize("text, looks", [
    ("# sent_id = 1\n# text = A b.\n1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_\n", True),
    ("1-2\tAb\t_\t_\t_\t_\t_\t_\t_\t_\nplain text\n", True),
    ("#text=A b.\n", True),
    ("# a comment in a text file\nHashes # and tabs\tare fine.\n", False),
    ("1\ttoo\tfew\tcolumns\n", False),
])
def test_read_text_warns_once_about_conllu(tmp_path, text, looks):
    """`tsdsl parse M --text file.conllu` parsed every CoNLL-U line as a sentence, exit 0, not a word."""
    path = tmp_path / "x.conllu"
    path.write_text(text + "1\tB\tb\tNOUN\t_\t_\t0\troot\t_\t_\n" * looks, encoding="utf-8")
    said: list[str] = []
    read_text(str(path), warn=said.append)
    if looks:
        assert len(said) == 1 and said[0].startswith(f"{path}:1: the file looks like CoNLL-U, ")
        assert "leave out --text" in said[0]
    else:
        assert said == []


def test_read_text_warns_about_a_line_too_long_for_a_sentence(tmp_path):
    """A paragraph on one line was parsed as one sentence of thousands of words, without a word."""
    from tsdsl.treebank.tokenize import LONG_LINE

    path = tmp_path / "long.txt"
    line = " ".join(["λέξη"] * (LONG_LINE + 1))
    path.write_text(f"Short.\n{line}\n{' '.join(['x'] * LONG_LINE)}\n{line}.\n", encoding="utf-8")
    said: list[str] = []
    sents = read_text(str(path), warn=said.append)
    assert [s.n for s in sents] == [2, LONG_LINE + 1, LONG_LINE, LONG_LINE + 2]
    assert said == [f"{path}:2: {LONG_LINE + 1} words on one line (and 1 more such line), parsed as one sentence: "
                    "--text reads one sentence per line and has no sentence splitter; put each sentence on a line "
                    "of its own"]
    with pytest.warns(UserWarning, match="words on one line"):  # the Python API's default
        read_text(str(path))
