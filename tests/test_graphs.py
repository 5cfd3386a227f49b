"""Multihead (DAG) systems on enhanced dependencies: DEPS read, collapsed, written and scored
(ELAS/EULAS), gold graphs derived by the compiled search, training, parsing, coverage."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from graph_treebank import FILES, generate
from strategies import labeled_graphs
from tsdsl.cli import main
from tsdsl.interp import Interpreter
from tsdsl.kernels import compile_system
from tsdsl.kernels.graphs import crossing_arcs, derive_graphs, graph_obstacle
from tsdsl.lang import load_system
from tsdsl.treebank.conllu import ConlluError, parse_conllu, read_conllu
from tsdsl.treebank.enhanced import (basic_label, enhanced_arcs, graph_of, graphs_of, score_graphs, universal_steps,
                                     valid_graph, with_graph)

DATA = Path(__file__).resolve().parent / "data"
TRAIN, DEV = DATA / "toy-deps-train.conllu", DATA / "toy-deps-dev.conllu"


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def block(rows: list[str]) -> str:
    return "\n".join(r.replace(" ", "\t") for r in rows) + "\n\n"


GAPPING = block([
    "# sent_id = g",
    "1 Mary Mary PROPN _ _ 2 nsubj 2:nsubj _",
    "2 won win VERB _ _ 0 root 0:root _",
    "3 gold gold NOUN _ _ 2 obj 2:obj _",
    "4 and and CCONJ _ _ 5 cc 5.1:cc _",
    "5 Peter Peter PROPN _ _ 2 conj 5.1:nsubj _",
    "5.1 won win VERB _ _ _ _ 2:conj:and CopyOf=2",
    "6 silver silver NOUN _ _ 5 orphan 5.1:obj _",
])


# ---------------------------------------------------------------------------------
# the shipped toy treebank
# ---------------------------------------------------------------------------------


def test_shipped_toy_treebank_is_the_generators():
    for name, (n, seed, prefix) in FILES.items():
        assert (DATA / name).read_text(encoding="utf-8") == generate(n, seed, prefix), name


def test_toy_treebank_has_what_the_tests_need():
    sents = read_conllu(TRAIN)
    graphs = graphs_of(sents)
    assert any(len(arcs) > 1 for g in graphs for arcs in g)                  # several heads
    assert any(">" in l for g in graphs for arcs in g for _, l in arcs)      # collapsed empty nodes
    assert any(graph_obstacle([(h, d) for d, arcs in enumerate(g, 1) for h, _ in arcs]) == "cycle" for g in graphs)


# ---------------------------------------------------------------------------------
# reading, collapsing, writing
# ---------------------------------------------------------------------------------


def test_empty_nodes_collapse_as_iwpt():
    (s,) = parse_conllu(GAPPING)
    g = graph_of(s)
    # every arc into the empty node 5.1 joins the arc out of it: 2 -conj:and-> 5.1 -nsubj-> 5
    assert g[4] == ((2, "conj:and>nsubj"),)
    assert g[3] == ((2, "conj:and>cc"),)
    assert g[5] == ((2, "conj:and>obj"),)
    assert g[1] == ((0, "root"),)


def test_chained_empty_nodes_collapse():
    text = GAPPING.replace("5.1 won win VERB _ _ _ _ 2:conj:and CopyOf=2".replace(" ", "\t"),
                           "5.1\twon\twin\tVERB\t_\t_\t_\t_\t5.2:xcomp\t_\n5.2\twon\twin\tVERB\t_\t_\t_\t_\t2:conj\t_")
    (s,) = parse_conllu(text)
    assert graph_of(s)[4] == ((2, "conj>xcomp>nsubj"),)


@pytest.mark.parametrize("deps, message", [
    ("2nsubj", "is not HEAD:LABEL"),
    ("9:nsubj", "out of range"),
    ("5.2:nsubj", "not an empty node of this sentence"),
    ("x:nsubj", "is not a word ID"),
    ("2:", "is not HEAD:LABEL"),
    ("2:obj|2:obj", "'2:obj' is given twice"),
    ("0:obj", "root on head 0 and on no other"),
    ("2:root", "root on head 0 and on no other"),
    ("2:obj:", "malformed (an empty part"),
    ("2::obj", "malformed (an empty part"),
    ("3:obj", "3 is its own head"),
])
def test_malformed_deps_name_file_and_line(deps, message):
    text = GAPPING.replace("2:obj", deps)
    (s,) = parse_conllu(text, file="in.conllu")
    for read in (graph_of, enhanced_arcs):     # training, scoring; drawing
        with pytest.raises(ConlluError) as err:
            read(s)
        assert str(err.value).startswith("in.conllu:4: ") and message in str(err.value)


def test_deps_with_white_space_are_refused_when_read():
    """The reader refuses a space in DEPS (CoNLL-U allows none there) with the file and line,
    before any graph is built."""
    with pytest.raises(ConlluError) as err:
        parse_conllu(GAPPING.replace("2:obj", "2:obj x"), file="in.conllu")
    assert str(err.value).startswith("in.conllu:4: ") and "DEPS '2:obj x' contains a space" in str(err.value)


def test_deps_items_in_any_order_are_read():
    """UD wants DEPS sorted by head; tsdsl writes them sorted and reads them in any order."""
    (s,) = parse_conllu(GAPPING.replace("2:obj", "2:obj|1:nmod"))
    (t,) = parse_conllu(GAPPING.replace("2:obj", "1:nmod|2:obj"))
    assert graph_of(s)[2] == graph_of(t)[2] == ((1, "nmod"), (2, "obj"))


@pytest.mark.parametrize("old, new, where", [
    ("2:obj", "_", "in.conllu:4: word 3 has DEPS _"),
    ("2:conj:and", "_", "in.conllu:7: empty node 5.1 has DEPS _"),
    ("5.1:obj", "_", "in.conllu:8: word 6 has DEPS _"),
])
def test_a_node_without_deps_in_an_annotated_sentence_is_refused(old, new, where):
    """UD gives every word and empty node DEPS once a sentence has enhanced dependencies: one
    left at _ would lose its gold arcs silently (training searched in vain, eval counted fewer
    gold arcs)."""
    (s,) = parse_conllu(GAPPING.replace(old, new), file="in.conllu")
    for read in (graph_of, enhanced_arcs):
        with pytest.raises(ConlluError, match=re.escape(where) + " while its sentence has enhanced dependencies"):
            read(s)


def test_a_sentence_without_deps_is_read_as_no_graph():
    rows = [l.split("\t") for l in GAPPING.rstrip("\n").split("\n")]
    text = "\n".join("\t".join(r[:8] + ["_"] + r[9:]) if len(r) == 10 else r[0] for r in rows) + "\n\n"
    (s,) = parse_conllu(text)
    assert graph_of(s) == ((),) * 6 and enhanced_arcs(s)[1] == []
    only_empty = text.replace("5.1\twon\twin\tVERB\t_\t_\t_\t_\t_", "5.1\twon\twin\tVERB\t_\t_\t_\t_\t2:conj")
    assert only_empty != text
    with pytest.raises(ConlluError, match=r"<string>:2: word 1 has DEPS _"):
        graph_of(parse_conllu(only_empty)[0])


def test_eval_and_train_refuse_a_node_without_deps(tmp_path):
    """The whole path: a file:line message, no traceback, no model written."""
    bad = tmp_path / "bad.conllu"
    bad.write_text(TRAIN.read_text().replace("\t0:root\t", "\t_\t", 1))
    line = next(k for k, l in enumerate(bad.read_text().split("\n"), 1)
                if l.count("\t") == 9 and l.split("\t")[8] == "_")
    code, _, err = cli("eval", bad, bad)
    assert code == 1 and f"{bad}:{line}: word " in err and "Traceback" not in err, err
    code, _, err = cli("train", "dag", "--train", bad, "--out", tmp_path / "m", "--epochs", "1", "--no-tagger")
    assert code == 1 and f"{bad}:{line}: word " in err and "Traceback" not in err, err
    assert not (tmp_path / "m").exists()


def test_cycle_of_empty_nodes_is_an_error():
    text = GAPPING.replace("2:conj:and\tCopyOf=2", "5.2:conj\tCopyOf=2\n5.2\twon\twin\tVERB\t_\t_\t_\t_\t5.1:conj\t_")
    (s,) = parse_conllu(text, file="in.conllu")
    with pytest.raises(ConlluError, match=r"in.conllu:7: empty node 5.1 is on a cycle"):
        graph_of(s)


def valid_ud(graph: tuple[int, set]) -> tuple[int, set]:
    """A :func:`labeled_graphs` graph as UD allows DEPS: an arc from 0 labeled ``root``, and a
    word without a head hung from 0 (so that every word has DEPS)."""
    n, arcs = graph
    arcs = {(h, d, "root" if h == 0 else l) for h, d, l in arcs}
    return n, arcs | {(0, d, "root") for d in range(1, n + 1) if all(dd != d for _, dd, _ in arcs)}


@given(labeled_graphs().map(valid_ud))
def test_with_graph_round_trip(graph):
    n, arcs = graph
    words = "\n".join(f"{k}\tw{k}\tw\tX\t_\t_\t{0 if k == 1 else 1}\tdep\t_\tM{k}" for k in range(1, n + 1))
    (s,) = parse_conllu(f"# sent_id = 1\n{words}\n1.1\te\te\tX\t_\t_\t_\t_\t1:dep\t_\n\n")
    g = tuple(tuple(sorted((h, l) for h, dd, l in arcs if dd == d)) for d in range(1, n + 1))
    heads = [0] + [1] * (n - 1)
    out = with_graph(s, g, heads, ["root"] + ["x"] * (n - 1))
    (back,) = parse_conllu(out.to_text())
    assert graph_of(back) == g
    assert "1.1\te\t" not in out.to_text()                                  # the input's empty node dropped
    assert [w.misc for w in back.words] == [w.misc for w in s.words]         # the rest unchanged
    assert list(back.heads) == heads


@given(labeled_graphs(labels=("nsubj", "obl:in", "conj>obl", "conj:and>nsubj", "conj:and>obj", "conj>xcomp>obj"))
       .map(valid_ud))
def test_collapsed_paths_are_written_as_empty_nodes(graph):
    """A graph's ``>`` labels (collapsed empty nodes) are written back as empty nodes, so that
    no enhanced label holds ``>`` (UD rejects it) and reading the output collapses it back to
    the same graph."""
    n, arcs = graph
    words = "\n".join(f"{k}\tw{k}\tw\tX\t_\t_\t{0 if k == 1 else 1}\tdep\t_\t_" for k in range(1, n + 1))
    (s,) = parse_conllu(f"# sent_id = 1\n{words}\n\n")
    g = tuple(tuple(sorted((h, l) for h, dd, l in arcs if dd == d)) for d in range(1, n + 1))
    out = with_graph(s, g, [0] + [1] * (n - 1), ["root"] + ["dep"] * (n - 1)).to_text()
    (back,) = parse_conllu(out)
    assert graph_of(back) == g
    rows = [line.split("\t") for line in out.split("\n") if line.count("\t") == 9]
    assert not any(">" in r[8] for r in rows)
    empties = [r for r in rows if "." in r[0]]
    assert len(empties) == len({(h, tuple(l.split(">")[:j])) for h, _, l in arcs for j in range(1, l.count(">") + 1)})
    assert all(r[1:8] == ["_"] * 7 for r in empties)
    assert [int(r[0].split(".")[0]) for r in rows] == sorted(int(r[0].split(".")[0]) for r in rows)


def test_gapping_is_written_with_one_shared_empty_node():
    (s,) = parse_conllu(GAPPING)
    out = with_graph(s, graph_of(s), s.heads, s.deprels).to_text()
    # numbered after the first word that hangs from it, "and"
    assert "4\tand\tand\tCCONJ\t_\t_\t5\tcc\t4.1:cc\t_\n4.1\t_\t_\t_\t_\t_\t_\t_\t2:conj:and\t_\n" in out
    assert "\t4.1:nsubj\t" in out and "\t4.1:obj\t" in out and out.count("\t2:conj:and\t") == 1


def test_basic_label():
    basic = {"nsubj", "nsubj:pass", "nmod", "nmod:poss", "conj", "obl", "acl:relcl", "root"}
    assert basic_label("nmod:of", basic) == "nmod"
    assert basic_label("nmod:poss", basic) == "nmod:poss"
    assert basic_label("conj:and", basic) == "conj"
    assert basic_label("conj:and>nsubj", basic) == "conj"
    assert basic_label("nsubj:pass:xsubj", basic) == "nsubj:pass"
    assert basic_label("obl:such_as", basic) == "obl"
    assert basic_label("ref", basic) == "dep"
    assert basic_label("acl:relcl") == "acl" and basic_label("ref") == "dep"   # UD's universal relations


def test_valid_graph_keeps_one_root_and_the_tree():
    graph = (((0, "root"),),                      # 1: the tree's root
             ((0, "root"),),                      # 2: a second root, re-attached by the tree to 1
             ((0, "punct"), (3, "root")),         # 3: no root arc elsewhere; root label on a word's arc
             ((1, "nsubj"), (0, "root")),         # 4: a root arc beside a word's arc
             (),                                  # 5: no head at all
             ((1, "conj>root>obj"),))             # 6: a root step inside a path
    heads, labels = [0, 1, 1, 1, 1, 1], ["root", "dep", "punct", "nsubj", "dep", "conj"]
    assert valid_graph(graph, heads, labels) == (
        ((0, "root"),), ((1, "dep"),), ((1, "punct"), (3, "dep")), ((1, "nsubj"),), ((1, "dep"),),
        ((1, "conj>dep>obj"),))


def test_parse_output_is_valid_enhanced_ud(model, tmp_path, monkeypatch):
    """Whatever arcs the parser builds, `tsdsl parse` writes valid enhanced UD (UD validate.py's
    level-2 checks, and one 0:root per sentence, on HEAD's root), HEAD among each word's DEPS
    heads, DEPREL from the basic labels of the training file; the written DEPS read back as the
    graph parse_graph gives."""
    import numpy as np
    import tsdsl
    import tsdsl.learn.parser as parser_module
    from ud_enhanced import problems

    out, _ = model
    basic = {w.deprel for s in read_conllu(TRAIN) for w in s.words} | {"dep"}     # dep: the fallback
    pred = tmp_path / "pred.conllu"
    code, _, err = cli("parse", out, DEV, "-o", pred, "--quiet")
    assert code == 0, err
    assert problems(pred.read_text()) == []
    assert {w.deprel for s in read_conllu(pred) for w in s.words} <= basic
    # the parser's raw arcs, as bad as they come: several roots, a root label between words,
    # a label from 0 that is not root, paths with >, a word without a head
    parser = tsdsl.load_parser(out)
    lab = {l: k for k, l in enumerate(parser.labels)}
    words = "the dog sees a cat and a man the bird .".split()
    raw = [(1, 2, lab["det"], 1), (2, 0, lab["root"], 1), (3, 0, lab["root"], 1), (3, 2, lab["root"], 0),
           (4, 5, lab["det"], 1), (5, 3, lab["obj"], 1), (6, 0, lab["punct"], 1), (7, 3, lab["conj>nsubj"], 1),
           (8, 3, lab["conj>obj"], 1), (10, 3, lab["conj>nsubj"], 1), (11, 0, lab["root"], 1)]
    fake = np.array([(w - 1, h, l, f) for w, h, l, f in raw], dtype=np.int32)
    monkeypatch.setattr(parser_module, "parse_graphs", lambda *a: (fake, 12, 0))
    upos = "DET NOUN VERB DET NOUN CCONJ DET NOUN DET NOUN PUNCT".split()
    parsed = parser.parse(words, upos=upos)
    text = parsed.to_conllu()
    assert problems(text) == []
    (back,) = parse_conllu(text)
    assert graph_of(back) == parsed.graph
    assert [d for d, arcs in enumerate(parsed.graph, 1) if (0, "root") in arcs] == [2]
    assert all(h in {a for a, _ in arcs} for (h, _), arcs in zip(parsed, parsed.graph))
    assert parsed[8] == (2, "dep") and parsed.graph[8] == ((2, "dep"),)   # headless "the": under the root, as in HEAD
    assert {l for _, l in parsed} <= basic
    (sent,) = parse_conllu("".join(f"{k}\t{w}\t_\t{u}\t_\t_\t_\t_\t_\t_\n" for k, (w, u) in enumerate(zip(words, upos), 1))
                           + "\n",
                           require_heads=False)
    written, _ = parser.parse_sentences([sent])
    assert written[0].to_text() == text


# ---------------------------------------------------------------------------------
# ELAS / EULAS
# ---------------------------------------------------------------------------------


@given(labeled_graphs(), st.randoms(use_true_random=False))
def test_elas_counts_triples(graph, rnd):
    n, arcs = graph
    words = "\n".join(f"{k}\tw{k}\tw\tX\t_\t_\t{0 if k == 1 else 1}\tdep\t_\t_" for k in range(1, n + 1))
    (s,) = parse_conllu(f"{words}\n\n")
    gold = tuple(tuple(sorted((h, l) for h, dd, l in arcs if dd == d)) for d in range(1, n + 1))
    kept = [a for a in sorted(arcs) if rnd.random() < 0.6]
    relabeled = [(h, d, l.split(":")[0] + ":zz") for h, d, l in kept[: len(kept) // 2]] + kept[len(kept) // 2:]
    pred = tuple(tuple(sorted((h, l) for h, dd, l in relabeled if dd == d)) for d in range(1, n + 1))
    sc = score_graphs([s], [s], gold_graphs=[gold], pred_graphs=[pred])
    assert sc.gold == len(arcs) and sc.predicted == len(relabeled)
    same = set(relabeled) & set(arcs)
    assert sc.correct == len(same)
    universal = {(h, d, universal_steps(l)) for h, d, l in arcs}
    assert sc.correct_universal >= sc.correct
    assert sc.correct_universal == sum(1 for h, d, l in relabeled if (h, d, universal_steps(l)) in universal)
    if arcs and relabeled:
        assert sc.elas == pytest.approx(2 * len(same) / (len(arcs) + len(relabeled)))
    self_score = score_graphs([s], [s], gold_graphs=[gold], pred_graphs=[gold])
    assert self_score.elas == (1.0 if arcs else 0.0)


def test_universal_steps():
    assert universal_steps("obl:in") == "obl"
    assert universal_steps("conj:and>nsubj:pass") == "conj>nsubj"


def test_eval_reports_elas_and_eulas(tmp_path):
    code, out, _ = cli("eval", DEV, DEV)
    assert code == 0 and re.search(r"^ELAS: +100.00 ", out, re.M) and re.search(r"^EULAS: +100.00 ", out, re.M)
    code, out, _ = cli("eval", DEV, DEV, "--json")
    doc = json.loads(out)
    assert doc["enhanced"]["elas"]["f1"] == 1.0 and doc["enhanced"]["gold_arcs"] > doc["words"]
    assert not doc["enhanced"]["deps_copied_from_gold"] and "note:" not in cli("eval", DEV, DEV)[1]


def test_eval_without_predicted_deps_prints_n_a_for_precision(tmp_path):
    """A predicted file with DEPS `_` everywhere printed `precision 0.00` and `"precision": 0.0`
    (a user's trial 25, L1): precision is 0/0 there, `n/a` and `null` as evaluation.md says of
    a ratio with nothing to count; recall and F1 stay 0, as documented."""
    text = DEV.read_text(encoding="utf-8")
    lines = [l if not l or l.startswith("#") else "\t".join(l.split("\t")[:8] + ["_"] + l.split("\t")[9:])
             for l in text.split("\n")]
    pred = tmp_path / "nodeps.conllu"
    pred.write_text("\n".join(lines), encoding="utf-8")
    code, out, _ = cli("eval", DEV, pred)
    assert code == 0
    assert re.search(r"^ELAS: +0\.00   \(precision n/a, recall 0\.00; 0 correct\)$", out, re.M), out
    assert re.search(r"^EULAS: +0\.00   \(precision n/a, recall 0\.00; 0 correct\)$", out, re.M), out
    code, out, _ = cli("eval", DEV, pred, "--json")
    doc = json.loads(out)["enhanced"]
    assert doc["predicted_arcs"] == 0
    for name in ("elas", "eulas"):
        assert doc[name] == {"precision": None, "recall": 0.0, "f1": 0.0, "correct": 0}


def test_eval_notes_deps_copied_by_a_tree_parser(tmp_path):
    """A single-head parser keeps its input's DEPS: eval says that its ELAS scores nothing."""
    from tsdsl.treebank.conllu import write_conllu

    gold = read_conllu(DEV)
    # what a tree parser writes: new HEAD and DEPREL (here: one label changed), DEPS as read
    first = gold[0].with_heads(gold[0].heads, ["dep"] + list(gold[0].deprels[1:]))
    pred = tmp_path / "pred.conllu"
    write_conllu(pred, [first] + gold[1:])
    code, out, _ = cli("eval", DEV, pred)
    assert code == 0 and "note: the predicted DEPS are the gold DEPS" in out


# ---------------------------------------------------------------------------------
# the kernel's graph search
# ---------------------------------------------------------------------------------


def _reference_cycle(arcs) -> bool:
    edges = {(h, d) for h, d in arcs}
    nodes = {x for a in edges for x in a}
    reach = {x: {d for h, d in edges if h == x} for x in nodes}
    for _ in nodes:
        for x in nodes:
            reach[x] = reach[x] | {z for y in reach[x] for z in reach[y]}
    return any(x in reach[x] for x in nodes)


@given(labeled_graphs())
def test_graph_obstacle_finds_cycles(graph):
    _, arcs = graph
    pairs = [(h, d) for h, d, _ in arcs]
    assert (graph_obstacle(pairs) == "cycle") == _reference_cycle(pairs)


@pytest.fixture(scope="module")
def dag():
    system = load_system("dag")
    return system, compile_system(system, fallback=False), Interpreter(system)


def _replay(it, n, actions, labels, names, label_names):
    c = it.initial(n)
    for a, l in zip(actions, labels):
        it.apply(c, names[a], label_names[l] if l >= 0 else None)
    assert it.is_terminal(c)
    return {(h, d, l) for h, d, l in it.output(c).arcs}


@settings(max_examples=60)
@given(st.data())
def test_every_graph_the_system_builds_is_derived(dag, data):
    """Completeness on the system's own outputs: a random legal run of the interpreter (labels
    drawn) ends in a graph; the compiled search derives it, and the derivation replayed in the
    interpreter builds exactly that graph."""
    system, kernel, it = dag
    n = data.draw(st.integers(1, 7))
    label_names = ["a", "b", "c"]
    c = it.initial(n)
    while not it.is_terminal(c):
        legal = sorted(it.legal(c))
        if not legal:
            break
        a = data.draw(st.sampled_from(legal))
        it.apply(c, a, data.draw(st.sampled_from(label_names)))
    if not it.is_terminal(c):
        return
    arcs = {(h, d, l) for h, d, l in it.output(c).arcs}
    found = derive_graphs(kernel, [n], [[(h, d, label_names.index(l)) for h, d, l in sorted(arcs)]])
    assert found.derivations.status[0] == 1
    acts, labs = found.derivations.sequence(0)
    assert _replay(it, n, acts, labs, kernel.action_names, label_names) == arcs


@given(labeled_graphs(max_n=6))
def test_derived_graphs_replay_exactly(dag, graph):
    """Soundness on arbitrary graphs: whatever the search derives, the interpreter replays to
    exactly the gold graph; graphs with a cycle or crossing arcs are never derived."""
    system, kernel, it = dag
    n, arcs = graph
    labels = sorted({l for _, _, l in arcs})
    found = derive_graphs(kernel, [n], [[(h, d, labels.index(l)) for h, d, l in sorted(arcs)]])
    status = found.derivations.status[0]
    pairs = [(h, d) for h, d, _ in arcs]
    if _reference_cycle(pairs) or crossing_arcs(pairs, n, system.root):
        assert status == 0 and found.obstacles[0] is not None
    if status == 1:
        acts, labs = found.derivations.sequence(0)
        assert _replay(it, n, acts, labs, kernel.action_names, labels) == set(arcs)


# ---------------------------------------------------------------------------------
# training, parsing, coverage
# ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    out = tmp_path_factory.mktemp("dag") / "model"
    code, stdout, err = cli("train", "dag", "--train", TRAIN, "--dev", DEV, "--out", out, "--epochs", "4",
                            "--hash-bits", "14", "--quiet")
    assert code == 0, err
    return out, stdout


def test_train_reports_elas_and_skipped_graphs(model):
    out, stdout = model
    assert "dev ELAS" in stdout and "graphs without a derivation skipped" in stdout
    meta = json.loads((out / "model.json").read_text())
    cov = cli("coverage", "dag", TRAIN, "--deps", "--json")[1]
    doc = json.loads(cov)
    assert meta["search"]["derived"] == doc["derivable"] == meta["train_sentences"]
    assert meta["search"]["obstacles"] == doc["obstacles"]


def test_parse_of_a_multihead_model_takes_beam_1_and_refuses_more(model, tmp_path):
    """--beam 1 is the width a multihead model parses with: no warning (the summary used to
    ask the parser for a trained width it does not have: AttributeError); wider is refused."""
    out, _ = model
    pred = tmp_path / "pred.conllu"
    code, _, err = cli("parse", out, DEV, "-o", pred, "--beam", "1")
    assert code == 0 and err.startswith("parsed ") and "warning" not in err, err
    code, _, err = cli("parse", out, DEV, "-o", pred, "--beam", "2")
    assert code == 2 and "multihead models parse greedily" in err and "Traceback" not in err


def test_parse_writes_graphs_and_a_tree(model, tmp_path):
    out, _ = model
    pred = tmp_path / "pred.conllu"
    code, _, err = cli("parse", out, DEV, "-o", pred, "--quiet")
    assert code == 0, err
    gold_s, pred_s = read_conllu(DEV), read_conllu(pred)     # read_conllu checks HEAD is a tree
    assert all(sum(h == 0 for h in s.heads) == 1 for s in pred_s)
    for g, p in zip(gold_s, pred_s):
        assert [w.fields[:6] + w.fields[9:] for w in g.words] == [w.fields[:6] + w.fields[9:] for w in p.words]
    pg = graphs_of(pred_s)
    assert all(arcs for g in pg for arcs in g)               # every word has a head in the graph
    sc = score_graphs(gold_s, pred_s)
    majority = score_graphs(gold_s, gold_s, pred_graphs=[tuple(((d + 1, "det"),) for d in range(s.n)) for s in gold_s])
    assert sc.elas > majority.elas + 0.5                      # far above a trivial parse
    code, text, _ = cli("eval", DEV, pred)
    assert re.search(rf"^ELAS: +{100 * sc.elas:.2f} ", text, re.M)


def test_parse_says_how_many_empty_nodes_of_the_input_it_dropped(model, tmp_path):
    """The input's empty-node lines are not written (documented): the summary says so, and
    says nothing when there were none."""
    out, _ = model
    given = sum(1 for l in DEV.read_text().split("\n") if re.match(r"[0-9]+\.[0-9]+\t", l))
    assert given
    code, _, err = cli("parse", out, DEV, "-o", tmp_path / "p.conllu")
    assert code == 0 and f"; dropped the input's {given} empty nodes" in err, err
    rows = [l for l in DEV.read_text().split("\n") if not re.match(r"[0-9]+\.[0-9]+\t", l)]
    plain = tmp_path / "plain.conllu"
    plain.write_text("\n".join("\t".join(l.split("\t")[:8] + ["_"] + l.split("\t")[9:]) if l.count("\t") == 9 else l
                               for l in rows))
    code, _, err = cli("parse", out, plain, "-o", tmp_path / "q.conllu")
    assert code == 0 and "empty nodes" not in err, err


def test_parser_api_parses_a_graph(model):
    import tsdsl

    parser = tsdsl.load_parser(model[0])
    g = parser.parse_graph(["the", "dog", "sees", "a", "cat", "."], upos=["DET", "NOUN", "VERB", "DET", "NOUN",
                                                                           "PUNCT"])
    assert len(g) == 6 and all(all(0 <= h <= 6 and l in parser.labels for h, l in arcs) for arcs in g)


SENTENCE = "a small dog eats the big tree from some old cat ."


def test_parse_graph_tags_words_as_tsdsl_parse_does(model, tmp_path):
    """Without tags given, parse_graph runs the model's tagger, as `tsdsl parse` does; a string
    is tokenised (not read as characters); parse gives the tree, the tags and the graph."""
    import tsdsl
    from tsdsl.learn.parser import ParsedSentence

    parser = tsdsl.load_parser(model[0])
    words = SENTENCE.split()
    text = tmp_path / "s.txt"
    text.write_text(SENTENCE + "\n")
    pred = tmp_path / "s.conllu"
    code, _, err = cli("parse", model[0], "--text", text, "-o", pred, "--quiet")
    assert code == 0, err
    (written,) = read_conllu(pred)
    graph = graph_of(written)
    assert parser.parse_graph(words) == graph
    assert parser.parse_graph(SENTENCE) == graph                       # 12 words, not 48 characters
    untagged = parser.predict([{"form": words, **{c: ["_"] * len(words) for c in ("upos", "xpos", "feats", "lemma")}}])
    assert untagged[0][0][0] != graph                                   # the tags matter for this sentence
    parsed = parser.parse(SENTENCE)
    assert isinstance(parsed, ParsedSentence) and parsed.graph == graph
    assert list(parsed) == list(zip(written.heads, written.deprels))
    assert parsed.upos == [w.upos for w in written.words] and parsed.forms == words
    assert parser.parse_graph(words, upos=parsed.upos) == graph
    assert parser.parse("") == [] and parser.parse_graph([]) == ()
    for bad, message in (((words, "DET"), "not a string"), ((words, ["DET"]), "1 upos values for 12 words"),
                         ((b"a dog",), "not bytes"), ((["a", ""],), "non-empty string")):
        with pytest.raises(tsdsl.UsageError, match=message):
            parser.parse_graph(*bad)


def test_parse_writes_the_predicted_tags(model, tmp_path):
    """A multihead model writes the tag columns its tagger predicted, as a tree model does."""
    out, _ = model
    notags = tmp_path / "notags.conllu"
    rows = []
    for line in DEV.read_text().split("\n"):
        f = line.split("\t")
        rows.append("\t".join(f[:2] + ["_"] * 4 + f[6:]) if len(f) == 10 else line)
    notags.write_text("\n".join(rows))
    pred = tmp_path / "pred.conllu"
    code, stdout, err = cli("parse", out, notags, "-o", pred)
    assert code == 0, err
    assert "tagged" in err
    gold = read_conllu(DEV)
    tagged = read_conllu(pred)
    upos = [w.upos for s in tagged for w in s.words]
    assert "_" not in upos
    right = sum(a == b for a, b in zip(upos, (w.upos for s in gold for w in s.words)))
    assert right > 0.9 * len(upos)
    assert all(w.lemma != "_" for s in tagged for w in s.words)
    assert all(w.feats == "_" for s in tagged for w in s.words)   # no tagger for FEATS: the toy file has none


@pytest.mark.parametrize("choice", ["jackknife", "gold"])
def test_parser_tags_apply_to_graphs(choice, tmp_path):
    """--parser-tags trains a multihead parser as it does a tree parser: model.json records the
    choice in effect, and the dev ELAS that picked the epoch is the one the model gets on the dev
    set as its tagger tags it (predicted tags, and the summary says so) unless the tags are gold."""
    import tsdsl

    out = tmp_path / "m"
    code, stdout, err = cli("train", "dag", "--train", TRAIN, "--dev", DEV, "--out", out, "--epochs", "2",
                            "--hash-bits", "14", "--parser-tags", choice, "--quiet")
    assert code == 0, err
    meta = json.loads((out / "model.json").read_text())
    assert meta["parser_tags"] == choice
    assert ("(predicted tags)" in stdout) == (choice != "gold")
    parsed, _ = tsdsl.load_parser(out).parse_sentences(read_conllu(DEV), retag=choice != "gold")
    assert score_graphs(read_conllu(DEV), parsed).elas == pytest.approx(meta["dev_elas"])


def test_training_without_deps_is_refused(tmp_path, monkeypatch):
    """Refused before the kernel is built (a first build takes tens of seconds)."""
    train_module = importlib.import_module("tsdsl.learn.train")  # (tsdsl.learn.train is also a function)

    def no_build(*args, **kwargs):
        raise AssertionError("the kernel was built before the training file was checked")

    monkeypatch.setattr(train_module, "compile_system", no_build)
    plain = tmp_path / "plain.conllu"
    text = TRAIN.read_text()
    lines = ["\t".join(f if k != 8 else "_" for k, f in enumerate(l.split("\t"))) if l.count("\t") == 9 else l
             for l in text.split("\n")]
    plain.write_text("\n".join(lines))
    code, _, err = cli("train", "dag", "--train", plain, "--out", tmp_path / "m", "--epochs", "1")
    assert code != 0 and "no enhanced dependencies" in err and str(plain) in err and "Traceback" not in err
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("flag", [("--search-follow", "model"), ("--nonproj", "skip"), ("--nonproj", "lift"),
                                  ("--loss", "foo"), ("--beam", "2"), ("--oracle", "dynamic"), ("--skip-detours",)])
def test_options_a_multihead_spec_does_not_use_are_refused(flag, tmp_path, monkeypatch):
    """Refused before any work, as --beam and --oracle dynamic are, not recorded in model.json
    as if they had been used (--search-follow model trained the canonical derivations)."""
    train_module = importlib.import_module("tsdsl.learn.train")
    monkeypatch.setattr(train_module, "compile_system", no_build)
    code, _, err = cli("train", "dag", "--train", TRAIN, "--out", tmp_path / "m", "--epochs", "1", *flag)
    want = {"--search-follow": "(--search-follow canonical), not model", "--nonproj": "leave out --nonproj",
            "--loss": "declares no oracle, so there is no loss to choose", "--beam": "(--beam 1)",
            "--oracle": "not dynamic", "--skip-detours": "--skip-detours applies to training with a dynamic oracle"}[flag[0]]
    assert code == 2 and want in err and "dag.ts" in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "m").exists()


def no_build(*args, **kwargs):
    raise AssertionError("training work started before the files and options were checked")


@pytest.mark.parametrize("which", ["--train", "--dev"])
def test_malformed_deps_are_reported_before_any_work(which, tmp_path, monkeypatch):
    """A DEPS error in either file stops training before the tagger, the kernel build and the
    search (minutes on a full treebank), with its file and line."""
    train_module = importlib.import_module("tsdsl.learn.train")
    graphs_module = importlib.import_module("tsdsl.learn.graphs")
    monkeypatch.setattr(train_module, "compile_system", no_build)
    monkeypatch.setattr(graphs_module, "train_tagger", no_build)
    bad = tmp_path / "bad.conllu"
    lines = (TRAIN if which == "--train" else DEV).read_text().split("\n")
    k = max(k for k, l in enumerate(lines) if l.count("\t") == 9 and l.split("\t")[8] not in ("_", "0:root"))
    f = lines[k].split("\t")
    lines[k] = "\t".join(f[:8] + [f[8] + "|bad"] + f[9:])
    bad.write_text("\n".join(lines))
    files = {"--train": TRAIN, "--dev": DEV, which: bad}
    code, _, err = cli("train", "dag", "--train", files["--train"], "--dev", files["--dev"], "--out", tmp_path / "m")
    assert code == 1 and f"{bad}:{k + 1}: DEPS item 'bad' is not HEAD:LABEL" in err and "Traceback" not in err, err
    assert not (tmp_path / "m").exists()


def test_train_without_dev_keeps_the_last_epoch(tmp_path):
    code, out, err = cli("train", "dag", "--train", TRAIN, "--out", tmp_path / "m", "--epochs", "2", "--hash-bits",
                         "12", "--quiet")
    assert code == 0, err
    assert "best epoch 2 of 2" in out and "graphs without a derivation skipped" in out and "ELAS" not in out


def test_coverage_of_trees_hints_at_deps_on_a_file_with_deps(tmp_path):
    """Without --deps, coverage counts a file's basic trees: for a multihead spec on a file with
    DEPS, a note on stderr says --deps checks the graphs it trains on (none for a tree spec or
    a file without DEPS)."""
    code, out, err = cli("coverage", "dag", TRAIN, "--limit", "5")
    assert code == 0 and "derivable:" in out and "--deps checks the enhanced graphs dag trains on" in err, err
    code, _, err = cli("coverage", "arc-eager", TRAIN, "--limit", "5")
    assert code == 0 and "--deps" not in err, err
    plain = tmp_path / "plain.conllu"
    plain.write_text("\n".join("\t".join(l.split("\t")[:8] + ["_"] + l.split("\t")[9:]) if l.count("\t") == 9 else l
                               for l in TRAIN.read_text().split("\n") if not re.match(r"[0-9]+\.[0-9]+\t", l)))
    code, _, err = cli("coverage", "dag", plain, "--limit", "5")
    assert code == 0 and "--deps" not in err, err


def test_graph_coverage_rows_have_a_space_before_the_count():
    from tsdsl.kernels.graphs import GraphCoverage

    text = GraphCoverage("dag", "f.conllu", 10, sentences=3, graphs=3, arcs=9, derivable=1, not_derivable=1,
                         obstacles={"cycle": 1}).render_text()
    assert re.search(r"^  no derivation found: +1$", text, re.M) and re.search(r"^  cycle: +1$", text, re.M), text
    counts = [line.rindex(" ") for line in text.split("\n") if line.startswith("  ")]
    assert len(set(counts)) == 2   # the long label one column further, the other rows aligned


def test_train_help_says_multihead_specs_train_on_deps():
    texts = []
    for argv in (["--help"], ["train", "--help"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            main(argv)
        texts.append(" ".join(out.getvalue().split()))
    assert "multihead spec: on its enhanced dependencies, DEPS" in texts[0]
    assert "multihead specs, such as dag, train on its DEPS column" in texts[1]


def test_coverage_deps_counts_add_up():
    code, out, _ = cli("coverage", "dag", TRAIN, "--deps", "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["derivable"] + doc["not_derivable"] + doc["over_budget"] + sum(doc["obstacles"].values()) == doc["graphs"]
    assert doc["graphs"] == len(read_conllu(TRAIN))
    code, _, err = cli("coverage", "arc-eager", TRAIN, "--deps")
    assert code != 0 and "needs a multihead system" in err
