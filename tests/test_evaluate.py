"""The evaluator: scores computed by hand on two tiny treebanks, mismatch errors, the CLI.

Gold sentence A (6 words) is non-projective; the arcs, with the root at position 0::

    1 <- 3 (nsubj)   2 <- 5 (obl:tmod)   3 <- 0 (root)   4 <- 5 (case)   5 <- 3 (obl)   6 <- 3 (punct, PUNCT)

Arc 2-5 crosses 1-3, the root arc 0-3 and 3-6, so the crossing arcs are those of words
1, 2, 3 and 6.  Gold sentence B (9 words) is a chain 1 <- 2 <- ... <- 8 under the root 1,
plus a punctuation mark 9 <- 1 (length 8).  A has a multiword token (4-5) and an empty
node (5.1) whose columns would break the counts if they were read as words.

Predicted A: heads right for 1, 3, 4, 5; labels: 1 nsubj:pass (universal right, full wrong),
4 det (wrong), 3 and 5 right.  Predicted B: a second root (4), an unattached word (6),
8 attached to 1 (length 7); 2 labelled dep instead of dep:x.

Hand counts (punctuation: gold words 6 of A and 9 of B)::

            all words   without punctuation
    UAS     10 / 15     9 / 13
    LAS      9 / 15     8 / 13      (universal labels, the CoNLL 2018 LAS)
    LAS-full 7 / 15     6 / 13
    CUR      2 / 4      (words 1 and 3 of A)
    root     correct 2, gold 2, predicted 3
    length   1: correct 5, gold 8, pred 7;  2: 2, 2, 2;  3-6: 0, 2, 0;  7+: 1, 1, 2
"""

from __future__ import annotations

import json

import pytest

from tsdsl.cli import main
from tsdsl.treebank.conllu import parse_conllu
from tsdsl.errors import UsageError
from tsdsl.treebank.evaluate import MismatchError, crossing_arcs, evaluate, evaluate_files, length_bin


def w(i, form, upos, head, deprel):
    return "\t".join([str(i), form, "_", upos, "_", "_", str(head), deprel, "_", "_"]) + "\n"


def extra_line(tid, form):
    return f"{tid}\t{form}" + "\t_" * 8 + "\n"


GOLD_A = (
    "# sent_id = A\n"                           # line 1
    + w(1, "a1", "NOUN", 3, "nsubj")
    + w(2, "a2", "NOUN", 5, "obl:tmod")
    + w(3, "a3", "VERB", 0, "root")
    + extra_line("4-5", "a4a5")                 # line 5: multiword token
    + w(4, "a4", "ADP", 5, "case")
    + w(5, "a5", "NOUN", 3, "obl")
    + extra_line("5.1", "a5")                   # line 8: empty node
    + w(6, ".", "PUNCT", 3, "punct")
    + "\n"                                      # line 10
)
GOLD_B = (
    "# sent_id = B\n"                           # line 11
    + w(1, "b1", "VERB", 0, "root")             # line 12
    + "".join(w(i, f"b{i}", "NOUN", i - 1, "dep:x" if i == 2 else "dep") for i in range(2, 9))
    + w(9, "!", "PUNCT", 1, "punct")            # line 20
    + "\n"
)
GOLD = GOLD_A + GOLD_B

PRED_A = (
    "# sent_id = A\n"                           # line 1
    + w(1, "a1", "PUNCT", 3, "nsubj:pass")      # predicted UPOS must not matter
    + w(2, "a2", "NOUN", 3, "obl:tmod")
    + w(3, "a3", "VERB", 0, "root")
    + w(4, "a4", "ADP", 5, "det")
    + w(5, "a5", "NOUN", 3, "obl")
    + w(6, ".", "X", 5, "punct")                # line 7
    + "\n"                                      # line 8
)
PRED_B_WORDS = [
    w(1, "b1", "VERB", 0, "root"),              # line 10
    w(2, "b2", "NOUN", 1, "dep"),
    w(3, "b3", "NOUN", 2, "dep"),
    w(4, "b4", "NOUN", 0, "root"),              # line 13
    w(5, "b5", "NOUN", 4, "dep"),
    w(6, "b6", "NOUN", "_", "_"),
    w(7, "b7", "NOUN", 6, "dep"),
    w(8, "b8", "NOUN", 1, "dep"),
    w(9, "!", "PUNCT", 1, "punct"),             # line 18
]
PRED_B = "# sent_id = B\n" + "".join(PRED_B_WORDS) + "\n"  # lines 9-19
PRED = PRED_A + PRED_B


def files(tmp_path, gold=GOLD, pred=PRED):
    g, p = tmp_path / "gold.conllu", tmp_path / "pred.conllu"
    g.write_text(gold, encoding="utf-8")
    p.write_text(pred, encoding="utf-8")
    return g, p


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the measures ---------------------------------------------------------------------


def test_hand_computed_scores(tmp_path):
    s = evaluate_files(*files(tmp_path))
    assert (s.sentences, s.words, s.punctuation) == (2, 15, 2)
    assert (s.uas.correct, s.uas.total) == (10, 15)
    assert (s.las.correct, s.las.total) == (9, 15)
    assert (s.las_full.correct, s.las_full.total) == (7, 15)
    assert (s.uas_no_punct.correct, s.uas_no_punct.total) == (9, 13)
    assert (s.las_no_punct.correct, s.las_no_punct.total) == (8, 13)
    assert (s.las_full_no_punct.correct, s.las_full_no_punct.total) == (6, 13)
    assert (s.crossing.correct, s.crossing.total) == (2, 4)
    assert (s.root.correct, s.root.gold, s.root.predicted) == (2, 2, 3)
    assert s.root.recall == 1.0 and s.root.precision == pytest.approx(2 / 3)
    got = {k: (v.correct, v.gold, v.predicted) for k, v in s.by_length.items()}
    assert got == {"1": (5, 8, 7), "2": (2, 2, 2), "3-6": (0, 2, 0), "7+": (1, 1, 2)}
    assert s.by_length["3-6"].precision is None and s.by_length["3-6"].recall == 0.0
    assert s.uas.score == pytest.approx(10 / 15) and s.las.score == pytest.approx(9 / 15)


def test_untagged_gold_leaves_out_punct_relations():
    """Without gold UPOS the gold relation decides: the same counts as the tagged file.  A
    word tagged other than PUNCT stays in the count whatever its relation (gold UPOS first)."""
    untagged = "".join(line.replace("\tPUNCT\t", "\t_\t") for line in GOLD.splitlines(keepends=True))
    assert "PUNCT" not in untagged
    tagged = evaluate(parse_conllu(GOLD), parse_conllu(PRED, require_heads=False, allow_multiple_roots=True))
    plain = evaluate(parse_conllu(untagged), parse_conllu(PRED, require_heads=False, allow_multiple_roots=True))
    assert plain.punctuation == tagged.punctuation == 2
    assert (plain.las_no_punct.correct, plain.las_no_punct.total) == (tagged.las_no_punct.correct, 13)
    relabeled = untagged.replace(w(9, "!", "_", 1, "punct"), w(9, "!", "SYM", 1, "punct"))
    assert relabeled != untagged
    assert evaluate(parse_conllu(relabeled), parse_conllu(PRED, require_heads=False,
                                                          allow_multiple_roots=True)).punctuation == 1


def test_api_on_parsed_sentences_names_the_files():
    gold = parse_conllu(GOLD, file="g.conllu")
    pred = parse_conllu(PRED, file="p.conllu", require_heads=False, allow_multiple_roots=True)
    s = evaluate(gold, pred)
    assert (s.uas.correct, s.las.correct, s.las_full.correct) == (10, 9, 7)
    assert (s.gold_file, s.pred_file) == ("g.conllu", "p.conllu")


def test_multiword_tokens_and_empty_nodes_are_ignored(tmp_path):
    plain_gold = GOLD.replace(extra_line("4-5", "a4a5"), "").replace(extra_line("5.1", "a5"), "")
    assert plain_gold.count("\n") == GOLD.count("\n") - 2
    # the prediction carries its own, different, multiword token and empty nodes
    pred = PRED.replace(w(1, "a1", "PUNCT", 3, "nsubj:pass"),
                        extra_line("1-2", "zz") + w(1, "a1", "PUNCT", 3, "nsubj:pass")
                        + extra_line("1.1", "q") + extra_line("1.2", "r"))
    for gold in (GOLD, plain_gold):
        for p in (PRED, pred):
            s = evaluate_files(*files(tmp_path, gold, p))
            assert (s.words, s.uas.correct, s.las.correct, s.las_full.correct) == (15, 10, 9, 7)


def test_perfect_prediction_and_empty_treebank(tmp_path):
    s = evaluate_files(*files(tmp_path, GOLD, GOLD))
    assert s.uas.correct == s.las_full.correct == 15 and s.crossing.correct == 4
    assert (s.root.correct, s.root.gold, s.root.predicted) == (2, 2, 2)
    e = evaluate([], [])
    assert e.words == 0 and e.uas.score is None and e.root.precision is None
    assert e.to_dict()["uas"] == {"correct": 0, "total": 0, "score": None}


def test_crossing_arcs_by_hand():
    assert crossing_arcs([3, 5, 0, 5, 3, 3]) == [1, 2, 3, 6]  # gold A
    assert crossing_arcs([0, 1, 2, 3]) == []  # a chain
    # the root arc 0-2 and the arc 1-3 cross; arc 1-2 shares a word with each of them
    assert crossing_arcs([2, 0, 1]) == [2, 3]
    # 1-3 and 2-4 cross, and so do the root arc 0-3 and 2-4; 3-4 shares a word with both
    assert crossing_arcs([3, 4, 0, 3]) == [1, 2, 3]
    # root 2, 2 -> 4 -> 1 -> 3: every arc crosses one (docs/evaluation.md), though 2 -> 4 is projective
    assert crossing_arcs([4, 0, 1, 2]) == [1, 2, 3, 4]
    assert crossing_arcs([None, 0]) == []


def test_length_bins():
    assert [length_bin(h, 10) for h in (0, 9, 12, 13, 16, 17, 1)] == [None, "1", "2", "3-6", "3-6", "7+", "7+"]


def test_extra_counters_are_reported(tmp_path, capsys):
    g, p = files(tmp_path)
    s = evaluate_files(g, p, extra={"repairs": 3, "unshift": 1})
    assert s.to_dict()["extra"] == {"repairs": 3, "unshift": 1}
    text = s.render_text().splitlines()
    assert "extra counters" in text and text[-2].split() == ["repairs", "3"]
    assert evaluate_files(g, p).to_dict()["extra"] == {}
    for bad in ({"repairs": "3"}, {"": 1}, {"x": True}, {"x": float("nan")}, [("x", 1)]):
        with pytest.raises(UsageError):
            evaluate_files(g, p, extra=bad)


# ---- mismatches -----------------------------------------------------------------------------


@pytest.mark.parametrize("pred, where, message", [
    (PRED.replace(w(4, "b4", "NOUN", 0, "root"), w(4, "X", "NOUN", 0, "root")), "pred.conllu:13",
     "word 4 of sentence 2 is 'X', but 'b4' in the gold file ({g}:15)"),
    (PRED_A, "gold.conllu:11", "2 sentences, but 1 in the predicted file ({p}): sentence 2 has no prediction"),
    (PRED + PRED_A, "pred.conllu:20", "3 sentences, but 2 in the gold file ({g}): sentence 3 is extra"),
    (PRED_A + PRED_B.replace(PRED_B_WORDS[-1], ""), "pred.conllu:9",
     "sentence 2 has 8 words, but 9 in the gold file ({g}:11): word 9 '!' is missing"),
    (PRED_A + PRED_B.replace(PRED_B_WORDS[-1], PRED_B_WORDS[-1] + w(10, "?", "PUNCT", 1, "punct")), "pred.conllu:19",
     "sentence 2 has 10 words, but 9 in the gold file ({g}:11): word 10 '?' is extra"),
    (PRED_B, "pred.conllu:2", "word 1 of sentence 1 is 'b1', but 'a1' in the gold file ({g}:2)"),
])
def test_mismatch_is_located(tmp_path, capsys, pred, where, message):
    g, p = files(tmp_path, GOLD, pred)
    expected = f"{tmp_path}/{where}: " + message.format(g=g, p=p)
    with pytest.raises(MismatchError) as info:
        evaluate_files(g, p)
    assert str(info.value) == expected
    code, out, err = run(capsys, "eval", str(g), str(p))
    assert (code, out, err) == (1, "", expected + "\n")


def test_malformed_prediction_is_located_without_traceback(tmp_path, capsys):
    g, p = files(tmp_path, GOLD, PRED.replace(w(5, "b5", "NOUN", 4, "dep"), w(5, "b5", "NOUN", 12, "dep")))
    code, out, err = run(capsys, "eval", str(g), str(p))
    assert code == 1 and out == ""
    assert err == f"{p}:14: HEAD 12 out of range 0..9\n"


def test_missing_file(tmp_path, capsys):
    g, _ = files(tmp_path)
    code, out, err = run(capsys, "eval", str(g), str(tmp_path / "nope.conllu"))
    # a usage error, worded as train words it (exit 2; it was the raw OS error, exit 1)
    assert (code, err) == (2, f"tsdsl: cannot read the predicted file {tmp_path / 'nope.conllu'}: no such file\n")


# ---- command line ---------------------------------------------------------------------------


def test_cli_text(tmp_path, capsys):
    g, p = files(tmp_path)
    code, out, err = run(capsys, "eval", str(g), str(p))
    assert code == 0 and err == ""
    rows = [line.split() for line in out.splitlines()]
    assert out.splitlines()[:3] == [f"gold: {g}", f"pred: {p}", "2 sentences, 15 words (2 punctuation)"]
    expected = [
        ["UAS", "10", "15", "66.67"],
        ["LAS", "(universal", "labels,", "CoNLL", "2018)", "9", "15", "60.00"],
        ["LAS", "(full", "labels)", "7", "15", "46.67"],
        ["UAS", "without", "punctuation", "9", "13", "69.23"],
        ["LAS", "without", "punctuation", "8", "13", "61.54"],
        ["LAS", "(full", "labels)", "without", "punct.", "6", "13", "46.15"],
        ["CUR", "(crossing", "arcs,", "recall)", "2", "4", "50.00"],
        ["root", "2", "2", "3", "66.67", "100.00"],
        ["length", "1", "5", "8", "7", "71.43", "62.50"],
        ["length", "2", "2", "2", "2", "100.00", "100.00"],
        ["length", "3-6", "0", "2", "0", "n/a", "0.00"],
        ["length", "7+", "1", "1", "2", "50.00", "100.00"],
    ]
    for row in expected:
        assert row in rows, row


def test_cli_json(tmp_path, capsys):
    g, p = files(tmp_path)
    code, out, err = run(capsys, "eval", "--json", str(g), str(p))
    assert code == 0 and err == ""
    d = json.loads(out)
    assert (d["gold"], d["pred"], d["sentences"], d["words"], d["punctuation"]) == (str(g), str(p), 2, 15, 2)
    assert d["uas"] == {"correct": 10, "total": 15, "score": pytest.approx(10 / 15)}
    assert d["las"]["correct"] == 9 and d["las_full"]["correct"] == 7
    assert (d["uas_no_punct"]["correct"], d["las_no_punct"]["correct"], d["las_full_no_punct"]["correct"]) == (9, 8, 6)
    assert d["crossing"] == {"correct": 2, "total": 4, "score": 0.5}
    assert d["root"] == {"correct": 2, "gold": 2, "predicted": 3, "precision": pytest.approx(2 / 3), "recall": 1.0}
    assert list(d["arc_length"]) == ["1", "2", "3-6", "7+"]
    assert d["arc_length"]["3-6"] == {"correct": 0, "gold": 2, "predicted": 0, "precision": None, "recall": 0.0}
    assert d["extra"] == {}


def test_forms_are_compared_in_nfc():
    """A parse keeps NFD words as given; scoring it against the NFC gold file failed with
    `'Κύριε', but 'Κύριε'` (a re-check of trial 25's NFC fix)."""
    import unicodedata

    from tsdsl.treebank.conllu import parse_conllu
    from tsdsl.treebank.evaluate import evaluate

    row = "1\t{}\t_\tNOUN\t_\t_\t0\troot\t_\t_\n\n"
    gold = parse_conllu(row.format("Κύριε"), "g.conllu")
    pred = parse_conllu(row.format(unicodedata.normalize("NFD", "Κύριε")), "p.conllu")
    assert evaluate(gold, pred).las.score == 1.0
