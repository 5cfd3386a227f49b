"""The fast output path of greedy parsing against the plain per-word code it replaced.

`token_table` (each distinct column value hashed once, dict look-ups over the batch),
`Sentence.with_heads` (C-speed checks, Word objects made on first access) and the batch
label mapping of `Parser.parse_columns` must give exactly what the straightforward
per-word code gives: the same token hashes, byte-identical CoNLL-U text, equal `Word`s and
`Sentence`s, the same error messages, and the same heads and labels from a trained model.
The reference implementations below are that per-word code, kept here as the specification.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import word_forms
from test_learn import SYSTEMS, conllu_text, generate_treebank
from tsdsl.errors import UsageError
from tsdsl.learn import tokens
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.parser import LIFT_MARK, UNLABELED_FALLBACK, load_parser
from tsdsl.learn.tokens import stable_hash, token_table
from tsdsl.treebank.conllu import DEPREL_COL, Sentence, Word, parse_conllu
from tsdsl.treebank.repair import make_tree
from tsdsl.treebank.projectivize import deprojectivize

# ---------------------------------------------------------------------------------
# reference implementations (the per-word code)
# ---------------------------------------------------------------------------------


def reference_attribute(attr: str, cols: dict) -> list[str]:
    if attr == "lower":
        return [w.lower() for w in cols["form"]]
    if attr.startswith("feat:"):
        out = []
        for f in cols["feats"]:
            value = "_"
            if f and f != "_":
                for item in f.split("|"):
                    key, _, v = item.partition("=")
                    if key == attr[5:]:
                        value = v
                        break
            out.append(value)
        return out
    return list(cols[attr])


def reference_token_table(attrs, sentences) -> np.ndarray:
    total = sum(len(s["form"]) for s in sentences)
    table = np.zeros((max(len(attrs), 1), total), dtype=np.int64)
    for r, attr in enumerate(attrs):
        values = [stable_hash(attr + "\x1f" + v) for s in sentences for v in reference_attribute(attr, s)]
        if values:
            table[r] = values
    return table


def reference_with_heads(s: Sentence, heads, deprels=None) -> Sentence:
    n = s.n
    if len(heads) != n:
        raise UsageError(f"with_heads: {len(heads)} heads for a sentence of {n} words")
    if deprels is None:
        deprels = [None] * n
    if len(deprels) != n:
        raise UsageError(f"with_heads: {len(deprels)} labels for a sentence of {n} words")
    lines = list(s.lines)
    words = []
    for w, h in zip(s.words, heads):
        if h is not None and (isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= n):
            raise UsageError(f"with_heads: head {h!r} of word {w.id} is not in 0..{n}")
    for w, k, h, lab in zip(s.words, s.word_index, heads, deprels):
        hs = "_" if h is None else str(h)
        ls = "_" if lab is None else str(lab)
        if not ls or "\t" in ls or "\n" in ls or "\r" in ls:
            raise UsageError(f"with_heads: label {ls!r} of word {w.id} cannot be written in CoNLL-U")
        f = w.fields
        fields = (*f[:6], hs, ls, *f[DEPREL_COL + 1:])
        raw = lines[k]
        text = "\t".join(fields)
        if raw[-1:] == "\n":
            text += "\r\n" if raw[-2:] == "\r\n" else "\n"
        lines[k] = "\ufeff" + text if raw[:1] == "\ufeff" else text
        words.append(Word(w.id, fields, w.line))
    return Sentence(tuple(lines), tuple(words), s.word_index, s.file, s.line)


def reference_labels(parser, h, l, offsets):
    """`Parser.parse_columns` after the search, word by word (the code before the batch
    label mapping)."""
    names, root_label = parser.model.labels, parser.model.root_label
    heads_out, labels_out = [], []
    for si in range(len(offsets) - 1):
        a, b = int(offsets[si]), int(offsets[si + 1])
        hs = [int(x) for x in h[a:b]]
        ls = [names[x] if 0 <= x < len(names) else None for x in l[a:b]]
        parser.model.system.finish(hs, ls, root_label)
        for i, x in enumerate(hs):
            if x == 0 and ls[i] is None:
                ls[i] = root_label
        fixed = make_tree(hs, ls, root_label=root_label)
        hs, ls = list(fixed.heads), list(fixed.labels)
        if parser.lifted and any(LIFT_MARK in x for x in ls if x):
            hs, ls = map(list, deprojectivize(hs, ls))
        heads_out.append(hs)
        labels_out.append([UNLABELED_FALLBACK if x is None else x for x in ls])
    return heads_out, labels_out


# ---------------------------------------------------------------------------------
# token tables
# ---------------------------------------------------------------------------------

FEATS = st.one_of(st.just("_"), st.lists(st.sampled_from(["Number=Sing", "Number=Plur", "Case=Nom", "Tense=Past",
                                                           "Number=", "Mood"]), min_size=1, max_size=3)
                  .map("|".join))
ATTRS = ("form", "lower", "upos", "lemma", "xpos", "feats", "feat:Number", "feat:Case", "feat:Mood")


@st.composite
def column_sentences(draw):
    out = []
    for _ in range(draw(st.integers(0, 4))):
        n = draw(st.integers(0, 6))
        forms = draw(st.lists(word_forms() | st.sampled_from(["The", "the", "THE", "\u0130", "ß"]), min_size=n,
                              max_size=n))
        out.append({"form": tuple(forms), "lemma": tuple(f.lower() for f in forms),
                    "upos": tuple(draw(st.lists(st.sampled_from(["NOUN", "VERB", "_"]), min_size=n, max_size=n))),
                    "xpos": tuple(["_"] * n), "feats": tuple(draw(st.lists(FEATS, min_size=n, max_size=n)))})
    return out


@settings(deadline=None)
@given(column_sentences(), st.lists(st.sampled_from(ATTRS), min_size=1, max_size=5, unique=True))
def test_token_table_hashes_every_word_as_the_per_word_code(sentences, attrs):
    expected = reference_token_table(attrs, sentences)
    assert np.array_equal(token_table(attrs, sentences), expected)
    assert np.array_equal(token_table(attrs, sentences), expected)  # again: from the remembered hashes


def test_token_table_forgets_past_its_limit(monkeypatch):
    monkeypatch.setattr(tokens, "_COLUMN_HASHES_LIMIT", 3)
    monkeypatch.setattr(tokens, "_COLUMN_HASHES", {})
    first = [{"form": ("a", "b", "c"), "feats": ("_",) * 3}]
    second = [{"form": ("d", "e", "a", "d"), "feats": ("X=1",) * 4}]
    for batch in (first, second, first):
        assert np.array_equal(token_table(("form", "lower", "feat:X"), batch),
                              reference_token_table(("form", "lower", "feat:X"), batch))
    assert all(len(v) <= 4 for v in tokens._COLUMN_HASHES.values())


# ---------------------------------------------------------------------------------
# with_heads
# ---------------------------------------------------------------------------------

@st.composite
def sentence_texts(draw):
    """A CoNLL-U block with comments, multiword and empty-node lines, CRLF or LF line ends,
    perhaps a BOM and perhaps no final newline."""
    n = draw(st.integers(1, 6))
    forms = draw(st.lists(word_forms(), min_size=n, max_size=n))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [f"# sent_id = s{draw(st.integers(0, 9))}"] if draw(st.booleans()) else []
    covered = 0  # the last word of the latest multiword token (they must not overlap)
    for k, form in enumerate(forms, start=1):
        if covered < k < n and draw(st.integers(0, 4)) == 0:
            covered = k + 1
            lines.append(f"{k}-{k + 1}\t{form}{form}\t_\t_\t_\t_\t_\t_\t_\t_")
        lines.append(f"{k}\t{form}\t{form.lower()}\tX\t_\tA=b\t{0 if k == 1 else 1}\tdep\t_\tSpaceAfter=No")
        if draw(st.integers(0, 5)) == 0:
            lines.append(f"{k}.1\tgap\t_\t_\t_\t_\t_\t_\t{k}:dep\t_")
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    return ("\ufeff" if draw(st.booleans()) else "") + text


HEADS = st.one_of(st.none(), st.integers(-1, 8), st.booleans(), st.sampled_from([1.0, "1"]))
LABELS = st.one_of(st.none(), st.sampled_from(["nsubj", "obl:tmod", "root", "", "a\tb", "x\ny", "r\rs", "_", "é"]),
                   st.integers(0, 3))


@settings(deadline=None, max_examples=300)
@given(sentence_texts(), st.data())
def test_with_heads_writes_what_the_per_word_code_writes(text, data):
    (s,) = parse_conllu(text, require_heads=False)
    n = s.n
    valid = data.draw(st.booleans())
    heads = data.draw(st.lists(st.integers(0, n) | st.none() if valid else HEADS, min_size=n, max_size=n))
    labels = data.draw(st.none() | st.lists(st.sampled_from(["nsubj", "root", "é"]) | st.none() if valid else LABELS,
                                            min_size=n, max_size=n))
    try:
        expected = reference_with_heads(s, heads, labels)
    except UsageError as e:
        with pytest.raises(UsageError) as got:
            s.with_heads(heads, labels)
        assert str(got.value) == str(e)
        return
    got = s.with_heads(heads, labels)
    assert got.to_text() == expected.to_text()
    assert got.lines == expected.lines
    assert got.words == expected.words
    assert got == expected and hash(got) == hash(expected) and repr(got) == repr(expected)
    assert [w.head for w in got.words] == [w.head for w in expected.words]
    again = got.with_heads(heads[::-1], None)  # a rewritten sentence rewrites again
    assert again == reference_with_heads(expected, heads[::-1], None)


def test_with_heads_words_are_made_once_and_kept():
    (s,) = parse_conllu("1\ta\t_\tX\t_\t_\t0\troot\t_\t_\n2\tb\t_\tX\t_\t_\t1\tdep\t_\t_\n")
    t = s.with_heads([2, 0], ["dep", "root"])
    assert "words" not in vars(t)  # not made yet
    assert t.words is t.words and "words" in vars(t)
    assert t.heads == (2, 0) and t.deprels == ("dep", "root")
    assert isinstance(t.words, tuple) and all(type(w) is Word for w in t.words)
    heads, labels = [0, 1], ["root", "dep"]
    u = s.with_heads(heads, labels)
    heads[0], labels[0] = 2, "nsubj"  # the caller's lists change before the words are made
    assert u.heads == (0, 1) and u.deprels == ("root", "dep")


# ---------------------------------------------------------------------------------
# parse_sentences on a trained toy model
# ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    from tsdsl.learn.train import TrainOptions, train

    d = tmp_path_factory.mktemp("parse-output")
    (d / "train.conllu").write_text(conllu_text(generate_treebank(120, seed=5), prefix="t"), encoding="utf-8")
    (d / "dev.conllu").write_text(conllu_text(generate_treebank(60, seed=6), prefix="d", decorate=True),
                                  encoding="utf-8")
    opts = TrainOptions(epochs=1, tagger=False, parser_tags="gold")
    train(str(SYSTEMS / "arc-eager.ts"), str(d / "train.conllu"), None, str(d / "model"), opts, progress=None)
    return d


def test_parse_sentences_matches_the_per_word_pipeline(toy):
    from tsdsl.treebank.conllu import read_conllu

    parser = load_parser(toy / "model")
    sentences = read_conllu(toy / "dev.conllu")
    parsed, stats = parser.parse_sentences(sentences)
    cols = [columns_of(s) for s in sentences]
    attrs = parser.model.features.token_attrs
    batch = make_batch(cols, attrs)
    assert np.array_equal(batch.tokens, reference_token_table(attrs, cols))
    h, l, *_ = parser.engine.parse(batch, beam=1)
    heads, labels = reference_labels(parser, h, l, batch.offsets)
    expected = [reference_with_heads(s, hs, ls) for s, hs, ls in zip(sentences, heads, labels)]
    assert "".join(p.to_text() for p in parsed) == "".join(e.to_text() for e in expected)
    assert [p.heads for p in parsed] == [tuple(hs) for hs in heads]
    assert [p.deprels for p in parsed] == [tuple(ls) for ls in labels]
    assert parsed == expected
    assert stats.words == sum(s.n for s in sentences)


@pytest.mark.parametrize("beam", [0, -3, 257, 10_000])
def test_a_beam_outside_one_to_the_cap_is_refused(toy, beam):
    """`tsdsl parse --beam 0` used to parse greedily without a word, and --beam 10000 ran for
    minutes, deaf to Ctrl-C (trial 32); train refuses them too."""
    from tsdsl.kernels.arguments import MAX_BEAM
    from tsdsl.treebank.conllu import read_conllu

    assert MAX_BEAM == 256
    parser = load_parser(toy / "model")
    with pytest.raises(UsageError, match="--beam must be between 1 and 256, not"):
        parser.parse_sentences(read_conllu(toy / "dev.conllu")[:2], beam=beam)


@pytest.mark.parametrize("command", ["train", "parse"])
def test_the_command_line_refuses_a_beam_over_the_cap(toy, tmp_path, capsys, command):
    from tsdsl.cli import main

    args = (["train", "arc-eager", "--train", str(toy / "dev.conllu"), "--out", str(tmp_path / "m")]
            if command == "train" else ["parse", str(toy / "model"), str(toy / "dev.conllu")])
    with pytest.raises(SystemExit) as exc:
        main(args + ["--beam", "100000"])
    assert exc.value.code == 2
    assert "argument --beam: must be between 1 and 256, got 100000" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_parse_replaces_an_input_head_column_that_is_no_tree(toy, tmp_path, capsys):
    # parse writes new heads, so the input's need not form trees (a cycle, two roots, none);
    # an empty input parses to an empty file, with a warning
    from tsdsl.cli import main
    from tsdsl.treebank.conllu import read_conllu

    text = (toy / "dev.conllu").read_text(encoding="utf-8").split("\n\n")[0] + "\n\n"
    lines = text.split("\n")
    words = [k for k, line in enumerate(lines) if line.split("\t")[0].isdigit()]  # not 3-4 nor 5.1
    for k in words:  # every word's head: the next word (the last: the first): a cycle, no root
        cols = lines[k].split("\t")
        cols[6] = str(int(cols[0]) % len(words) + 1)
        lines[k] = "\t".join(cols)
    bad = tmp_path / "cycle.conllu"
    bad.write_text("\n".join(lines), encoding="utf-8")
    assert main(["parse", str(toy / "model"), str(bad), "-o", str(tmp_path / "out.conllu"), "--quiet"]) == 0
    (out,) = read_conllu(tmp_path / "out.conllu")  # a tree now (the reader checks)
    assert out.n == len(words)
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    assert main(["parse", str(toy / "model"), str(empty), "-o", str(tmp_path / "none.conllu"), "--quiet"]) == 0
    assert "no sentence to parse" in capsys.readouterr().err
    assert (tmp_path / "none.conllu").read_text(encoding="utf-8") == ""
