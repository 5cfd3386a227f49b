"""The tagger (tsdsl.learn.tagger) and parsing untagged input and plain text.

The tagger is trained on the generated treebank of test_learn (its words are unambiguous
for UPOS and lemma; FEATS of determiners follow their noun, which a left-to-right tagger
cannot see, so FEATS is only checked against a floor).  Models are trained once per module
by ``tsdsl train`` in a child process, as in test_learn.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from test_learn import (FAST, SYSTEMS, assert_refused, cli, cli_subprocess, conllu_text,
                        generate_treebank)
from tsdsl.errors import UsageError
from tsdsl.learn import load_parser
from tsdsl.learn.data import columns_of
from tsdsl.learn.lemmas import apply_script, lemma_script
from tsdsl.learn.model import ModelError
from tsdsl.learn.tagfeatures import shape
from tsdsl.learn.tagger import (MIXED_SHARE, Tagger, TaggerError, _to_predict, jackknife, missing_words, mix_tags,
                                train_tagger)
from tsdsl.treebank.conllu import parse_conllu, read_conllu
from tsdsl.treebank.evaluate import evaluate
from tsdsl.learn.train import TrainOptions
from tsdsl.treebank.tokenize import words_of

TAGS = ("lemma", "upos", "xpos", "feats")


def emptied(sentences):
    return [s.with_columns({c: ["_"] * s.n for c in TAGS}) for s in sentences]


def accuracy(pred, gold, column):
    pairs = [(p, g) for a, b in zip(pred, gold) for p, g in zip(getattr(a, column), getattr(b, column))]
    return sum(p == g for p, g in pairs) / len(pairs)


# ---- pieces ---------------------------------------------------------------------------


@given(st.text(max_size=12), st.text(max_size=12))
def test_a_lemma_script_rebuilds_the_lemma(form, lemma):
    assert apply_script(form, lemma_script(form, lemma)) == lemma


def test_lemma_scripts_generalise():
    script = lemma_script("Studies", "study")
    assert apply_script("Flies", script) == "fly"
    assert apply_script("running", lemma_script("running", "run")) == "run"
    assert apply_script("cat", lemma_script("Studies", "study")) is None


@pytest.mark.parametrize("form, expected", [("Table", "Xxxx"), ("12.5", "dd.d"), ("iPhone", "xXxxx"),
                                            ("ΑΘΗΝΑ", "XXX"), ("---", "---"), ("U.S.", "X.X.")])
def test_shape(form, expected):
    assert shape(form) == expected


# ---- the tagger in process ------------------------------------------------------------


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    d = tmp_path_factory.mktemp("tagger")
    text = {"train": conllu_text(generate_treebank(300, seed=1), prefix="t", decorate=True),
            "dev": conllu_text(generate_treebank(60, seed=2), prefix="d", decorate=True)}
    for k, v in text.items():
        (d / f"{k}.conllu").write_text(v, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def tagger(toy):
    train = [columns_of(s) for s in read_conllu(toy / "train.conllu")]
    dev = [columns_of(s) for s in read_conllu(toy / "dev.conllu")]
    return train_tagger(train, dev, hash_bits=16, epochs=4)


def test_tagger_learns_the_toy_columns(tagger, toy):
    assert set(tagger.columns) == {"upos", "xpos", "feats", "lemma"}
    gold = read_conllu(toy / "dev.conllu")
    out, todo = tagger.tag([{"form": s.forms} for s in gold])
    assert all(t == {"upos", "xpos", "feats", "lemma"} for t in todo)
    pred = [parse_conllu(s.with_columns({c: o[c] for c in TAGS}).to_text())[0] for s, o in zip(gold, out)]
    assert accuracy(pred, gold, "upos") > 0.97
    assert accuracy(pred, gold, "xpos") > 0.97
    assert accuracy(pred, gold, "lemmas") > 0.97
    assert accuracy(pred, gold, "feats") > 0.6
    assert tagger.meta["dev_accuracy"]["upos"] > 0.97


def test_only_empty_columns_are_predicted(tagger):
    words = ["the", "dog", "sleeps", "."]
    given_upos = ["X", "X", "X", "X"]  # wrong on purpose: kept unless retag
    (out,), (todo,) = tagger.tag([{"form": words, "upos": given_upos}])
    assert out["upos"] == given_upos and "upos" not in todo and {"feats", "lemma", "xpos"} <= todo
    (out,), (todo,) = tagger.tag([{"form": words, "upos": given_upos}], retag=True)
    assert out["upos"] == ["DET", "NOUN", "VERB", "PUNCT"] and "upos" in todo


def test_a_partly_tagged_sentence_gets_its_gaps_filled_and_keeps_the_rest(tagger):
    words = ["the", "dog", "sleeps", "."]
    (untagged,), _ = tagger.fill([{"form": words}])
    given = {"form": words, "upos": ["X", "_", "X", "_"], "feats": ["A=1", "_", "_", "_"],
             "lemma": ["_", "_", "_", "_"], "xpos": ["x", "_", "x", "_"]}
    (out,), (predicted,) = tagger.fill([given])
    # UPOS: _ on a word is missing; the gaps get what an untagged sentence gets
    assert out["upos"] == ["X", untagged["upos"][1], "X", untagged["upos"][3]] == ["X", "NOUN", "X", "PUNCT"]
    assert predicted["upos"] == [False, True, False, True]
    # XPOS, FEATS: _ is a value, missing only where the word has no UPOS either
    assert out["xpos"][::2] == ["x", "x"] and "_" not in out["xpos"]
    assert out["feats"][:3:2] == ["A=1", "_"] and predicted["feats"] == [False, True, False, True]
    # LEMMA empty in the whole sentence: every word
    assert predicted["lemma"] == [True] * 4 and "_" not in out["lemma"]


def test_only_the_sentences_with_a_gap_are_tagged(tagger, monkeypatch):
    """A tagged file with a gap in a few sentences (all FEATS ``_``, a word without UPOS)
    costs the tagger those sentences: the others never reach a column's classifier, and the
    gaps get what filling each sentence alone gives."""
    words = [["the", "dog", "sleeps", "."], ["a", "red", "cat", "runs", "."], ["she", "sees", "Zork", "."]]
    full = [tagger.fill([{"form": w}])[0][0] for w in words]
    given = [{c: list(f[c]) for c in ("form",) + TAGS} for f in full]
    given[1] = dict(given[1], feats=["_"] * 5)                      # FEATS empty in the whole sentence
    given[2] = dict(given[2], upos=["PRON", "_", "PROPN", "PUNCT"])  # one word without UPOS
    seen = []
    predict = type(tagger.columns["upos"]).predict

    def spy(self, layout, *args, **kw):
        seen.append((self.name, len(layout.offsets) - 1))
        return predict(self, layout, *args, **kw)

    monkeypatch.setattr(type(tagger.columns["upos"]), "predict", spy)
    out, predicted = tagger.fill(given)
    assert seen and all(n == 2 for _, n in seen)                     # sentences 1 and 2, never 0
    assert out[0] == given[0] and predicted[0] == {}
    assert [tagger.fill([g])[0][0] for g in given[1:]] == out[1:]
    assert predicted[1] == {"feats": [True] * 5} and predicted[2]["upos"] == [False, True, False, False]


@given(st.lists(st.lists(st.sampled_from(["the", "dog", "sees", "a", "red", "cat", ".", "she", "runs", "Zork"]),
                         min_size=1, max_size=8), min_size=1, max_size=5))
def test_a_sentence_is_tagged_the_same_alone_or_in_a_batch(tagger, batch):
    together, _ = tagger.tag([{"form": s} for s in batch])
    alone = [tagger.tag([{"form": s}])[0][0] for s in batch]
    assert together == alone


def test_save_and_load_give_the_same_tags(tagger, tmp_path):
    tagger.save(tmp_path / "t")
    again = Tagger.load(tmp_path / "t")
    sents = [{"form": ["a", "small", "cat", "runs", "!"]}, {"form": ["they", "like", "Zork", "."]}]
    assert again.tag(sents) == tagger.tag(sents)
    assert sum(f.stat().st_size for f in (tmp_path / "t").iterdir()) < 2_000_000


@pytest.mark.parametrize("damage", ["missing", "truncated", "format"])
def test_a_damaged_tagger_is_refused(tagger, tmp_path, damage):
    d = tmp_path / "t"
    tagger.save(d)
    if damage == "missing":
        (d / "upos.weights.npy").unlink()
    elif damage == "truncated":
        (d / "feats.rows.npy").write_bytes((d / "feats.rows.npy").read_bytes()[:40])
    else:
        doc = json.loads((d / "tagger.json").read_text())
        doc["format"] = 99
        (d / "tagger.json").write_text(json.dumps(doc))
    with pytest.raises(TaggerError, match=str(d)):
        Tagger.load(d)


def _set_json(path, change):
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(change(doc)), encoding="utf-8")


@pytest.mark.parametrize("damage, file, fragment", [
    ("nan", "upos.weights.npy", "not finite"), ("inf", "feats.weights.npy", "not finite"),
    ("lemma not a string", "lemmas.json", "strings to non-empty strings"),
    ("lemmas a list", "lemmas.json", "strings to non-empty strings"),
    ("ambiguity", "ambiguity.json", "strings to non-empty strings"),
    ("not json", "lemmas.json", "not valid JSON"),
    ("classes", "tagger.json", "\"classes\""), ("sets", "tagger.json", "\"sets\""),
    ("pairs", "tagger.json", "\"script_pairs\""), ("hash bits", "tagger.json", "hash_bits"),
])
def test_a_tagger_with_junk_or_non_finite_weights_is_refused_naming_the_file(tagger, tmp_path, damage, file,
                                                                              fragment):
    d = tmp_path / "t"
    tagger.save(d)
    path = d / file
    if damage in ("nan", "inf"):
        vals = np.load(path)
        vals[len(vals) // 2] = np.nan if damage == "nan" else np.inf
        np.save(path, vals)
    elif damage == "lemma not a string":
        _set_json(path, lambda doc: {**doc, "x\x1fNOUN": 1})
    elif damage == "lemmas a list":
        path.write_text('["a", "b"]', encoding="utf-8")
    elif damage == "ambiguity":
        _set_json(path, lambda doc: {**doc, "dog": ["NOUN"]})
    elif damage == "not json":
        path.write_text('{"x": ', encoding="utf-8")
    else:
        def change(doc):
            if damage == "hash bits":
                doc["hash_bits"] = "16"
            else:
                col = doc["columns"]["lemma" if damage == "pairs" else "xpos"]
                key = {"classes": "classes", "sets": "sets", "pairs": "script_pairs"}[damage]
                col[key] = {"classes": [1, 2], "sets": {"NOUN": [10 ** 6]}, "pairs": [["NOUN", -1]]}[damage]
            return doc
        _set_json(path, change)
    with pytest.raises(TaggerError) as info:
        Tagger.load(d)
    assert str(info.value).startswith(f"{path}: ") and fragment in str(info.value), str(info.value)


def test_jackknife_tags_every_sentence_the_same_whatever_the_threads(tagger, toy, monkeypatch):
    gold = [columns_of(s) for s in read_conllu(toy / "train.conllu")][:120]
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    one = jackknife(gold, tagger, folds=3)
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert jackknife(gold, tagger, folds=3) == one
    assert [s["form"] for s in one] == [list(s["form"]) for s in gold]
    pairs = [(p, g) for s, t in zip(one, gold) for p, g in zip(s["upos"], t["upos"])]
    assert sum(p == g for p, g in pairs) / len(pairs) > 0.95
    # held-out predictions, not the gold columns copied: determiners' FEATS are guessed
    assert any(s["feats"] != list(t["feats"]) for s, t in zip(one, gold))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 400), share=st.sampled_from([0.0, MIXED_SHARE, 0.5, 1.0]), seed=st.integers(0, 9))
def test_mixed_tags_take_a_share_of_whole_sentences_from_the_jackknife(n, share, seed):
    gold = [{"form": [str(k)], "upos": ["G"]} for k in range(n)]
    predicted = [{"form": [str(k)], "upos": ["P"]} for k in range(n)]
    mixed = mix_tags(gold, predicted, share, seed)
    assert [s["form"] for s in mixed] == [s["form"] for s in gold]   # sentence k stays sentence k
    assert mixed == mix_tags(gold, predicted, share, seed)          # one draw, every epoch the same
    taken = sum(s["upos"] == ["P"] for s in mixed)
    if share in (0.0, 1.0):
        assert taken == share * n
    elif n >= 200:
        assert abs(taken / n - share) < 0.12


def test_no_tag_column_trains_no_tagger():
    assert train_tagger([{"form": ["a", "b"], "upos": ["_", "_"], "feats": ["_", "_"]}]) is None


# ---- tsdsl train / parse --------------------------------------------------------------


@pytest.fixture(scope="module")
def models(toy):
    """The toy treebank's arc-eager model with its tagger, and one trained --no-tagger."""
    out = {}
    for name, extra in (("with", ()), ("without", ("--no-tagger",))):
        target = toy / f"model-{name}"
        code, stdout, err = cli_subprocess("train", SYSTEMS / "arc-eager.ts", "--train", toy / "train.conllu",
                                           "--dev", toy / "dev.conllu", "--out", target, *FAST, *extra)
        assert code == 0, err[-3000:]
        out[name] = (target, stdout)
    return out


def test_train_reports_and_stores_the_tagger(models):
    target, stdout = models["with"]
    assert stdout.splitlines()[1].startswith("tagger: dev accuracy UPOS ")
    assert " LAS " in stdout.splitlines()[0] and " (predicted tags); trained in " in stdout.splitlines()[0]
    meta = json.loads((target / "model.json").read_text())
    assert meta["tag_columns"] == ["upos", "xpos", "feats", "lemma"]
    assert meta["parser_tags"] == "mixed"
    assert meta["tagger"]["dev_accuracy"]["upos"] > 0.97
    assert (target / "tagger" / "tagger.json").is_file()
    target, stdout = models["without"]
    assert len(stdout.splitlines()) == 1 and not (target / "tagger").exists()
    assert " LAS " in stdout and "predicted tags" not in stdout
    assert json.loads((target / "model.json").read_text())["tagger"] is None
    assert json.loads((target / "model.json").read_text())["parser_tags"] == "gold"


def test_parse_untagged_input_predicts_tags_and_stays_close_to_gold(models, toy, tmp_path):
    gold = read_conllu(toy / "dev.conllu")
    (tmp_path / "untagged.conllu").write_text("".join(s.to_text() for s in emptied(gold)), encoding="utf-8")
    code, _, err = cli("parse", models["with"][0], tmp_path / "untagged.conllu", "-o", tmp_path / "p.conllu")
    assert code == 0, err
    assert f"tagged {sum(s.n for s in gold)} words in {len(gold)} sentences" in err
    code, _, err = cli("parse", models["with"][0], toy / "dev.conllu", "-o", tmp_path / "g.conllu")
    assert "tagged" not in err
    pred, with_gold = read_conllu(tmp_path / "p.conllu"), read_conllu(tmp_path / "g.conllu")
    assert accuracy(pred, gold, "upos") > 0.97
    assert [s.upos for s in with_gold] == [s.upos for s in gold]  # gold columns kept
    assert [s.feats for s in with_gold] == [s.feats for s in gold]
    las_pred, las_gold = evaluate(gold, pred).las.score, evaluate(gold, with_gold).las.score
    assert las_gold - las_pred < 0.05, (las_gold, las_pred)


def test_retag_replaces_given_tags(models, toy, tmp_path):
    gold = read_conllu(toy / "dev.conllu")
    wrong = [s.with_columns({"upos": ["X"] * s.n}) for s in gold]
    (tmp_path / "wrong.conllu").write_text("".join(s.to_text() for s in wrong), encoding="utf-8")
    code, _, err = cli("parse", models["with"][0], tmp_path / "wrong.conllu", "-o", tmp_path / "kept.conllu")
    assert code == 0, err
    assert all(set(s.upos) == {"X"} for s in read_conllu(tmp_path / "kept.conllu"))
    code, _, err = cli("parse", models["with"][0], tmp_path / "wrong.conllu", "-o", tmp_path / "re.conllu", "--retag")
    assert code == 0, err
    assert accuracy(read_conllu(tmp_path / "re.conllu"), gold, "upos") > 0.97


def half_tagged(sentences):
    """The sentences with every tag column blanked on every even-numbered word (as the user
    trial's en-test-half.conllu)."""
    def blank(values):
        return [v if k % 2 == 0 else "_" for k, v in enumerate(values)]

    return [s.with_columns({"lemma": blank(s.lemmas), "upos": blank(s.upos), "xpos": blank(s.xpos),
                            "feats": blank(s.feats)}) for s in sentences]


def test_parse_partly_tagged_input_predicts_the_gaps(models, toy, tmp_path):
    gold = read_conllu(toy / "dev.conllu")
    half = half_tagged(gold)
    path = tmp_path / "half.conllu"
    path.write_text("".join(s.to_text() for s in half), encoding="utf-8")
    code, _, err = cli("parse", models["with"][0], path, "-o", tmp_path / "p.conllu")
    assert code == 0, err
    gaps = sum(u == "_" for s in half for u in s.upos)
    assert f"tagged {gaps} words in {sum(1 for s in half if '_' in s.upos)} sentences" in err, err
    pred = read_conllu(tmp_path / "p.conllu")
    assert all("_" not in s.upos for s in pred)
    assert [u for s in pred for u in s.upos[::2]] == [u for s in gold for u in s.upos[::2]]  # given kept
    assert accuracy(pred, gold, "upos") > 0.97
    code, _, err = cli("parse", models["with"][0], toy / "dev.conllu", "-o", tmp_path / "g.conllu")
    assert code == 0, err
    las_half = evaluate(gold, pred).las.score
    las_gold = evaluate(gold, read_conllu(tmp_path / "g.conllu")).las.score
    assert las_gold - las_half < 0.05, (las_gold, las_half)


def with_fourth_changed(tmp_path, gold, change):
    """A file of the gold sentences whose fourth one is ``change``d, and its sentences."""
    mixed = gold[:3] + change(gold[3:4]) + gold[4:]
    path = tmp_path / "mixed.conllu"
    path.write_text("".join(s.to_text() for s in mixed), encoding="utf-8")
    return path, mixed


def test_a_model_without_tagger_refuses_partly_tagged_input(models, toy, tmp_path):
    gold = read_conllu(toy / "dev.conllu")
    path, mixed = with_fourth_changed(tmp_path, gold, half_tagged)
    out = tmp_path / "never.conllu"
    code, _, err = cli("parse", models["without"][0], path, "-o", out)
    assert_refused(code, err, f"{path}:{mixed[3].line}:", "UPOS is empty (_) for", f"2 {gold[3].forms[1]!r}",
                   "no tagger")
    assert not out.exists()
    with pytest.raises(UsageError, match="no UPOS given for words 2 'dog'"):
        load_parser(models["without"][0]).parse(["the", "dog", "sleeps", "."], upos=["DET", "_", "VERB", "PUNCT"])


def test_a_model_without_tagger_refuses_untagged_input(models, toy, tmp_path):
    gold = read_conllu(toy / "dev.conllu")
    path, mixed = with_fourth_changed(tmp_path, gold, emptied)
    out = tmp_path / "never.conllu"
    code, _, err = cli("parse", models["without"][0], path, "-o", out)
    assert_refused(code, err, f"{path}:{mixed[3].line}:", "UPOS is empty", "no tagger")
    assert not out.exists()
    parser = load_parser(models["without"][0])
    with pytest.raises(UsageError, match="no UPOS given"):
        parser.parse(["the", "dog", "sleeps", "."])
    assert len(parser.parse(["the", "dog", "sleeps", "."], upos=["DET", "NOUN", "VERB", "PUNCT"])) == 4
    # UPOS given, FEATS and LEMMA empty everywhere: parsed, with a warning
    only_upos = [s.with_columns({"feats": ["_"] * s.n, "lemma": ["_"] * s.n}) for s in gold]
    path.write_text("".join(s.to_text() for s in only_upos), encoding="utf-8")
    code, _, err = cli("parse", models["without"][0], path, "-o", out)
    assert code == 0 and "warning: FEATS, LEMMA empty in every sentence" in err, err
    # plain text: the message speaks of text, not of an empty UPOS column (a user's trial)
    (tmp_path / "in.txt").write_text("the dog sleeps.\n", encoding="utf-8")
    code, _, err = cli("parse", models["without"][0], "--text", tmp_path / "in.txt", "-o", tmp_path / "t.conllu")
    assert code == 2 and not (tmp_path / "t.conllu").exists()
    assert_refused(code, err, f"tsdsl: {tmp_path / 'in.txt'}: plain text has no tags, and this model has no tagger",
                   "retrain it with its tagger")
    assert "UPOS is empty" not in err
    code, _, err = cli("parse", models["without"][0], toy / "dev.conllu", "--retag")
    assert_refused(code, err, "retag: this model has no tagger")


def test_a_training_file_without_tags_warns_and_the_model_ignores_them(toy, tmp_path):
    path = tmp_path / "notags.conllu"
    path.write_text("".join(s.to_text() for s in emptied(read_conllu(toy / "train.conllu"))), encoding="utf-8")
    target = tmp_path / "m"
    code, stdout, err = cli_subprocess("train", SYSTEMS / "arc-eager.ts", "--train", path, "--dev", toy / "dev.conllu",
                                       "--out", target, *FAST)
    assert code == 0, err
    meta = json.loads((target / "model.json").read_text())
    ignored = [c for c in ("upos", "xpos", "feats", "lemma") if c in meta["ignored_columns"]]
    assert ignored and "upos" in ignored and meta["tagger"] is None
    names = ", ".join(c.upper() for c in ignored)
    assert f"warning: {path}: {names} empty in every sentence" in err and "no tagger can be trained" in err, err
    assert "tagger:" not in stdout and "predicted tags" not in stdout
    # the dev file's gold tags are ignored as the training file's absence of them was: the
    # dev score of training is that of the untagged dev set, and tags do not change a parse
    gold = read_conllu(toy / "dev.conllu")
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text("".join(s.to_text() for s in emptied(gold)), encoding="utf-8")
    code, _, err = cli("parse", target, toy / "dev.conllu", "-o", tmp_path / "g.conllu")
    assert code == 0 and f"the model ignores {names}" in err, err
    assert cli("parse", target, untagged, "-o", tmp_path / "u.conllu")[0] == 0
    with_tags, without = read_conllu(tmp_path / "g.conllu"), read_conllu(tmp_path / "u.conllu")
    assert [(s.heads, s.deprels) for s in with_tags] == [(s.heads, s.deprels) for s in without]
    assert evaluate(gold, without).las.score == pytest.approx(meta["dev_las"])
    # a model written before the key existed reads the columns it is given, as it did
    del meta["ignored_columns"]
    (target / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    assert cli("parse", target, toy / "dev.conllu", "-o", tmp_path / "old.conllu")[0] == 0
    assert [s.heads for s in read_conllu(tmp_path / "old.conllu")] != [s.heads for s in without]


def test_parse_text_file_and_stdin(models, tmp_path, monkeypatch):
    import io

    text = "the big dog sees a cat.\n\nshe runs!\n"
    (tmp_path / "in.txt").write_text(text, encoding="utf-8")
    code, _, err = cli("parse", models["with"][0], "--text", tmp_path / "in.txt", "-o", tmp_path / "out.conllu")
    assert code == 0, err
    got = read_conllu(tmp_path / "out.conllu")
    assert [(s.sent_id, s.text) for s in got] == [("1", "the big dog sees a cat."), ("2", "she runs!")]
    assert got[0].forms == ("the", "big", "dog", "sees", "a", "cat", ".")
    assert got[0].upos == ("DET", "ADJ", "NOUN", "VERB", "DET", "NOUN", "PUNCT")
    assert got[0].words[5].misc == "SpaceAfter=No"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))
    code, out, err = cli("parse", models["with"][0], "--text", "-", "--quiet")
    assert code == 0, err
    assert out == (tmp_path / "out.conllu").read_text(encoding="utf-8")
    code, _, err = cli("parse", models["with"][0], tmp_path / "in.txt", "--text", tmp_path / "in.txt")
    assert_refused(code, err, "not both")


def test_parse_text_splits_lone_cr_lines_and_warns_about_conllu(models, toy, tmp_path):
    """A user's trial: an old-Mac text (CR line ends) was one sentence, and `--text dev.conllu`
    parsed CoNLL-U as text with exit 0 and no word."""
    (tmp_path / "mac.txt").write_bytes(b"the big dog sees a cat.\rshe runs!\r")
    code, _, err = cli("parse", models["with"][0], "--text", tmp_path / "mac.txt", "-o", tmp_path / "out.conllu",
                       "--quiet")
    assert (code, err) == (0, "")
    assert [s.text for s in read_conllu(tmp_path / "out.conllu")] == ["the big dog sees a cat.", "she runs!"]
    code, _, err = cli("parse", models["with"][0], "--text", toy / "dev.conllu", "-o", tmp_path / "c.conllu",
                       "--quiet")
    assert code == 0 and err.count("warning:") == 1, err
    assert err.startswith(f"warning: {toy / 'dev.conllu'}:") and "the file looks like CoNLL-U" in err, err


def test_python_api_takes_a_string_or_words(models):
    parser = load_parser(models["with"][0])
    by_text = parser.parse("the big dog sees a cat.")
    by_words = parser.parse(words_of("the big dog sees a cat."))
    assert by_text == by_words and len(by_text) == 7
    assert by_text.forms == ["the", "big", "dog", "sees", "a", "cat", "."]
    assert by_text.upos == ["DET", "ADJ", "NOUN", "VERB", "DET", "NOUN", "PUNCT"]
    assert len(parser.parse("dog")) == 1  # a string is never a list of characters
    assert parser.parse("") == [] and parser.parse("   ") == []
    lines = by_text.to_conllu().splitlines()
    assert lines[0] == "# text = the big dog sees a cat." and lines[3].split("\t")[:4] == ["3", "dog", "dog", "NOUN"]
    with pytest.raises(UsageError, match="not a string"):
        parser.parse(["the", "dog"], upos="DET NOUN")


def test_python_api_writes_text_and_space_after_as_parse_text_does(models, tmp_path):
    """A user's trial: `load_parser(M).parse("text").to_conllu()` left out the `# text` and
    `SpaceAfter=No` that `tsdsl parse --text` writes for the same line."""
    line = "the  big dog\tsees a cat."
    (tmp_path / "in.txt").write_text(line + "\n", encoding="utf-8")
    code, out, err = cli("parse", models["with"][0], "--text", tmp_path / "in.txt", "--quiet")
    assert code == 0, err
    parsed = load_parser(models["with"][0]).parse(line)
    assert parsed.text == "the big dog sees a cat." and parsed.space_after[-2:] == [False, True]
    assert parsed.to_conllu() == out.replace("# sent_id = 1\n", "")  # one sentence: no sent_id
    # a list of words has no known spacing: no comment, MISC _
    listed = load_parser(models["with"][0]).parse(words_of(line)).to_conllu()
    assert not listed.startswith("#") and "SpaceAfter" not in listed


def test_a_model_with_a_damaged_tagger_is_refused(models, tmp_path):
    copy = tmp_path / "m"
    shutil.copytree(models["with"][0], copy)
    (copy / "tagger" / "tagger.json").write_text("{", encoding="utf-8")
    with pytest.raises(ModelError, match="tagger"):
        load_parser(copy)


def test_a_model_whose_tagger_directory_is_gone_is_refused(models, toy, tmp_path):
    """model.json records a tagger, tagger/ was deleted: the model is damaged, not one
    trained without a tagger (which would refuse untagged input and parse tagged input)."""
    copy = tmp_path / "m"
    shutil.copytree(models["with"][0], copy)
    shutil.rmtree(copy / "tagger")
    with pytest.raises(ModelError) as info:
        load_parser(copy)
    assert str(info.value).startswith(f"{copy / 'tagger'}: missing (model.json records a tagger for upos")
    for argv in (("--text", toy / "dev.conllu"), (toy / "dev.conllu",)):
        code, _, err = cli("parse", copy, *argv, "-o", tmp_path / "never.conllu")
        assert_refused(code, err, f"{copy / 'tagger'}: missing", "the model is damaged")
        assert code == 2 and not (tmp_path / "never.conllu").exists()
    (copy / "tagger").write_text("", encoding="utf-8")
    with pytest.raises(ModelError, match="tagger: not a directory"):
        load_parser(copy)


def test_a_model_with_nan_tagger_weights_is_refused_naming_the_file(models, toy, tmp_path):
    copy = tmp_path / "m"
    shutil.copytree(models["with"][0], copy)
    path = copy / "tagger" / "upos.weights.npy"
    np.save(path, np.full_like(np.load(path), np.nan))
    code, _, err = cli("parse", copy, toy / "dev.conllu", "-o", tmp_path / "never.conllu")
    assert_refused(code, err, f"{path}: ", "not finite")
    assert code == 2


def test_no_tagger_with_an_explicit_predicted_parser_tags_is_a_usage_error(toy, tmp_path):
    for choice in ("jackknife", "mixed"):
        code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", toy / "train.conllu", "--out",
                           tmp_path / "m", *FAST, "--no-tagger", "--parser-tags", choice)
        assert_refused(code, err, f"--no-tagger and --parser-tags {choice} contradict")
        assert code == 2 and not (tmp_path / "m").exists()
    # the API's default (mixed) is no choice: --no-tagger alone trains, and so does gold
    TrainOptions(tagger=False).check()
    TrainOptions(tagger=False, parser_tags="gold", parser_tags_given=True).check()
    with pytest.raises(UsageError, match="contradict"):
        TrainOptions(tagger=False, parser_tags="jackknife", parser_tags_given=True).check()


def test_an_explicit_parser_tags_on_an_untagged_training_file_warns_that_it_became_gold(toy, tmp_path):
    path = tmp_path / "notags.conllu"
    path.write_text("".join(s.to_text() for s in emptied(read_conllu(toy / "train.conllu"))), encoding="utf-8")
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", path, "--out", tmp_path / "j", "--epochs", "1",
                       "--hash-bits", "14", "--quiet", "--parser-tags", "jackknife")
    assert code == 0, err
    assert "warning: --parser-tags jackknife became gold: the training file has no tags" in err, err
    assert json.loads((tmp_path / "j" / "model.json").read_text())["parser_tags"] == "gold"
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", path, "--out", tmp_path / "d", "--epochs", "1",
                       "--hash-bits", "14", "--quiet")
    assert code == 0 and "--parser-tags" not in err, err
    meta = json.loads((tmp_path / "d" / "model.json").read_text())
    assert meta["parser_tags"] == "gold" and meta["args"]["parser_tags"] == "mixed"


# ---- input the model was not trained on: unknown UPOS values, text not in NFC -------------


def test_unknown_upos_values_are_warned_of(models, toy, tmp_path):
    gold = read_conllu(toy / "dev.conllu")
    lowered = [s.with_columns({"upos": [u.lower() for u in s.upos]}) for s in gold]
    path = tmp_path / "lower.conllu"
    path.write_text("".join(s.to_text() for s in lowered), encoding="utf-8")
    words = sum(s.n for s in gold)
    for name in ("with", "without"):  # the training file's values are in model.json, tagger or not
        assert json.loads((models[name][0] / "model.json").read_text())["upos_values"] == \
            sorted({u for s in read_conllu(toy / "train.conllu") for u in s.upos})
        code, _, err = cli("parse", models[name][0], path, "-o", tmp_path / f"{name}.conllu")
        assert code == 0, err
        assert f"warning: {words} of {words} words have a UPOS value this model never saw in training" in err, err
        assert f"first at {path}, the sentence at line {lowered[0].line}, word 1" in err and "--retag" in err
    code, _, err = cli("parse", models["with"][0], path, "-o", tmp_path / "retagged.conllu", "--retag")
    assert code == 0 and "never saw" not in err, err
    code, _, err = cli("parse", models["with"][0], toy / "dev.conllu", "-o", tmp_path / "gold.conllu")
    assert code == 0 and "never saw" not in err, err
    parser = load_parser(models["without"][0])
    with pytest.warns(UserWarning, match=r"2 of 2 words have a UPOS value this model never saw.*'det', 'noun'"):
        parser.parse(["the", "dog"], upos=["det", "noun"])


def test_text_not_in_nfc_reads_as_nfc():
    import unicodedata

    from tsdsl.learn.tokens import nfc_words, token_table

    nfc = ["ενέκρινε", "café", "naïve", "plain"]
    nfd = [unicodedata.normalize("NFD", w) for w in nfc]
    assert nfd[:3] != nfc[:3] and nfc_words(nfd) == nfc
    cols = {"upos": ["X"] * 4, "xpos": ["_"] * 4, "feats": ["_"] * 4}
    attrs = ["form", "lower", "lemma", "upos"]
    assert (token_table(attrs, [dict(cols, form=nfd, lemma=nfd)]) ==
            token_table(attrs, [dict(cols, form=nfc, lemma=nfc)])).all()
    train = [{"form": ["ο", "Υπουργός", "ενέκρινε", "το", "σχέδιο"], "upos": ["DET", "NOUN", "VERB", "DET", "NOUN"],
              "lemma": ["ο", "υπουργός", "εγκρίνω", "ο", "σχέδιο"]}] * 20
    tagger = train_tagger(train, hash_bits=14, epochs=3)
    given = {"form": train[0]["form"], "upos": ["_"] * 5, "lemma": ["_"] * 5}
    (as_nfc,), _ = tagger.fill([given])
    (as_nfd,), _ = tagger.fill([dict(given, form=[unicodedata.normalize("NFD", w) for w in given["form"]])])
    assert as_nfd["upos"] == as_nfc["upos"] and as_nfd["lemma"] == as_nfc["lemma"]
    assert as_nfd["form"][2] == unicodedata.normalize("NFD", "ενέκρινε")  # the words themselves stay as given


def test_punctuation_only_words_are_tagged_punct_when_training_always_does():
    from tsdsl.learn.punct_rule import apply_rule, learn_rule, punctuation_only

    assert punctuation_only("?!...") and punctuation_only("—“") and not punctuation_only("a.") \
        and not punctuation_only("$") and not punctuation_only("")
    forms, upos = [".", ",", "dog"] * 10, ["PUNCT", "PUNCT", "NOUN"] * 10
    assert learn_rule(forms, upos, forms) == {"upos": "PUNCT", "lemma_is_form": True}
    assert learn_rule(forms[:9], upos[:9], None) is None                        # too few words to learn from
    assert learn_rule(forms, ["SYM" if u == "PUNCT" else u for u in upos], None) is None  # another tagset
    rule = {"upos": "PUNCT", "lemma_is_form": True}
    assert apply_rule(rule, "upos", ["---", "a", ";;"], ["NOUN", "NOUN", "ADJ"], [True, True, False]) == \
        ["PUNCT", "NOUN", "ADJ"]                                                 # given values are kept
    assert apply_rule(rule, "lemma", ["---"], [";;ς"], [True]) == ["---"]
    assert apply_rule("junk", "upos", ["---"], ["NOUN"], [True]) == ["NOUN"]    # a damaged rule is ignored
    train = [{"form": ["the", "dog", "barks", ",", "the", "cat", "sleeps", "."],
              "upos": ["DET", "NOUN", "VERB", "PUNCT", "DET", "NOUN", "VERB", "PUNCT"]}] * 15
    tagger = train_tagger(train, hash_bits=14, epochs=2)
    assert tagger.meta["punct"] == {"upos": "PUNCT", "lemma_is_form": False}
    (out,), _ = tagger.fill([{"form": ["the", "dog", "---", "barks", "!!!"], "upos": ["_"] * 5}])
    assert out["upos"][2] == out["upos"][4] == "PUNCT"


def test_a_dev_file_with_unknown_upos_values_is_warned_of(toy, tmp_path):
    """`parse` warned of UPOS values the model never saw, `train --dev` did not, and picked its
    epoch on a dev LAS of 3.56 (a re-check of trial 25's fix)."""
    gold = read_conllu(toy / "dev.conllu")
    path = tmp_path / "dev-lower.conllu"
    path.write_text("".join(s.with_columns({"upos": [u.lower() for u in s.upos]}).to_text() for s in gold),
                    encoding="utf-8")
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", toy / "train.conllu", "--dev", path, "--out",
                       tmp_path / "m", *FAST, "--no-tagger")
    words = sum(s.n for s in gold)
    assert code == 0 and f"warning: {path}: {words} of {words} dev words have a UPOS value the training file does " \
        "not have" in err, err
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", toy / "train.conllu", "--dev", toy / "dev.conllu",
                       "--out", tmp_path / "n", *FAST, "--no-tagger")
    assert code == 0 and "dev words have a UPOS value" not in err, err


@given(st.lists(st.tuples(st.sampled_from(["NOUN", "_", "PUNCT"]), st.sampled_from(["Sg", "_"]),
                          st.sampled_from(["nn", "_"]), st.sampled_from(["dog", "_"])), max_size=5),
       st.sets(st.sampled_from(["upos", "xpos", "feats", "lemma"])), st.booleans())
def test_the_columns_to_predict_are_missing_words_per_column(words, absent, tuples):
    """_to_predict's shortcut for a sentence whose every word has its UPOS decides as
    missing_words does, column by column (absent columns, ``_`` throughout, some ``_``)."""
    seq = tuple if tuples else list
    cols = {"form": seq("w" * (k + 1) for k in range(len(words)))}
    for k, name in enumerate(("upos", "feats", "xpos", "lemma")):
        if name not in absent:
            cols[name] = seq(w[k] for w in words)
    names = ("upos", "xpos", "feats", "lemma")
    masks = {c: missing_words(cols, c) for c in names}
    assert _to_predict(cols, names, False) == {c: m for c, m in masks.items() if True in m}
    assert _to_predict(cols, names, True) == {c: [True] * len(words) for c in names}
