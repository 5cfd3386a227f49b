"""The compiled per-word helpers of a parse (``tsdsl/kernels/conllu_fast.pyx``) against the
Python they stand in for: the rewritten CoNLL-U lines (``Sentence._with_head_texts``), the
token table rows (``tsdsl.learn.tokens.token_table``) and the word columns
(``tsdsl.learn.data.columns_of``), the same text and numbers on random sentences of every
string width (ASCII, Latin-1, the Basic Multilingual Plane, beyond it), and a parse the same
with the helpers and without them.  Where a helper cannot do a sentence it says so (None,
False) and the Python does it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from strategies import labelled_trees
from tsdsl.learn import TrainOptions, train
from tsdsl.learn import tokens
from tsdsl.learn.data import columns_of, columns_of_all
from tsdsl.learn.parser import load_parser
from tsdsl.learn.tokens import compiled_helpers, token_table
from tsdsl.treebank.conllu import parse_conllu, read_conllu

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
#: one, two and four bytes a character in CPython's strings
CHARS = "abcXYZé<&>ßαβ漢字–…😀𝔘"
TEXT = st.text(alphabet=CHARS, min_size=1, max_size=5)


@pytest.fixture(scope="module")
def fast():
    module = compiled_helpers()
    assert module is not None, "the compiled helpers did not build"
    return module


@st.composite
def blocks(draw):
    """A CoNLL-U block with random forms, lemmas, FEATS, DEPS and MISC and line ends, and
    new heads and labels for it."""
    old_heads, old_labels = draw(labelled_trees(max_n=9))
    n = len(old_heads)
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [f"# text = {draw(TEXT)}{end}"]
    for k in range(n):
        misc = draw(st.sampled_from(["_", "SpaceAfter=No"]) | TEXT.map(lambda t: "Gloss=" + t))
        deps = draw(st.sampled_from(["_", f"{old_heads[k]}:{old_labels[k]}"]))
        lines.append(f"{k + 1}\t{draw(TEXT)}\t{draw(TEXT)}\tX\t_\t{draw(st.sampled_from(['_', 'Case=Nom']))}\t"
                     f"{old_heads[k]}\t{old_labels[k]}\t{deps}\t{misc}{end}")
    sentence = parse_conllu("".join(lines) + end)[0]
    heads, _ = draw(labelled_trees(min_n=n, max_n=n))
    labels = draw(st.lists(TEXT | st.sampled_from(["root", "nsubj", "obl:in"]), min_size=n, max_size=n))
    if draw(st.booleans()):  # heads past the table of small numbers' texts
        heads = [h + 5000 * draw(st.booleans()) for h in heads]
    return sentence, list(heads), labels


@settings(deadline=None, max_examples=60)
@given(st.lists(blocks(), min_size=1, max_size=4))
def test_rewritten_lines_are_the_pythons(fast, items):
    sentences = [s for s, _, _ in items]
    heads = [h for _, h, _ in items]
    labels = [lab for _, _, lab in items]
    out = fast.rewrite_heads(sentences, heads, labels)
    for s, h, lab, r in zip(sentences, heads, labels, out):
        assert r is not None
        want = s._with_head_texts(list(map(str, h)), lab)
        got = s._with_lines(r[0], r[1], lab)
        assert got.lines == want.lines and r[1] == list(map(str, h))
        assert [(w.head, w.deprel, w.fields) for w in got.words] == [(w.head, w.deprel, w.fields) for w in want.words]


def test_what_the_rewrite_leaves_to_python(fast):
    s = parse_conllu("1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n\n")[0]
    assert fast.rewrite_heads([s], [[0, 1]], [["root", "dep"]])[0] is not None
    assert fast.rewrite_heads([s], [[0, True]], [["root", "dep"]]) == [None]  # a bool is no head
    assert fast.rewrite_heads([s], [[0, 1]], [["root", None]]) == [None]  # nor None a label
    assert fast.rewrite_heads([s], [[0]], [["root"]]) == [None]  # one head for two words
    short = s._with_lines((s.lines[0], "2\tb\tc\n"), ["0", "1"], ["root", "dep"])  # a line of 3 fields
    assert fast.rewrite_heads([short], [[0, 1]], [["root", "dep"]]) == [None]


@settings(deadline=None, max_examples=30)
@given(st.lists(blocks(), min_size=1, max_size=4))
def test_word_columns_and_token_rows_are_the_pythons(fast, items):
    sentences = [s for s, _, _ in items]
    columns = [columns_of(s) for s in sentences]
    assert columns_of_all(sentences) == columns
    attrs = ("form", "lower", "lemma", "upos", "feats", "feat:Case")
    first = token_table(attrs, columns)  # hashes every value the first time (Python)
    again = token_table(attrs, columns)  # every value known: the compiled rows
    saved = tokens._COMPILED[:]
    tokens._COMPILED[:] = [None]
    try:
        python = token_table(attrs, columns)
    finally:
        tokens._COMPILED[:] = saved
    assert np.array_equal(first, python) and np.array_equal(again, python)


def test_a_token_row_with_an_unknown_value_is_left_to_python(fast):
    row = np.zeros(3, dtype=np.int64)
    columns = [{"form": ("a", "b")}, {"form": ("c",)}]
    assert fast.fill_hashes(row, columns, "form", {"a": 1, "b": 2, "c": 3}) and row.tolist() == [1, 2, 3]
    assert not fast.fill_hashes(row, columns, "form", {"a": 1, "b": 2})
    assert not fast.fill_hashes(np.zeros(2, dtype=np.int64), columns, "form", {"a": 1, "b": 2, "c": 3})
    assert fast.fill_hashes(row, [{"form": ["a", "b", "c"]}], "form", {"a": 4, "b": 5, "c": 6})
    assert row.tolist() == [4, 5, 6]


def test_a_parse_is_the_same_text_without_the_helpers(tmp_path):
    model = tmp_path / "model"
    train(str(REPO / "systems" / "covington-nm.ts"), str(TOY_TRAIN), str(TOY_DEV), str(model),
          TrainOptions(epochs=2, hash_bits=12, tagger=False, parser_tags="gold"), progress=None)
    parser = load_parser(model)
    sentences = read_conllu(TOY_DEV)
    with_helpers, _ = parser.parse_sentences(sentences)
    saved = tokens._COMPILED[:]
    tokens._COMPILED[:] = [None]
    try:
        without, _ = parser.parse_sentences(sentences)
    finally:
        tokens._COMPILED[:] = saved
    assert [s.to_text() for s in with_helpers] == [s.to_text() for s in without]
