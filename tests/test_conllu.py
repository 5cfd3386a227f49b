"""CoNLL-U reading and writing: byte-exact round trips, head rewriting, located errors,
atomic writes."""

from __future__ import annotations

import os

import pytest

from tsdsl.treebank.conllu import ConlluError, Sentence, parse_conllu, read_conllu, write_conllu
from tsdsl.errors import TsdslError, UsageError
from tsdsl.treebank.trees import Tree

SAMPLE = (
    "# newdoc id = doc1\n"
    "# sent_id = s1\n"
    "# text = Vámonos al mar.\n"
    "1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "1\tVamos\tir\tVERB\t_\tMood=Imp\t0\troot\t0:root\t_\n"
    "2\tnos\tnosotros\tPRON\t_\tCase=Acc\t1\tobj\t1:obj\t_\n"
    "3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "3\ta\ta\tADP\t_\t_\t5\tcase\t5:case\t_\n"
    "4\tel\tel\tDET\t_\tDefinite=Def\t5\tdet\t5:det\t_\n"
    "5\tmar\tmar\tNOUN\t_\tGender=Masc\t1\tobl\t1:obl\tSpaceAfter=No\n"
    "5.1\tir\tir\tVERB\t_\t_\t_\t_\t1:conj\t_\n"
    "6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t1:punct\t_\n"
    "\n"
    "# sent_id = s2\n"
    "# text = Hi there\n"
    "1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n"
    "2\tthere\tthere\tADV\t_\t_\t1\tadvmod\t_\t_\n"
    "\n"
)

GOOD2 = "1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n"


def word(i, head, deprel="dep", cols=10):
    fields = [str(i), f"w{i}", "_", "X", "_", "_", str(head), deprel, "_", "_"]
    return "\t".join(fields[:cols]) + "\n"


def mwt(a, b, form="mwt"):
    return f"{a}-{b}\t{form}" + "\t_" * 8 + "\n"


def write_bytes(tmp_path, data: bytes, name="t.conllu"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


# ---- reading -----------------------------------------------------------------------


def test_sentences_and_fields():
    sents = parse_conllu(SAMPLE, file="x.conllu")
    assert len(sents) == 2
    s = sents[0]
    assert s.n == len(s) == 6
    assert s.heads == (0, 1, 5, 5, 1, 1)
    assert s.deprels == ("root", "obj", "case", "det", "obl", "punct")
    assert s.forms == ("Vamos", "nos", "a", "el", "mar", ".")
    assert s.upos[0] == "VERB" and s.lemmas[0] == "ir" and s.feats[1] == "Case=Acc"
    assert s.sent_id == "s1" and s.text == "Vámonos al mar." and s.meta("newdoc id") == "doc1"
    assert [w.line for w in s.words] == [5, 6, 8, 9, 10, 12]
    assert s.line == 1 and sents[1].line == 14
    assert s.file == "x.conllu"
    assert s.words[4].misc == "SpaceAfter=No" and s.words[0].deps == "0:root"



def test_equal_values_of_a_file_are_one_string():
    """A file's equal column values are one string object (a parse reads each word's columns
    several times; shared values stay in the caches), in one sentence and across them."""
    sents = parse_conllu(SAMPLE + SAMPLE)
    words = [w for s in sents for w in s.words]
    assert words[0].upos is words[8].upos == "VERB"
    for a in words:
        for b in words:
            for x, y in zip(a.fields, b.fields):
                assert (x == y) == (x is y)
    assert words[3].form is words[3].lemma == "el"  # across columns too


def test_reading_pauses_the_cycle_collector_and_restores_it(monkeypatch):
    """Reading makes many objects and no cycles: the collector is off while the blocks are
    read (a third of reading a large treebank otherwise), and as it was afterwards."""
    import gc

    import tsdsl.treebank.conllu as conllu

    seen = []
    block = conllu._parse_block
    monkeypatch.setattr(conllu, "_parse_block", lambda *a: seen.append(gc.isenabled()) or block(*a))
    assert gc.isenabled()
    parse_conllu(SAMPLE)
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        parse_conllu(SAMPLE)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ConlluError):
        parse_conllu("1\ta\n")
    assert gc.isenabled()

def test_round_trip_byte_identical(tmp_path):
    src = write_bytes(tmp_path, SAMPLE.encode("utf-8"))
    sents = read_conllu(src)
    out = tmp_path / "out.conllu"
    write_conllu(out, sents)
    assert out.read_bytes() == SAMPLE.encode("utf-8")
    assert "".join(s.to_text() for s in parse_conllu(SAMPLE)) == SAMPLE


@pytest.mark.parametrize("text", [
    SAMPLE.replace("\n", "\r\n"),  # CRLF line ends
    "\ufeff" + SAMPLE.replace("\n", "\r\n"),  # and a BOM
    "\n\n" + SAMPLE + "\n\n",  # extra blank lines before and after
    SAMPLE.replace("\n\n# sent_id = s2", "\n\n\n# sent_id = s2"),  # two blank lines between
    SAMPLE[:-1] + " \n",  # a last "blank" line of spaces
])
def test_round_trip_variants(tmp_path, text):
    src = write_bytes(tmp_path, text.encode("utf-8"))
    sents = read_conllu(src)
    assert len(sents) == 2 and sents[1].heads == (0, 1)
    out = tmp_path / "out.conllu"
    write_conllu(out, sents)
    assert out.read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize("text, written", [
    (SAMPLE[:-1], SAMPLE),  # no final blank line
    (SAMPLE[:-2], SAMPLE),  # no final newline at all
    (SAMPLE.replace("\n", "\r\n")[:-2], SAMPLE.replace("\n", "\r\n")),  # CRLF: closed in CRLF
    (SAMPLE.replace("\n", "\r\n")[:-4], SAMPLE.replace("\n", "\r\n")),
    ("\ufeff" + SAMPLE[:-2], "\ufeff" + SAMPLE),
])
def test_the_last_sentence_is_closed_by_a_blank_line(tmp_path, capsysbinary, text, written):
    """A user's trial: an input without its final blank line (or newline) was written without
    it too, and strict CoNLL-U readers refused the output.  The rest is kept as read."""
    sents = read_conllu(write_bytes(tmp_path, text.encode("utf-8")))
    out = tmp_path / "out.conllu"
    write_conllu(out, sents)
    assert out.read_bytes() == written.encode("utf-8")
    write_conllu("-", sents)
    assert capsysbinary.readouterr().out == written.encode("utf-8")
    parsed = [s.with_heads(s.heads, s.deprels) for s in sents]  # as `tsdsl parse` writes them
    write_conllu(out, parsed)
    assert out.read_bytes() == written.encode("utf-8")


def test_byte_order_mark_is_kept_and_ignored(tmp_path):
    for text, closing in (("\ufeff" + SAMPLE, ""), ("\ufeff" + GOOD2, "\n")):  # GOOD2 lacks its blank line
        src = write_bytes(tmp_path, text.encode("utf-8"))
        sents = read_conllu(src)
        assert sents[0].heads[:2] == (0, 1) and sents[0].line == 1
        write_conllu(tmp_path / "o.conllu", sents)
        assert (tmp_path / "o.conllu").read_bytes() == (text + closing).encode("utf-8")
        assert sents[0].with_heads(sents[0].heads, sents[0].deprels).to_text() == sents[0].to_text()


def test_missing_blank_line_is_added_between_sentences(tmp_path):
    a = parse_conllu(GOOD2)[0]  # no final blank line
    b = parse_conllu(GOOD2.rstrip("\n"))[0]  # no final newline
    out = tmp_path / "o.conllu"
    write_conllu(out, [a, b, a])
    assert [s.heads for s in read_conllu(out)] == [(0, 1)] * 3
    assert out.read_text() == GOOD2 + "\n" + GOOD2 + "\n" + GOOD2 + "\n"


def test_write_stdout(capsysbinary):
    write_conllu("-", parse_conllu(SAMPLE))
    assert capsysbinary.readouterr().out == SAMPLE.encode("utf-8")


# ---- rewriting heads -----------------------------------------------------------------


def test_with_heads_changes_only_columns_7_and_8():
    s = parse_conllu(SAMPLE.replace("\n", "\r\n"))[0]
    t = s.with_heads([5, 1, 0, 5, 3, 1], ["a", "b", "root", "d", None, "f"])
    assert t.heads == (5, 1, 0, 5, 3, 1) and t.deprels == ("a", "b", "root", "d", "_", "f")
    assert s.heads == (0, 1, 5, 5, 1, 1)  # the original is untouched
    word_lines = set(s.word_index)
    assert len(t.lines) == len(s.lines)
    for k, (old, new) in enumerate(zip(s.lines, t.lines)):
        if k not in word_lines:
            assert new == old
            continue
        assert new.endswith("\r\n")
        of, nf = old[:-2].split("\t"), new[:-2].split("\t")
        assert len(nf) == 10
        assert [x for i, x in enumerate(of) if i not in (6, 7)] == [x for i, x in enumerate(nf) if i not in (6, 7)]
    assert parse_conllu(t.to_text())[0].heads == t.heads


def test_with_heads_none_labels_and_unknown_heads():
    s = parse_conllu(GOOD2)[0]
    t = s.with_heads([None, 1])
    assert t.to_text() == GOOD2.replace("0\troot", "_\t_").replace("1\tdep", "1\t_")
    assert parse_conllu(t.to_text(), require_heads=False)[0].heads == (None, 1)
    assert s.with_tree(Tree((2, 0), ("x", "root"))).heads == (2, 0)


@pytest.mark.parametrize("heads, labels, message", [
    ([0], None, "1 heads for a sentence of 2 words"),
    ([0, 3], None, "head 3 of word 2 is not in 0..2"),
    ([0, 1], ["root"], "1 labels"),
    ([0, 1], ["root", "a\tb"], "cannot be written"),
    ([0, 1], ["root", ""], "cannot be written"),
    ([0, 1], ["root", "nsubj pass"], "cannot be written"),
])
def test_with_heads_rejects_bad_arguments(heads, labels, message):
    s = parse_conllu(GOOD2)[0]
    with pytest.raises(UsageError, match=message):
        s.with_heads(heads, labels)


# ---- malformed input -------------------------------------------------------------------

BAD = [
    ("columns", "# c\n" + word(1, 0, "root") + word(2, 1, cols=9), 3, "expected 10 tab-separated columns, found 9"),
    ("id", word(1, 0, "root") + word(2, 1).replace("2\t", "x\t", 1), 2, "ID 'x' is not an integer"),
    ("order", word(1, 0, "root") + word(3, 1), 2, "word ID 3 out of order: expected 2"),
    ("start", word(2, 0, "root"), 1, "word ID 2 out of order: expected 1"),
    ("range", word(1, 0, "root") + word(2, 7), 2, "HEAD 7 out of range 0..2"),
    ("negative", word(1, 0, "root") + word(2, -1), 2, "HEAD -1 out of range 0..2"),
    ("nonint", word(1, 0, "root") + word(2, "x"), 2, "HEAD 'x' is not an integer"),
    ("self", word(1, 0, "root") + word(2, 2), 2, "word 2 is its own head"),
    ("cycle", word(1, 0, "root") + word(2, 3) + word(3, 4) + word(4, 2), 2, "cycle through word 2"),
    ("noroot", "# c\n" + word(1, 2) + word(2, 1), 1, "no root"),
    ("roots", word(1, 0, "root") + word(2, 1) + word(3, 0, "root"), 3, "more than one root (words 1, 3"),
    ("deprel", word(1, 0, "root") + word(2, 1, ""), 2, "empty DEPREL"),
    ("form", word(1, 0, "root") + word(2, 1).replace("2\tw2\t", "2\t\t", 1), 2, "empty FORM"),
    ("lemma", word(1, 0, "root") + "2\tw2\t\tX\t_\t_\t1\tdep\t_\t_\n", 2, "empty LEMMA"),
    ("misc", word(1, 0, "root") + "2\tw2\t_\tX\t_\t_\t1\tdep\t_\t\n", 2, "empty MISC"),
    ("underscore", word(1, 0, "root") + word(2, "_"), 2, "HEAD is _"),
    ("nowords", "# only a comment\n", 1, "a sentence without word lines"),
    ("badrange", word(1, 0, "root") + "2-1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" + word(2, 1), 2, "bad multiword token range"),
    ("columns11", word(1, 0, "root").replace("\n", "\textra\n"), 1, "expected 10 tab-separated columns, found 11"),
    ("spaces", "1 w1 _ X _ _ 0 root _ _\n", 1, "expected 10 tab-separated columns, found 1"),
    ("id_decimal", word(1, 0, "root") + word(2, 1).replace("2\t", "2.x\t", 1), 2, "ID '2.x' is not an integer"),
    ("id_letters", word(1, 0, "root") + word(2, 1).replace("2\t", "2a\t", 1), 2, "ID '2a' is not an integer"),
    ("id_empty", word(1, 0, "root") + word(2, 1).replace("2\t", "\t", 1), 2, "ID '' is not an integer"),
    ("id_sign", word(1, 0, "root") + word(2, 1).replace("2\t", "+2\t", 1), 2, "ID '+2' is not an integer"),
    ("cycle_noroot_first", word(1, 2) + word(2, 3) + word(3, 1), 1, "no root"),
    ("cycle_two", word(1, 0, "root") + word(2, 3) + word(3, 2), 2, "cycle through word 2"),
    ("mwt_misplaced", word(1, 0, "root") + mwt(3, 4) + word(2, 1) + word(3, 1) + word(4, 1), 2,
     "multiword token 3-4 must come right before word 3, found before word 2"),
    ("mwt_overlap", mwt(1, 2) + word(1, 0, "root") + mwt(2, 3) + word(2, 1) + word(3, 1), 3,
     "multiword token 2-3 overlaps 1-2"),
    ("mwt_past_end", word(1, 0, "root") + mwt(2, 3) + word(2, 1), 2, "multiword token 2-3 goes past the last word (2)"),
    ("deprel_space", word(1, 0, "root") + word(2, 1, "nsubj pass"), 2,
     "DEPREL 'nsubj pass' contains a space: CoNLL-U allows spaces only in FORM, LEMMA and MISC"),
    ("upos_space", word(1, 0, "root") + word(2, 1).replace("\tX\t", "\tX Y\t", 1), 2, "UPOS 'X Y' contains a space"),
    ("xpos_space", word(1, 0, "root") + "2\tw2\t_\tX\tN N\t_\t1\tdep\t_\t_\n", 2, "XPOS 'N N' contains a space"),
    ("feats_space", word(1, 0, "root") + "2\tw2\t_\tX\t_\tA=B| C=D\t1\tdep\t_\t_\n", 2,
     "FEATS 'A=B| C=D' contains a space"),
    ("deps_space", word(1, 0, "root") + "2\tw2\t_\tX\t_\t_\t1\tdep\t1:dep |0:root\t_\n", 2,
     "DEPS '1:dep |0:root' contains a space"),
    ("head_space", word(1, 0, "root") + word(2, "1 "), 2, "HEAD '1 ' contains a space"),
    ("deprel_nbsp", word(1, 0, "root") + word(2, 1, "nsubj\u00a0pass"), 2,
     "DEPREL 'nsubj\\xa0pass' contains whitespace (U+00A0)"),
    ("empty_node_space", word(1, 0, "root") + "1.1\tw\t_\tX\t_\t_\t_\t_\t1:conj x\t_\n" + word(2, 1), 2,
     "DEPS '1:conj x' contains a space"),
    ("mwt_space", mwt(1, 2).replace("\t_\t_\t_\t_\t_\t_\t_\t_\n", "\t_\t_\t_\t_\t_\ta b\t_\t_\n") + word(1, 0, "root")
     + word(2, 1), 1, "DEPREL 'a b' contains a space"),
]


@pytest.mark.parametrize("name, block, line, message", BAD, ids=[b[0] for b in BAD])
def test_malformed_is_located(tmp_path, name, block, line, message):
    text = SAMPLE + block + "\n"
    offset = SAMPLE.count("\n")
    p = write_bytes(tmp_path, text.encode("utf-8"), "bad.conllu")
    with pytest.raises(ConlluError) as info:
        read_conllu(p)
    assert str(info.value).startswith(f"{p}:{offset + line}: ")
    assert message in str(info.value)
    assert info.value.line == offset + line and isinstance(info.value, TsdslError)
    with pytest.raises(ConlluError, match=f"^mem:{offset + line}: "):
        parse_conllu(text, file="mem")


def test_broken_utf8_names_the_line(tmp_path):
    data = SAMPLE.encode("utf-8") + b"# sent_id = s3\n1\tcaf\xe9\t_\tX\t_\t_\t0\troot\t_\t_\n\n"
    p = write_bytes(tmp_path, data)
    line = SAMPLE.count("\n") + 2
    with pytest.raises(ConlluError, match=rf"^{p}:{line}: invalid UTF-8 \(byte 0xe9 at byte column 6\)"):
        read_conllu(p)


@pytest.mark.parametrize("data, line, byte, col", [
    (b"# caf\xc3\n" + GOOD2.encode("utf-8"), 1, 0xc3, 6),  # truncated sequence in a comment, first line
    (GOOD2.encode("utf-8") + b"\n1\t\xff\t_\tX\t_\t_\t0\troot\t_\t_\n", 4, 0xff, 3),  # in a FORM
    ("1\tnaïve".encode("latin-1") + b"\t_\tX\t_\t_\t0\troot\t_\t_\n", 1, 0xef, 5),  # a Latin-1 file
])
def test_broken_utf8_anywhere_names_line_and_byte(tmp_path, data, line, byte, col):
    p = write_bytes(tmp_path, data)
    with pytest.raises(ConlluError, match=rf"^{p}:{line}: invalid UTF-8 \(byte 0x{byte:02x} at byte column {col}\)"):
        read_conllu(p)


def test_spaces_in_form_lemma_and_misc_are_accepted_and_refused_elsewhere_in_parser_input():
    text = "1\tNew York\tNew York\tPROPN\t_\t_\t0\troot\t_\tNote=a b\n2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n\n"
    s = parse_conllu(text)[0]
    assert s.forms == ("New York", "b") and s.lemmas[0] == "New York" and s.words[0].misc == "Note=a b"
    unparsed = text.replace("\t1\tdep\t", "\t_\tnsubj pass\t")  # parser input: heads unchecked, DEPREL still read
    with pytest.raises(ConlluError, match="^mem:2: DEPREL 'nsubj pass' contains a space"):
        parse_conllu(unparsed, file="mem", require_heads=False, check_trees=False)


def test_multiword_tokens_and_empty_nodes_in_place_are_accepted():
    text = (mwt(1, 2) + word(1, 0, "root") + word(2, 1) + "2.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n"
            + mwt(3, 4) + word(3, 1) + word(4, 3))
    assert parse_conllu(text)[0].heads == (0, 1, 1, 3)


def test_options_relax_heads_and_roots():
    partial = word(1, "_", "_") + word(2, 1)
    assert parse_conllu(partial, require_heads=False)[0].heads == (None, 1)
    with pytest.raises(ConlluError, match="cycle"):
        parse_conllu(word(1, "_") + word(2, 3) + word(3, 2), require_heads=False)
    two = word(1, 0, "root") + word(2, 0, "root")
    assert parse_conllu(two, allow_multiple_roots=True)[0].heads == (0, 0)


def test_missing_final_blank_line_is_tolerated():
    assert parse_conllu(SAMPLE.rstrip("\n"))[1].heads == (0, 1)
    assert parse_conllu("") == [] and parse_conllu("\n\n") == []


# ---- atomic writing ----------------------------------------------------------------------


class Broken:
    def to_text(self):
        raise RuntimeError("cannot serialize")


def test_atomic_write_keeps_old_file_on_error(tmp_path):
    out = tmp_path / "out.conllu"
    out.write_text("old contents\n")
    good = parse_conllu(SAMPLE)
    with pytest.raises(RuntimeError, match="cannot serialize"):
        write_conllu(out, [good[0], Broken(), good[1]])
    assert out.read_text() == "old contents\n"
    assert sorted(os.listdir(tmp_path)) == ["out.conllu"]


def test_atomic_write_creates_nothing_on_error(tmp_path):
    with pytest.raises(RuntimeError):
        write_conllu(tmp_path / "new.conllu", [parse_conllu(GOOD2)[0], Broken()])
    assert os.listdir(tmp_path) == []


def test_write_keeps_mode_of_existing_file(tmp_path):
    out = tmp_path / "out.conllu"
    out.write_text("x")
    os.chmod(out, 0o640)
    write_conllu(out, parse_conllu(GOOD2))
    assert os.stat(out).st_mode & 0o777 == 0o640
    assert out.read_text() == GOOD2 + "\n"  # closed by a blank line


def test_sentence_is_immutable():
    s = parse_conllu(GOOD2)[0]
    assert isinstance(s, Sentence)
    with pytest.raises(Exception):
        s.lines = ()  # type: ignore[misc]
