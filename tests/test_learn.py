"""The learner end to end: train tiny models on a generated treebank, parse, score, reload.

Every model is trained once per module (``--hash-bits 14``, three epochs, a few hundred
generated sentences: well under a second each once the kernels are built), by ``tsdsl
train`` in a child process so that a crashing kernel fails tests rather than the session;
parsing, evaluation and refusals run in process through ``tsdsl.cli.main``.  Trained models
live in one module work directory and are named by *relative* paths from it: a kernel's
cache key includes the path of the spec it was generated from (``DIR/spec/*.ts`` for a
model directory), so stable relative names let the kernels of loaded models come from the
cache on every run after the first (see ``test_copied_model_reuses_its_kernel``).

The treebank is a tiny grammar (determiner, adjectives, noun, verb, object, punctuation;
FEATS agree inside noun phrases), one sentence in ten non-projective (a prepositional
phrase after the verb attached to the subject), so a working learner scores near 100%.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tsdsl.cli import main
from tsdsl.cli.parsers import heads_digest
from tsdsl.treebank.conllu import read_conllu, write_conllu
from tsdsl.errors import UsageError
from tsdsl.learn import load_parser
from tsdsl.learn import model as model_io
from tsdsl.learn.model import ModelError
from tsdsl.treebank.projectivize import LIFT_MARK
from tsdsl.treebank.trees import is_projective, is_tree

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"

# ---------------------------------------------------------------------------------
# a learnable generated treebank
# ---------------------------------------------------------------------------------

VOCAB = {
    "DET": ["the", "a", "every", "some", "this"],
    "ADJ": ["big", "small", "red", "old", "happy", "green"],
    "NOUN": ["dog", "cat", "man", "idea", "house", "tree", "river"],
    "PRON": ["she", "he", "they", "it"],
    "TVERB": ["sees", "likes", "eats", "finds", "wants"],
    "IVERB": ["sleeps", "runs", "arrived", "smiled"],
    "ADV": ["often", "yesterday", "quickly"],
    "ADP": ["with", "from"],
    "PUNCT": [".", "!"],
}
NONPROJECTIVE_EVERY = 10
TRAIN_SENTENCES = 300
DEV_SENTENCES = 60


def generate_sentence(rng: random.Random, *, nonprojective: bool = False) -> list[tuple[str, str, str, int, str]]:
    """One sentence as (form, upos, feats, head, deprel) rows, heads in CoNLL-U numbering.

    Projective: ``(PRON | DET ADJ{0,2} NOUN) VERB ADV? (DET ADJ{0,2} NOUN)? PUNCT``, 3 to 11
    words.  Non-projective: ``DET NOUN VERB ADV ADP DET ADJ? NOUN PUNCT`` where the
    prepositional phrase modifies the subject, crossing the root arc (8 or 9 words).
    E.g. ``[("she", "PRON", "Person=3", 2, "nsubj"), ("runs", "VERB", "Tense=Pres", 0,
    "root"), (".", "PUNCT", "_", 2, "punct")]``.
    """
    rows: list[list] = []

    def word(upos, head, deprel, feats="_", vocab=None) -> int:
        rows.append([rng.choice(VOCAB[vocab or upos]), upos, feats, head, deprel])
        return len(rows) - 1

    def noun_phrase(head, deprel, max_adj) -> int:
        number = rng.choice(["Sing", "Plur"])
        dependents = [word("DET", None, "det", f"Number={number}")]
        dependents += [word("ADJ", None, "amod", "Degree=Pos") for _ in range(rng.randint(0, max_adj))]
        noun = word("NOUN", head, deprel, f"Number={number}")
        for k in dependents:
            rows[k][3] = noun
        return noun

    if nonprojective:
        subject = noun_phrase(None, "nsubj", 0)
        verb = word("VERB", -1, "root", "Tense=Past", vocab="IVERB")
        rows[subject][3] = verb
        word("ADV", verb, "advmod")
        case = word("ADP", None, "case")
        rows[case][3] = noun_phrase(subject, "nmod", 1)
        word("PUNCT", verb, "punct")
    else:
        if rng.random() < 0.3:
            subject = word("PRON", None, "nsubj", "Person=3")
        else:
            subject = noun_phrase(None, "nsubj", 2)
        transitive = rng.random() < 0.6
        verb = word("VERB", -1, "root", rng.choice(["Tense=Past", "Tense=Pres"]),
                    vocab="TVERB" if transitive else "IVERB")
        rows[subject][3] = verb
        if rng.random() < 0.3:
            word("ADV", verb, "advmod")
        if transitive:
            noun_phrase(verb, "obj", 2)
        word("PUNCT", verb, "punct")
    return [(form, upos, feats, head + 1, deprel) for form, upos, feats, head, deprel in rows]


def generate_treebank(n: int, seed: int) -> list[list[tuple[str, str, str, int, str]]]:
    """``n`` sentences; every tenth one is non-projective."""
    rng = random.Random(seed)
    return [generate_sentence(rng, nonprojective=k % NONPROJECTIVE_EVERY == NONPROJECTIVE_EVERY - 1)
            for k in range(n)]


def conllu_text(sentences, *, prefix: str, heads: bool = True, decorate: bool = False) -> str:
    """CoNLL-U for generated sentences.

    ``heads=False`` writes ``_`` for HEAD and DEPREL (parser input).  ``decorate`` adds
    what a parser must pass through untouched: a document comment, XPOS, MISC, DEPS, a
    multiword token line ``3-4`` and an empty node ``5.1`` (in the first sentence of five
    words or more).
    """
    out: list[str] = []
    decorated = False
    if decorate:
        out.append("# newdoc id = generated")
    for k, rows in enumerate(sentences, 1):
        out.append(f"# sent_id = {prefix}{k}")
        out.append("# text = " + " ".join(r[0] for r in rows))
        special = decorate and not decorated and len(rows) >= 5
        decorated = decorated or special
        for i, (form, upos, feats, head, deprel) in enumerate(rows, 1):
            if special and i == 3:
                out.append("3-4\tdel\t_\t_\t_\t_\t_\t_\t_\t_")
            xpos = upos.lower() if decorate else "_"
            misc = "SpaceAfter=No" if decorate and i + 1 < len(rows) and rows[i][1] == "PUNCT" else "_"
            deps = f"{head}:{deprel}" if decorate else "_"
            cols = [str(i), form, form.lower(), upos, xpos, feats, str(head) if heads else "_",
                    deprel if heads else "_", deps, misc]
            out.append("\t".join(cols))
            if special and i == 5:
                out.append("5.1\tdid\tdo\tVERB\t_\t_\t_\t_\t3:conj\t_")
        out.append("")
    return "\n".join(out) + "\n"


def plain_labels(model_labels) -> set[str]:
    """The labels a parser may write: the model's, decoded (``nmod↑nsubj`` is written
    ``nmod``), and ``dep``, which the tree fallback gives words it re-attaches."""
    return {l.split(LIFT_MARK)[0] for l in model_labels} | {"dep"}


def is_word_line(line: bytes) -> bool:
    return line.split(b"\t", 1)[0].isdigit()


# ---------------------------------------------------------------------------------
# command line and fixtures
# ---------------------------------------------------------------------------------


def cli(*argv: str) -> tuple[int, str, str]:
    """Run ``tsdsl ARGV`` in process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def assert_refused(code: int, err: str, *fragments: str) -> None:
    """Non-zero exit, one line on stderr naming the problem, no traceback."""
    assert code != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def cli_subprocess(*argv: str) -> tuple[int, str, str]:
    """Run ``tsdsl ARGV`` in a child process.  Training runs there: a fault in a training
    kernel (heap corruption has happened, see test_beam_training_is_memory_safe) then fails
    the tests that need the model instead of ending the session."""
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-m", "tsdsl.cli", *map(str, argv)],
                          capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


FAST = ("--epochs", "3", "--hash-bits", "14", "--quiet")

MODELS = {
    # name: (spec, extra options)
    "arc-eager": ("arc-eager.ts", ()),
    # the reading with SHIFT on an empty stack, whose training oracle is H&J's section 2.2
    "arc-eager-unshift": ("readings/arc-eager-unshift-shift-empty.ts", ()),
    "easy-first-bounded-k4": ("easy-first-bounded.ts", ("--set", "K=4")),
    "covington": ("covington.ts", ()),
    # capacity inf: every family instance scored from its own tokens
    "easy-first": ("easy-first.ts", ()),
    "easy-first-nonproj-d3": ("easy-first-nonproj.ts", ("--set", "D=3")),
    "covington-nm": ("covington-nm.ts", ("--loss", "upper")),
    "arc-eager-beam": ("arc-eager.ts", ("--beam", "4", "--epochs", "2")),
    "arc-eager-static": ("arc-eager.ts", ("--oracle", "static")),
    "arc-eager-skip": ("arc-eager.ts", ("--nonproj", "skip")),
}
# stack/buffer, non-monotonic stack/buffer (REDUCE and UNSHIFT share a class), control
# parameters with an override, Covington, non-monotonic Covington
FAMILIES = ["arc-eager", "arc-eager-unshift", "easy-first-bounded-k4", "covington", "covington-nm", "easy-first",
            "easy-first-nonproj-d3"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """The module's work directory, also the current directory while its tests run."""
    d = tmp_path_factory.mktemp("learn")
    train = generate_treebank(TRAIN_SENTENCES, seed=1)
    dev = generate_treebank(DEV_SENTENCES, seed=2)
    (d / "train.conllu").write_text(conllu_text(train, prefix="t"), encoding="utf-8")
    (d / "dev.conllu").write_text(conllu_text(dev, prefix="d"), encoding="utf-8")
    (d / "gold.conllu").write_text(conllu_text(dev, prefix="d", decorate=True), encoding="utf-8")
    (d / "raw.conllu").write_text(conllu_text(dev, prefix="d", heads=False, decorate=True), encoding="utf-8")
    old = os.getcwd()
    os.chdir(d)
    try:
        yield d
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def trained(workdir):
    """``trained(name)``: the relative directory of model ``name`` of MODELS, trained on first use."""
    done: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in done:
            spec, extra = MODELS[name]
            code, out, err = cli_subprocess("train", SYSTEMS / spec, "--train", "train.conllu", "--dev", "dev.conllu",
                                 "--out", name, *FAST, *extra)
            assert code == 0, err[-3000:]
            assert out.startswith(f"{name}: best epoch "), out
            done[name] = Path(name)
        return done[name]

    return get


def meta(model_dir: Path) -> dict:
    return json.loads((model_dir / "model.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def parsed(trained):
    """``parsed(name)``: ``tsdsl parse`` of raw.conllu with model ``name``, its output file."""
    done: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in done:
            out = Path(f"pred-{name}.conllu")
            code, _, err = cli("parse", trained(name), "raw.conllu", "-o", out)
            assert code == 0, err
            assert err.startswith(f"parsed {DEV_SENTENCES} sentences"), err
            done[name] = out
        return done[name]

    return get


# ---------------------------------------------------------------------------------
# the generated treebank itself
# ---------------------------------------------------------------------------------


def test_generated_treebank_is_what_the_tests_assume(workdir):
    sentences = read_conllu("train.conllu")
    assert len(sentences) == TRAIN_SENTENCES
    assert all(3 <= s.n <= 12 and is_tree(s.heads) for s in sentences)
    nonprojective = [k for k, s in enumerate(sentences) if not is_projective(s.heads)]
    assert nonprojective == list(range(NONPROJECTIVE_EVERY - 1, TRAIN_SENTENCES, NONPROJECTIVE_EVERY))
    assert {l for s in sentences for l in s.deprels} == {"det", "amod", "nsubj", "root", "obj", "punct",
                                                        "advmod", "case", "nmod"}
    gold = read_conllu("gold.conllu")
    raw = read_conllu("raw.conllu", require_heads=False)
    assert [s.forms for s in gold] == [s.forms for s in raw]
    assert all(h is None for s in raw for h in s.heads)
    text = Path("gold.conllu").read_text(encoding="utf-8")
    assert "\n3-4\tdel\t" in text and "\n5.1\tdid\t" in text


# ---------------------------------------------------------------------------------
# every family end to end
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FAMILIES)
def test_train_parse_eval(name, trained, parsed):
    model_dir = trained(name)
    for f in ("model.json", "features.yaml", "labels.json", "weights.npz",
              f"spec/{Path(MODELS[name][0]).name}"):  # the spec by its file name (model.pack_specs)
        assert (model_dir / f).is_file(), f
    pred = parsed(name)

    # valid CoNLL-U, one tree per sentence, labels known to the model and decoded
    sentences = read_conllu(pred)
    assert len(sentences) == DEV_SENTENCES
    labels = plain_labels(json.loads((model_dir / "labels.json").read_text(encoding="utf-8"))["labels"])
    for s in sentences:
        assert is_tree(s.heads), (s.sent_id, s.heads)
        assert all(LIFT_MARK not in l for l in s.deprels)
        assert set(s.deprels) <= labels

    # nothing but HEAD and DEPREL changed, byte for byte
    raw_lines = Path("raw.conllu").read_bytes().split(b"\n")
    pred_lines = pred.read_bytes().split(b"\n")
    assert len(pred_lines) == len(raw_lines)
    for a, b in zip(raw_lines, pred_lines):
        if is_word_line(a):
            fa, fb = a.split(b"\t"), b.split(b"\t")
            assert len(fb) == 10 and fa[:6] + fa[8:] == fb[:6] + fb[8:], (a, b)
        else:
            assert a == b

    code, out, err = cli("eval", "gold.conllu", pred, "--json")
    assert code == 0, err
    scores = json.loads(out)
    assert scores["sentences"] == DEV_SENTENCES
    assert scores["words"] == sum(s.n for s in sentences)


@pytest.mark.parametrize("name", FAMILIES)
def test_dev_scores_well_above_chance(name, trained, parsed):
    doc = meta(trained(name))
    assert doc["dev_uas"] > 0.85 and doc["dev_las"] > 0.7, (doc["dev_uas"], doc["dev_las"])
    assert doc["history"][-1]["stuck"] == 0
    code, out, err = cli("eval", "gold.conllu", parsed(name), "--json")
    assert code == 0, err
    # what `tsdsl eval` measures on the parse output agrees with what training recorded
    assert json.loads(out)["uas"]["score"] == pytest.approx(doc["dev_uas"])


def test_unshift_shares_one_output_for_reduce_and_unshift(trained):
    outputs = meta(trained("arc-eager-unshift"))["outputs"]
    assert "POP" in outputs
    assert not any(o.split(":")[0] in ("REDUCE", "UNSHIFT") for o in outputs)
    assert "SHIFT" in outputs and any(o.startswith("LEFT-ARC:") for o in outputs)


def test_set_overrides_are_recorded_and_reloaded(trained):
    model_dir = trained("easy-first-bounded-k4")
    doc = meta(model_dir)
    assert doc["overrides"] == {"K": 4}
    assert doc["features"] == "control-parameters"
    assert dict(model_io.load(model_dir).system.params)["K"] == 4


def test_default_feature_sets_follow_the_family(trained):
    assert meta(trained("arc-eager"))["features"] == "zhang-nivre-2011"
    assert meta(trained("covington"))["features"] == "covington-2017"


def test_counts_of_one_are_singular(trained, tmp_path):
    """A one-sentence, one-word input: the summaries of parse, train and eval say "1 sentence",
    "1 word", not "1 sentences" (issue 37)."""
    one = tmp_path / "one.conllu"
    one.write_text("# sent_id = one\n1\tsleeps\tsleeps\tVERB\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    code, _, err = cli("parse", trained("arc-eager"), one, "-o", tmp_path / "pred.conllu")
    assert code == 0, err
    assert err.startswith("parsed 1 sentence, 1 word in "), err
    assert "; tagged 1 word in 1 sentence" in err and "1 sentences" not in err and "1 words " not in err, err
    code, out, _ = cli("eval", one, tmp_path / "pred.conllu")
    assert code == 0 and "\n1 sentence, 1 word (0 punctuation)\n" in out, out
    first = tmp_path / "first.conllu"   # a sentence of the generated treebank: one to train on
    first.write_text(conllu_text(generate_treebank(1, seed=1), prefix="t"), encoding="utf-8")
    code, out, err = cli_subprocess("train", SYSTEMS / "arc-eager.ts", "--train", first, "--out", tmp_path / "m",
                                    "--epochs", "1", "--hash-bits", "14")
    assert code == 0, err[-3000:]
    assert "; trained in " in out and " s on 1 sentence" in out and "1 sentences" not in out, out
    assert " 1 sentence, " in err and "1 sentences" not in err, err   # the epoch's progress line


def test_parse_reads_stdin_and_writes_stdout(trained, parsed, monkeypatch):
    data = Path("raw.conllu").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code, out, err = cli("parse", trained("arc-eager"), "--quiet")
    assert code == 0, err
    assert err == ""
    assert out.encode("utf-8") == parsed("arc-eager").read_bytes()


# ---------------------------------------------------------------------------------
# beam, static oracle, non-projectivity
# ---------------------------------------------------------------------------------


def test_beam_training_and_parsing(trained, parsed):
    model_dir = trained("arc-eager-beam")
    doc = meta(model_dir)
    assert doc["beam"] == 4 and doc["args"]["beam"] == 4
    assert len(doc["history"]) == 2
    assert doc["dev_uas"] > 0.85
    assert load_parser(model_dir).beam == 4
    assert all(is_tree(s.heads) for s in read_conllu(parsed("arc-eager-beam")))


def test_parse_warns_of_a_beam_the_model_was_not_trained_with(trained, tmp_path):
    """A greedy model parsed with --beam 4 parses much worse (a user measured 82.5 -> 65.5 LAS
    at beam 8 on en_lines), so a warning names the trained width, even with --quiet; a beam
    model parsed greedily is warned too; the model's own width (or none given) adds nothing."""
    out = tmp_path / "p.conllu"
    code, _, err = cli("parse", trained("arc-eager"), "raw.conllu", "-o", out, "--beam", "4", "--quiet")
    assert code == 0 and err.startswith("warning: parsed with beam 4, but the model was trained with greedy "
                                        "search (beam 1): "), err
    assert "much worse" in err and "leave out --beam to parse greedily" in err
    code, _, err = cli("parse", trained("arc-eager-beam"), "raw.conllu", "-o", out, "--beam", "1")
    assert code == 0 and "warning: parsed with beam 1, but the model was trained with beam 4: " in err
    assert "leave out --beam to parse with beam 4" in err
    code, _, err = cli("parse", trained("arc-eager-beam"), "raw.conllu", "-o", out, "--beam", "4")
    assert code == 0 and "warning" not in err and "trained with" not in err
    code, _, err = cli("parse", trained("arc-eager"), "raw.conllu", "-o", out)
    assert code == 0 and "warning" not in err and "trained with" not in err


def test_beam_training_is_memory_safe(workdir):
    # Beam training attaches the gold tree to a scratch state that was never started; with
    # an incremental oracle (arc-eager) that writes token counts at garbage offsets.  Four
    # epochs ended in "free(): invalid next size" in 10 runs out of 10 (two epochs: 1-4 in 10).
    code, out, err = cli_subprocess("train", SYSTEMS / "arc-eager.ts", "--train", "train.conllu",
                                    "--dev", "dev.conllu", "--out", "arc-eager-beam-long", *FAST,
                                    "--beam", "4", "--epochs", "4")
    assert code == 0, err[-3000:]
    assert meta(Path("arc-eager-beam-long"))["beam"] == 4


def test_static_oracle_training(trained):
    doc = meta(trained("arc-eager-static"))
    assert doc["args"]["oracle"] == "static"
    assert doc["dev_uas"] > 0.85 and doc["dev_las"] > 0.7
    assert doc["history"][-1]["stuck"] == 0


def test_nonprojective_skip_and_lift(trained, parsed):
    n_nonprojective = TRAIN_SENTENCES // NONPROJECTIVE_EVERY
    skip = meta(trained("arc-eager-skip"))
    assert skip["nonproj"] == "skip"
    assert skip["skipped_nonprojective"] == n_nonprojective
    assert skip["lifted_arcs"] == 0
    assert skip["train_sentences"] == TRAIN_SENTENCES - n_nonprojective

    lift = meta(trained("arc-eager"))
    assert lift["nonproj"] == "lift"
    assert lift["skipped_nonprojective"] == 0
    assert lift["lifted_arcs"] >= n_nonprojective  # at least one arc per non-projective sentence
    assert lift["train_sentences"] == TRAIN_SENTENCES
    assert any(LIFT_MARK in o for o in lift["outputs"])  # lifted labels became outputs
    # deprojectivization runs: the lift model outputs non-projective trees, labels decoded
    pred = read_conllu(parsed("arc-eager"))
    assert any(not is_projective(s.heads) for s in pred)
    assert all(LIFT_MARK not in l for s in pred for l in s.deprels)


def test_nm_log_and_eval_counters(trained, parsed):
    log = Path("nm-log.json")
    pred = Path("pred-nm.conllu")
    code, _, err = cli("parse", trained("covington-nm"), "raw.conllu", "-o", pred, "--nm-log", log)
    assert code == 0, err
    assert "arcs overwritten" in err
    assert pred.read_bytes() == parsed("covington-nm").read_bytes()
    doc = json.loads(log.read_text(encoding="utf-8"))
    assert doc["model"] == str(trained("covington-nm"))
    # what identifies the parse the log belongs to (trial 25, M4)
    assert doc["output"] == str(pred) and doc["heads_sha256"] == heads_digest(read_conllu(pred))
    events = doc["events"]
    assert events  # this model overwrites arcs on the way to its (correct) trees
    gold = read_conllu("gold.conllu")
    final = read_conllu(pred)
    repaired = broke = 0
    for e in events:
        assert set(e) == {"sentence", "word", "old_head"}
        g = gold[e["sentence"] - 1]
        assert 1 <= e["word"] <= g.n and 0 <= e["old_head"] <= g.n
        right, now = g.heads[e["word"] - 1], final[e["sentence"] - 1].heads[e["word"] - 1]
        repaired += e["old_head"] != right and now == right
        broke += e["old_head"] == right and now != right

    code, out, err = cli("eval", "gold.conllu", pred, "--nm-log", log)
    assert code == 0, err
    for counter in ("nonmonotonic_fired", "nonmonotonic_repaired", "nonmonotonic_broke"):
        assert counter in out
    code, out, err = cli("eval", "gold.conllu", pred, "--nm-log", log, "--json")
    assert code == 0, err
    assert json.loads(out)["extra"] == {"nonmonotonic_fired": len(events), "nonmonotonic_repaired": repaired,
                                        "nonmonotonic_broke": broke}
    # the same sentences parsed otherwise (one head moved): the log is not theirs
    other = Path("pred-nm-other.conllu")
    first = final[0]
    moved = list(first.heads)
    moved[moved.index(0) - 1 if moved.index(0) else 1] = 0  # a second root
    write_conllu(other, [first.with_heads(moved, first.deprels)] + list(final[1:]))
    code, _, err = cli("eval", "gold.conllu", other, "--nm-log", log)
    assert_refused(code, err, f"{log} does not belong to {other}", f"written for the output {pred}")


def test_nm_log_needs_greedy_parsing(trained, tmp_path):
    out = tmp_path / "never.conllu"
    code, _, err = cli("parse", trained("covington-nm"), "raw.conllu", "-o", out, "--beam", "2",
                       "--nm-log", tmp_path / "log.json")
    assert_refused(code, err, "--nm-log", "greedy")
    assert not out.exists()


def test_nm_log_of_another_file_is_refused(trained, parsed, tmp_path):
    log = tmp_path / "bad-log.json"
    log.write_text(json.dumps({"events": [{"sentence": DEV_SENTENCES + 1, "word": 1, "old_head": 0}]}),
                   encoding="utf-8")
    code, _, err = cli("eval", "gold.conllu", parsed("covington-nm"), "--nm-log", log)
    assert_refused(code, err, str(log), "does not fit")
    log.write_text("{}", encoding="utf-8")
    code, _, err = cli("eval", "gold.conllu", parsed("covington-nm"), "--nm-log", log)
    assert_refused(code, err, str(log), "not a tsdsl parse --nm-log file")


# ---------------------------------------------------------------------------------
# the Parser API, saving and loading, determinism
# ---------------------------------------------------------------------------------


def test_parser_parse_api(trained):
    parser = load_parser(trained("arc-eager"))
    sentences = generate_treebank(30, seed=3)
    correct = total = 0
    for rows in sentences:
        words = [r[0] for r in rows]
        out = parser.parse(words, upos=[r[1] for r in rows], feats=[r[2] for r in rows])
        assert len(out) == len(words)
        heads = [h for h, _ in out]
        assert is_tree(heads)
        assert {l for _, l in out} <= plain_labels(parser.labels)
        correct += sum(h == r[3] for h, r in zip(heads, rows))
        total += len(rows)
    assert correct / total > 0.85
    # forms alone still give a tree
    assert is_tree([h for h, _ in parser.parse(["the", "dog", "sleeps", "."])])


@pytest.mark.parametrize("column", ["upos", "lemmas", "xpos", "feats"])
def test_parser_parse_length_mismatch(trained, column):
    parser = load_parser(trained("arc-eager"))
    with pytest.raises(UsageError, match=r"parse: 2 \w+ values for 3 words"):
        parser.parse(["the", "dog", "sleeps"], **{column: ["DET", "NOUN"]})


def test_parse_sentences_takes_strings_and_lists_of_words(trained):
    """parse_sentences takes what parse takes, many at once: a string is one sentence tokenised
    as parse tokenises it, a list of words is the words; each comes back as the sentence
    parse(...).to_conllu() writes, with the same parse, beside read_conllu's sentences (issue 37)."""
    parser = load_parser(trained("arc-eager"))
    texts = ["the dog sleeps.", "a big cat doesn't see\tthe  old tree !"]
    words = [["she", "likes", "the", "river", "."], ("they", "smiled", "!")]
    raw = read_conllu("raw.conllu", require_heads=False)[:2]
    parsed, stats = parser.parse_sentences([texts[0], words[0], *raw, texts[1], words[1]])
    assert stats.sentences == len(parsed) == 6
    for s, item in zip([parsed[0], parsed[4], parsed[1], parsed[5]], [*texts, *words]):
        one = parser.parse(item if isinstance(item, str) else list(item))
        assert s.to_text() == one.to_conllu()
        assert list(zip(s.heads, s.deprels)) == list(one)
    assert parsed[0].forms == ("the", "dog", "sleeps", ".") and parsed[0].comments == ("# text = the dog sleeps.",)
    assert parsed[4].forms[:5] == ("a", "big", "cat", "does", "n't")
    alone, _ = parser.parse_sentences(raw)
    assert [s.to_text() for s in parsed[2:4]] == [s.to_text() for s in alone]
    only_texts, _ = parser.parse_sentences(texts)
    assert [s.to_text() for s in only_texts] == [parser.parse(t).to_conllu() for t in texts]


@pytest.mark.parametrize("items, error, message", [
    ("the dog sleeps .", TypeError, r"parse_sentences: give a list of sentences, not one string"),
    (["the dog sleeps .", 3], TypeError, r"parse_sentences: sentences\[1\] is int: each item a Sentence .*, "
                                         r"a string .* or a list of words"),
    (["the dog sleeps .", None], TypeError, r"sentences\[1\] is NoneType: each item"),
    ([["the", "dog"], ["a", "cat", 7]], TypeError, r"sentences\[1\]\[2\] is int \(7\), not a string: each item"),
    (["the dog sleeps .", ["the", ""]], ValueError, r"sentences\[1\]\[1\] is an empty string"),
    (["the dog sleeps .", " \n "], ValueError, r"sentences\[1\] is a string without a word"),
    (["the dog sleeps .", []], ValueError, r"sentences\[1\] is an empty list of words"),
    ([("the", "dog\tsleeps")], ValueError, r"sentences\[0\]\[1\] \('dog\\tsleeps'\) contains a tab"),
], ids=["one string", "an int", "None", "a word not a string", "an empty word", "a blank string", "an empty list",
        "a tab in a word"])
def test_parse_sentences_names_a_bad_item(trained, items, error, message):
    parser = load_parser(trained("arc-eager"))
    with pytest.raises(error, match=message):
        parser.parse_sentences(items)


def test_load_twice_gives_identical_parses(trained):
    sentences = read_conllu("raw.conllu", require_heads=False)
    a, _ = load_parser(trained("arc-eager")).parse_sentences(sentences)
    b, _ = load_parser(trained("arc-eager")).parse_sentences(sentences)
    assert [s.to_text() for s in a] == [s.to_text() for s in b]


def test_save_load_round_trip(trained):
    first = model_io.load(trained("arc-eager"))
    out = model_io.save(first, "arc-eager-resaved")
    second = model_io.load(out)
    assert np.array_equal(first.dense_weights(), second.dense_weights())
    assert first.labels == second.labels and first.root_label == second.root_label
    assert first.outputs == second.outputs and first.spec_files == second.spec_files
    assert np.count_nonzero(first.dense_weights()) > 0
    for f in ("weights.npz", "features.yaml", "labels.json", "spec/arc-eager.ts"):
        assert (out / f).read_bytes() == (trained("arc-eager") / f).read_bytes(), f
    sentences = read_conllu("raw.conllu", require_heads=False)
    a, _ = load_parser(trained("arc-eager")).parse_sentences(sentences)
    b, _ = load_parser(out).parse_sentences(sentences)
    assert [s.to_text() for s in a] == [s.to_text() for s in b]


def test_training_is_deterministic(trained):
    reference = trained("arc-eager")
    spec, _ = MODELS["arc-eager"]
    args = ("train", SYSTEMS / spec, "--train", "train.conllu", "--dev", "dev.conllu", *FAST)
    code, _, err = cli_subprocess(*args, "--out", "arc-eager-again")
    assert code == 0, err[-3000:]
    for f in ("weights.npz", "labels.json", "features.yaml"):
        assert (Path("arc-eager-again") / f).read_bytes() == (reference / f).read_bytes(), f
    # another seed, written over the existing model directory (with --force), gives other weights
    code, _, err = cli_subprocess(*args, "--out", "arc-eager-again", "--seed", "2", "--force")
    assert code == 0, err[-3000:]
    assert meta(Path("arc-eager-again"))["args"]["seed"] == 2
    assert (Path("arc-eager-again") / "weights.npz").read_bytes() != (reference / "weights.npz").read_bytes()


def test_copied_model_reuses_its_kernel(trained, tmp_path):
    from tsdsl.kernels.build import cache_key
    from tsdsl.kernels.codegen import generate

    copy = tmp_path / "copy"
    shutil.copytree(trained("arc-eager"), copy)
    a, b = model_io.load(trained("arc-eager")), model_io.load(copy)
    assert a.system.source_hash == b.system.source_hash
    assert cache_key(generate(a.system)) == cache_key(generate(b.system))


# ---------------------------------------------------------------------------------
# refusals
# ---------------------------------------------------------------------------------


@pytest.fixture
def model_copy(trained, tmp_path) -> Path:
    """A private copy of the arc-eager model directory, to damage."""
    copy = tmp_path / "model"
    shutil.copytree(trained("arc-eager"), copy)
    return copy


def refused_load(model_dir: Path, *fragments: str) -> None:
    """Both the API and ``tsdsl parse`` refuse ``model_dir`` with a message holding ``fragments``."""
    with pytest.raises(ModelError) as info:
        load_parser(model_dir)
    for fragment in fragments:
        assert fragment in str(info.value)
    code, _, err = cli("parse", model_dir, "raw.conllu", "-o", "never.conllu")
    assert_refused(code, err, *fragments)
    assert not Path("never.conllu").exists()


def test_refuses_edited_spec(model_copy):
    spec = model_copy / "spec" / "arc-eager.ts"
    spec.write_text(spec.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    refused_load(model_copy, "does not match the one the model was trained with", "hash")


def test_refuses_edited_features(model_copy):
    path = model_copy / "features.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first_template = next(k for k, l in enumerate(lines) if l.lstrip().startswith("- "))
    del lines[first_template]
    path.write_text("".join(lines), encoding="utf-8")
    refused_load(model_copy, "features.yaml", "feature templates differ")


def test_feature_comments_do_not_matter(model_copy):
    path = model_copy / "features.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    assert load_parser(model_copy).model.features.name == "zhang-nivre-2011"


def test_refuses_other_version(model_copy):
    path = model_copy / "model.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["tsdsl"] = "0.0.1"
    path.write_text(json.dumps(doc), encoding="utf-8")
    refused_load(model_copy, "trained with tsdsl 0.0.1", "retrain")


def test_refuses_missing_weights(model_copy):
    (model_copy / "weights.npz").unlink()
    refused_load(model_copy, "weights.npz: missing")


def test_refuses_non_directory(workdir):
    refused_load(Path("train.conllu"), "train.conllu: not a directory")  # a file, not a model
    refused_load(Path("nothing-here"), "nothing-here: no such model directory")


def test_refuses_missing_model_json(model_copy):
    (model_copy / "model.json").unlink()
    refused_load(model_copy, "model.json: missing")


def test_unbounded_systems_train_with_instance_features(trained):
    for name, features in (("easy-first", "easy-first-2010"), ("easy-first-nonproj-d3", "easy-first-nonproj")):
        doc = meta(trained(name))
        assert doc["features"] == features
        # the spec's exact oracle: Goldberg & Elhadad's training towards any arc that keeps the tree
        assert doc["oracle"] == "dynamic" and doc["oracle_reproduced"] >= 0.98, doc["oracle_note"]
        # one output per family and label: an output stands for every instance of its family
        assert {o.split(":")[0] for o in doc["outputs"]} == {"LEFT-ARC", "RIGHT-ARC"}
    assert meta(trained("easy-first-nonproj-d3"))["overrides"] == {"D": 3}
    # the non-projective system builds the crossing trees itself (nothing lifted)
    assert meta(trained("easy-first-nonproj-d3"))["lifted_arcs"] == 0
    assert meta(trained("easy-first"))["lifted_arcs"] > 0


def test_train_refuses_beam_for_unbounded_system(workdir):
    spec = SYSTEMS / "easy-first.ts"
    code, _, err = cli("train", spec, "--train", "train.conllu", "--out", "ef-model", "--beam", "4", *FAST)
    assert_refused(code, err, "easy-first.ts", "capacity inf", "--beam 1")
    assert not Path("ef-model").exists()


def test_train_refuses_malformed_treebank(workdir, tmp_path, monkeypatch):
    """Refused before the kernel is built (a first build takes tens of seconds)."""
    train_module = importlib.import_module("tsdsl.learn.train")  # (tsdsl.learn.train is also a function)

    def no_build(*args, **kwargs):
        raise AssertionError("the kernel was built before the training file was read")

    monkeypatch.setattr(train_module, "compile_system", no_build)
    lines = Path("train.conllu").read_text(encoding="utf-8").splitlines(keepends=True)
    bad_line = next(k for k, l in enumerate(lines) if l.startswith("2\t")) + 1
    lines[bad_line - 1] = lines[bad_line - 1].replace("\t", " ", 1)
    bad = tmp_path / "bad.conllu"
    bad.write_text("".join(lines), encoding="utf-8")
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", bad, "--out", tmp_path / "m", *FAST)
    assert_refused(code, err, f"{bad}:{bad_line}:", "10 tab-separated columns")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("role", ["--train", "--dev"])
def test_train_refuses_a_tree_with_two_roots_as_coverage_and_eval_do(workdir, tmp_path, monkeypatch, role):
    """language.md §2: a gold tree has one word on the root; refused before any work, with the
    line of the second root, for the training file and the dev file alike."""
    train_module = importlib.import_module("tsdsl.learn.train")
    monkeypatch.setattr(train_module, "compile_system", lambda *a, **kw: pytest.fail("built a kernel first"))
    monkeypatch.setattr(train_module, "use_repair", lambda *a, **kw: pytest.fail("looked for a repair first"))
    bad = tmp_path / "two-roots.conllu"
    bad.write_text("# text = a b\n1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n2\tb\tb\tX\tX\t_\t0\troot\t_\t_\n\n",
                   encoding="utf-8")
    files = {"--train": "train.conllu", "--dev": "dev.conllu", role: bad}
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", files["--train"], "--dev", files["--dev"],
                       "--out", tmp_path / "m", *FAST)
    assert_refused(code, err, f"{bad}:3: more than one root (words 1, 2 have HEAD 0)")
    assert not (tmp_path / "m").exists()
    code, _, cov_err = cli("coverage", SYSTEMS / "arc-eager.ts", bad)
    assert code != 0 and f"{bad}:3: more than one root" in cov_err


def test_train_refuses_to_overwrite_other_directory(workdir, tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", "train.conllu", "--out", out, *FAST)
    assert_refused(code, err, str(out), "not a tsdsl model directory")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no temporary directory left over


@pytest.mark.parametrize("field, value", [("seed", -5), ("explore_after", -1), ("epochs", 0), ("hash_bits", 11),
                                          ("explore", 1.5), ("prune", -0.1)])
def test_train_options_refuse_what_the_command_line_refuses(field, value):
    # Python callers get the command line's bounds too: a usage error, not numpy's traceback
    from tsdsl.errors import UsageError
    from tsdsl.learn.train import TrainOptions

    with pytest.raises(UsageError):
        TrainOptions(**{field: value}).check()


def test_a_word_the_tree_fallback_attaches_gets_its_upos_commonest_label(trained):
    """Every word the tree fallback attached was labeled `dep`, a sure error on treebanks that
    never use it (a new user's el_gdt trial: 65 to 75 words of a Covington parse).  Training
    now keeps, per UPOS, the commonest label of its words not on the root, and those words
    get it; models without the table keep `dep`."""
    from tsdsl.learn.parser import FALLBACK_LABELS, fallback_labels

    trees = [([2, 0, 2, 2], ["det", "root", "punct", "obj"]), ([0, 1], ["root", "punct"])]
    cols = [{"form": ["a"] * 4, "upos": ["DET", "VERB", "PUNCT", "NOUN"]}, {"form": ["b", "."], "upos": ["VERB", "PUNCT"]}]
    assert fallback_labels(trees, cols) == {"DET": "det", "NOUN": "obj", "PUNCT": "punct"}  # the root's VERB: none
    model = trained("covington")
    meta = json.loads((model / "model.json").read_text(encoding="utf-8"))
    table = meta[FALLBACK_LABELS]
    assert table and all(isinstance(v, str) for v in table.values())
    parser = load_parser(model)
    upos = sorted(table)[0]
    assert parser._fallbacks([None, "nsubj", None], {"upos": [upos, "X", "NOT-A-TAG"]}) == [table[upos], "nsubj", "dep"]
