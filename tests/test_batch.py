"""The batch API (:class:`tsdsl.kernels.batch.StateBatch`) against the one-state API and the
interpreter, on several seed systems.

Hypothesis draws a batch of sentences (lengths 0..7, labelled gold trees) and steps every
configuration with random legal actions and random labels (sometimes -1: left alone).
Before each step the batch's terminal flags, legal mask, labeled costs, list, place, head and
label views must equal what the one-state kernel API and the interpreter say for each
configuration.  The labeled cost rule is checked against a labeled exact loss found by
exhaustive search in the interpreter (monotonic systems with exact declared oracles), and
the oracle pass's sentence starts against replaying each sentence.

Kernels are built once into the kernel cache (``TSDSL_CACHE_DIR`` to change it).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import labelled_trees, trees
from tsdsl import Interpreter, UsageError, load_system
from tsdsl.errors import OracleError
from tsdsl.kernels import compile_system
from tsdsl.kernels.compiled import ILLEGAL
from tsdsl.verify.space import state_key

ROOT = Path(__file__).resolve().parent.parent
# monotonic with exact oracles (arc-hybrid's root on the right); non-monotonic with an arc built
# unlabeled; capacity inf without an oracle; an inexact oracle
SYSTEMS = ["arc-eager", "arc-hybrid", "covington", "arc-eager-nm-2013", "easy-first", "arc-standard"]
EXACT = {"arc-eager": True, "arc-hybrid": True, "covington": False}  # system: projective gold only
LABELS = ("a", "b", "c")


@pytest.fixture(scope="module")
def kernels():
    def one(name):
        system = load_system(ROOT / "systems" / f"{name}.ts")
        return name, (Interpreter(system), compile_system(system, fallback=False))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, SYSTEMS))


def _label_ids(ks) -> list[int]:
    return [ks.label_id(x) for x in LABELS]


def _conllu(t: int, root: int) -> int:
    return 0 if t == root else t


@st.composite
def batches(draw, projective=None):
    """Up to 4 sentences of 0..7 words with labelled gold trees."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 7))
        if n == 0:
            out.append(((), ()))
        else:
            out.append(draw(labelled_trees(min_n=n, max_n=n, labels=LABELS, projective=projective)))
    return out


def _compare(it, ks, batch, cs, ks_states, names, label_of, gold):
    """Every view of the batch against the interpreter and one-state kernel configurations."""
    B = len(cs)
    term = batch.is_terminal()
    mask = batch.legal_mask()
    lists, lengths = batch.lists()
    where, index = batch.places()
    heads = batch.heads() if not it.system.multihead else None
    labs = batch.labels() if not it.system.multihead else None
    costs = batch.costs() if ks.gen.losses else None
    assert mask.shape == (B, batch.n_actions) and lists.shape == (B, batch.n_lists, batch.max_len)
    for b, (c, k) in enumerate(zip(cs, ks_states)):
        assert bool(term[b]) == it.is_terminal(c) == ks.is_terminal(k)
        legal = {names[a] for a in np.flatnonzero(mask[b])}
        assert legal == set(it.legal(c)) == set(ks.legal(k))
        for j, lst in enumerate(c.lists):
            got = [int(t) for t in lists[b, j, :lengths[b, j]]]
            assert got == [_conllu(t, c.root) for t in lst]
            assert (lists[b, j, lengths[b, j]:] == -1).all()
            for i, t in enumerate(lst):
                assert (where[b, _conllu(t, c.root)], index[b, _conllu(t, c.root)]) == (j, i)
        placed = {_conllu(t, c.root) for lst in c.lists for t in lst}
        assert all(where[b, t] == -1 for t in range(batch.max_len) if t not in placed)
        if heads is not None:
            want = [-1] + [-1 if c.heads[d] < 0 else _conllu(c.heads[d], c.root) for d in range(1, c.n + 1)]
            assert list(heads[b, :c.n + 1]) == want and (heads[b, c.n + 1:] == -1).all()
            want_l = [-1] + [label_of(c.labels[d]) if c.heads[d] >= 0 else -1 for d in range(1, c.n + 1)]
            assert list(labs[b, :c.n + 1]) == want_l
        if costs is not None and c.n:
            one = ks.costs(k)
            own = ks.actions_of(k)
            for a, name in enumerate(names):
                if name not in legal:
                    assert (costs[b, a] == ILLEGAL).all()
                    continue
                base = int(one[own.index(name)])
                for lab in range(batch.n_labels):
                    child = it.copy(c)
                    it.apply(child, name, ks.labels[lab])
                    new = [d for d in range(1, c.n + 1) if child.heads[d] != c.heads[d] and child.heads[d] >= 0
                           and child.labels[d] == ks.labels[lab]]
                    extra = 0
                    if len(new) == 1:
                        d = new[0]
                        extra = int(_conllu(child.heads[d], c.root) == gold[b][0][d - 1]
                                    and ks.labels[lab] != gold[b][1][d - 1])
                    assert costs[b, a, lab] == base + extra, (name, lab)


@pytest.mark.parametrize("name", SYSTEMS)
@settings(max_examples=int(os.environ.get("TSDSL_BATCH_EXAMPLES", "30")))
@given(data=st.data())
def test_batch_agrees_with_one_state_api_and_interpreter(kernels, name, data):
    it, ks = kernels[name]
    ids = _label_ids(ks)
    sents = data.draw(batches(), label="sentences")
    lengths = [len(h) for h, _ in sents]
    L = len(ks.labels)
    batch = ks.batch(lengths, [list(h) for h, _ in sents], [[ks.label_ids[x] for x in l] for _, l in sents], L)
    cs, kk = [], []
    for h, l in sents:
        cs.append(it.initial(len(h)))
        k = ks.initial(len(h))
        if ks.gen.losses:
            ks.attach_gold(k, list(h), list(l))
        kk.append(k)
    names = batch.action_names

    def label_of(x):
        return -1 if x is None else ks.label_ids[x]

    for _ in range(4 * max(lengths) + 12):
        _compare(it, ks, batch, cs, kk, names, label_of, sents)
        if batch.done:
            break
        mask = batch.legal_mask()
        acts = np.full(len(cs), -1, dtype=np.int64)
        labs = np.full(len(cs), -1, dtype=np.int64)
        for b in range(len(cs)):
            legal = np.flatnonzero(mask[b])
            if len(legal) and data.draw(st.integers(0, 5), label="move?"):
                acts[b] = data.draw(st.sampled_from(list(legal)), label="action")
                labs[b] = data.draw(st.sampled_from([-1] + ids), label="label")
        batch.apply(acts, labs)
        for b in range(len(cs)):
            if acts[b] >= 0:
                lab = None if labs[b] < 0 else ks.labels[labs[b]]
                it.apply(cs[b], names[acts[b]], lab)
                ks.apply(kk[b], names[acts[b]], lab)


# ---- the labeled cost rule against the labeled exact loss ------------------------------


def labeled_exact_loss(it, c, gold, glabels) -> int:
    """The fewest words with a wrong head or a wrong label over every output reachable from
    ``c``, by exhaustive search (monotonic systems; arcs built in the search take their
    dependent's gold label; a word attached by the spec's final rule has its label chosen
    elsewhere and counts as labeled right)."""

    @lru_cache(maxsize=None)
    def best(key) -> int:
        cfg = configs[key]
        if it.is_terminal(cfg):
            tree = it.output(cfg)
            built = [None] + [cfg.labels[d] if cfg.heads[d] >= 0 else None for d in range(1, cfg.n + 1)]
            return sum(1 for d in range(cfg.n) if tree.heads[d] != gold[d]
                       or (built[d + 1] is not None and built[d + 1] != glabels[d]))
        out = None
        for a in it.legal(cfg):
            child = it.copy(cfg)
            it.apply(child, a)
            fresh = [d for d in range(1, cfg.n + 1) if child.heads[d] != cfg.heads[d]]
            if fresh:  # the best label for a new arc is its dependent's gold label
                child = it.copy(cfg)
                it.apply(child, a, glabels[fresh[0] - 1])
            k = state_key(child) + (tuple(child.labels),)
            configs[k] = child
            v = best(k)
            out = v if out is None else min(out, v)
        return out

    configs = {}
    key = state_key(c) + (tuple(c.labels),)
    configs[key] = c
    return best(key)


@pytest.mark.parametrize("name", sorted(EXACT))
@settings(max_examples=int(os.environ.get("TSDSL_BATCH_EXAMPLES", "30")))
@given(data=st.data())
def test_labeled_costs_equal_the_labeled_exact_loss(kernels, name, data):
    it, ks = kernels[name]
    _label_ids(ks)
    n = data.draw(st.integers(1, 5), label="n")
    heads, labels = data.draw(labelled_trees(min_n=n, max_n=n, labels=LABELS,
                                             projective=True if EXACT[name] else None), label="gold")
    batch = ks.batch([n], [list(heads)], [[ks.label_ids[x] for x in labels]], len(ks.labels))
    c = it.initial(n)
    for _ in range(data.draw(st.integers(0, 2 * n), label="steps")):
        legal = np.flatnonzero(batch.legal_mask()[0])
        if not len(legal):
            break
        a = int(data.draw(st.sampled_from(list(legal)), label="action"))
        lab = data.draw(st.sampled_from(range(len(ks.labels))), label="label")
        batch.apply([a], [lab])
        it.apply(c, batch.action_names[a], ks.labels[lab])
    if batch.done:
        return
    base = labeled_exact_loss(it, c, heads, labels)
    costs = batch.costs()[0]
    for a in np.flatnonzero(batch.legal_mask()[0]):
        for lab in range(batch.n_labels):
            child = it.copy(c)
            it.apply(child, batch.action_names[a], ks.labels[lab])
            assert costs[a, lab] == labeled_exact_loss(it, child, heads, labels) - base, \
                (batch.action_names[a], ks.labels[lab])


# ---- sentence starts of the oracle pass ---------------------------------------------------


@pytest.mark.parametrize("name", ["arc-eager", "covington"])
@settings(max_examples=int(os.environ.get("TSDSL_BATCH_EXAMPLES", "30")))
@given(golds=st.lists(trees(min_n=1, max_n=9, projective=True), min_size=1, max_size=5))
def test_oracle_pass_sentence_starts(kernels, name, golds):
    it, ks = kernels[name]
    res = ks.oracle_pass([list(g) for g in golds])
    assert len(res.starts) == len(golds) + 1 and res.starts[0] == 0 and res.starts[-1] == res.transitions
    for i, g in enumerate(golds):
        acts, _ = res.sequence(i)
        c = it.initial(len(g))
        for a in acts:
            it.apply(c, ks.action_names[a])
        assert it.is_terminal(c) and it.output(c).heads == tuple(g)


# ---- a whole treebank through batches -------------------------------------------------------


def test_batch_oracle_loop_matches_oracle_pass(kernels):
    """Following the first zero-cost action through a batch takes the oracle pass's actions."""
    it, ks = kernels["arc-eager"]
    golds = [[2, 0, 2], [0, 1], [3, 3, 0, 3, 4], [0], [2, 0, 5, 5, 2, 5]]
    tb = ks.pack(golds)
    res = ks.oracle_pass(tb)
    batch = ks.batch(tb)
    taken = [[] for _ in golds]
    while not batch.done:
        costs = batch.costs(labeled=False)
        acts = np.where(batch.is_terminal(), -1, np.argmax(costs == 0, axis=1))
        for b, a in enumerate(acts):
            if a >= 0:
                taken[b].append(int(a))
        batch.apply(acts)
    for i in range(len(golds)):
        assert taken[i] == list(res.sequence(i)[0])
    assert (batch.heads(finished=True)[:, 1:] == np.array([g + [-1] * (6 - len(g)) for g in golds])).all()


def test_select_from_a_packed_treebank(kernels):
    it, ks = kernels["arc-eager"]
    tb = ks.pack([[2, 0, 2], [0, 1], [0]], [[0, 1, 0], [1, 0], [1]], n_labels=2)
    batch = ks.batch(tb, select=[2, 0])
    assert list(batch.lengths) == [1, 3] and batch.n_labels == 2
    assert batch.costs().shape == (2, ks.n_actions, 2)


# ---- errors at the boundary ---------------------------------------------------------------------


def test_errors_are_clear_and_change_nothing(kernels):
    it, ks = kernels["arc-eager"]
    batch = ks.batch([3, 2], [[2, 0, 2], [0, 1]], [[0, 1, 0], [1, 0]], 2)
    before = batch.lists()[0].copy()
    with pytest.raises(UsageError, match=r"configuration 1: action REDUCE \(id 3\) is not legal; no configuration"):
        batch.apply([0, 3])
    with pytest.raises(UsageError, match=r"configuration 1: action id 7 is out of range 0..3"):
        batch.apply([0, 7])
    with pytest.raises(UsageError, match=r"has label id 5, out of range \(0..1; -1: none\)"):
        batch.apply([2, 0], [5, -1])
    assert (batch.lists()[0] == before).all()
    with pytest.raises(UsageError, match=r"actions: expected shape \(2,\)"):
        batch.apply([0])
    with pytest.raises(UsageError, match="expected integer ids"):
        batch.apply([0.0, 1.0])
    with pytest.raises(UsageError, match="expected dtype uint8"):
        batch.legal_mask(np.zeros((2, 4), dtype=np.int32))
    with pytest.raises(UsageError, match=r"expected shape \(2, 4, 2\)"):
        batch.costs(np.zeros((2, 4), dtype=np.int32))
    ro = np.zeros((2, 4), dtype=np.uint8)
    ro.setflags(write=False)
    with pytest.raises(UsageError, match="read-only"):
        batch.legal_mask(ro)
    with pytest.raises(UsageError, match="C-contiguous"):
        batch.heads(np.zeros((4, 2), dtype=np.int32).T)
    with pytest.raises(UsageError, match="need gold trees"):
        ks.batch([2]).costs()
    with pytest.raises(UsageError, match="labeled costs need gold labels"):
        ks.batch([2], [[0, 1]]).costs(labeled=True)
    with pytest.raises(UsageError, match="sentence 1: a gold head is outside 0..2"):
        ks.batch([1, 2], [[0], [0, 3]])
    with pytest.raises(UsageError, match=r"gold label id 9 .* outside 0..1"):
        ks.batch([1], [[0]], [[9]], 2)
    with pytest.raises(UsageError, match="one head per word"):
        ks.batch([2], [[0]])
    with pytest.raises(UsageError, match="non-negative"):
        ks.batch([-1])
    out = np.zeros((2, 4), dtype=np.uint8)
    assert batch.legal_mask(out) is out  # caller-provided arrays are filled in place
    attardi = load_system(ROOT / "systems" / "attardi.ts")
    # a spec without an oracle block has no costs; the error says how to get an oracle
    with pytest.raises(OracleError, match=r"add an `oracle` block to the spec, or let `tsdsl derive-oracle "
                                          + re.escape(attardi.source_file) + "` derive one"):
        compile_system(attardi, fallback=False).batch([2], [[0, 1]]).costs()


def test_a_multihead_spec_without_an_oracle_is_not_sent_to_derive_oracle(kernels):
    # derive-oracle refuses multihead systems: their costs error only asks for the block
    ks = compile_system(load_system(ROOT / "systems" / "dag.ts"), fallback=False)
    with pytest.raises(OracleError) as caught:
        ks.loss_index()  # what costs() asks first
    assert "add an `oracle` block" in str(caught.value) and "derive-oracle" not in str(caught.value)


@pytest.mark.parametrize("golds, message", [
    ([[5]], r"sentence 0: a gold head is outside 0..1 \(word 1: 5\)"),
    ([[0], [-7, 1]], r"sentence 1: a gold head is outside 0..2 \(word 1: -7\)"),
    ([[0, 10 ** 9]], r"sentence 0: a gold head is outside 0..2 \(word 2: 1000000000\)"),
    ([[0, 10 ** 10]], "does not fit in int32"),
    ([[0, 1.5]], "expected integers, got dtype float64"),
    ([[1, 0, 2]], "sentence 0: word 1 is its own gold head"),
    ([[2, 0, 2], [2, 3, 1]], "sentence 1: the gold heads have a cycle through word 1"),
    ([[0, 3, 2]], "sentence 0: the gold heads have a cycle through word 2"),
])
def test_gold_heads_that_are_no_tree_are_refused_everywhere(kernels, golds, message):
    """A new user's trial: oracle_pass([[5]]) returned heads [5] and one stuck sentence, no
    error (batch() refused it), and both took self-loops and cycles.  One check, in pack(),
    serves oracle_pass, batch, derive and attach_gold."""
    it, ks = kernels["arc-eager"]
    with pytest.raises(UsageError, match=message):
        ks.oracle_pass(golds)
    with pytest.raises(UsageError, match=message):
        ks.pack(golds)
    with pytest.raises(UsageError, match=message):
        ks.batch([len(g) for g in golds], golds)
    with pytest.raises(UsageError, match=message):
        ks.derive(golds)
    if len(golds) == 1:
        with pytest.raises(UsageError, match=message.replace("sentence 0", "")):
            ks.attach_gold(ks.initial(len(golds[0])), golds[0])


def test_gold_trees_with_several_roots_or_empty_sentences_are_accepted(kernels):
    it, ks = kernels["arc-eager"]
    res = ks.oracle_pass([[0, 0, 2], [], [0]])
    assert res.starts.tolist()[1] == res.starts.tolist()[2] and res.stuck_sentences == 0


def test_a_negative_or_missing_label_count_is_refused(kernels):
    it, ks = kernels["arc-eager"]
    for call in (lambda: ks.oracle_pass([[0]], n_labels=-2), lambda: ks.pack([[0]], n_labels=-2),
                 lambda: ks.batch([1], n_labels=-2)):
        with pytest.raises(UsageError, match="n_labels must be 0 or more, not -2"):
            call()
    with pytest.raises(UsageError, match="labels need n_labels"):
        ks.oracle_pass([[0]], [[0]])
    with pytest.raises(UsageError, match=r"sentence 0: gold label id 3 \(word 3\) is outside 0..2"):
        ks.oracle_pass([[2, 0, 2]], [[0, 1, 3]], n_labels=3)
    with pytest.raises(UsageError, match="brings its own labels"):
        ks.oracle_pass(ks.pack([[0]]), n_labels=2)


def test_oracle_pass_sequence_indexes_like_a_list(kernels):
    """sequence(-1) gave empty arrays (starts[-1]:starts[0]) and sequence(5) a bare numpy
    IndexError: negative indexes count from the end, others name the range."""
    it, ks = kernels["arc-eager"]
    res = ks.oracle_pass([[0], [0, 1], [2, 0]])
    for i in range(3):
        assert [x.tolist() for x in res.sequence(i - 3)] == [x.tolist() for x in res.sequence(i)]
    assert [ks.action_names[a] for a in res.sequence(-1)[0]] == ["SHIFT", "LEFT-ARC", "RIGHT-ARC"]
    for bad in (3, -4):
        with pytest.raises(IndexError, match=rf"sentence {bad} is out of range: the pass has 3 sentences"):
            res.sequence(bad)
    with pytest.raises(TypeError, match="must be an integer"):
        res.sequence(1.0)
    d = ks.derive([[0], [2, 0]])
    assert d.sequence(-1)[0].tolist() == d.sequence(1)[0].tolist()
    with pytest.raises(IndexError, match="out of range"):
        d.sequence(2)


def test_multihead_views(kernels):
    system = load_system(ROOT / "systems" / "dag.ts")
    ks = compile_system(system, fallback=False)
    batch = ks.batch([3])
    assert batch.legal_mask().shape == (1, ks.n_actions)
    with pytest.raises(UsageError, match="single-head"):
        batch.heads()


# ---- the worked example -------------------------------------------------------------------------


def test_worked_example_learns_on_the_toy_treebank(kernels, capsys, monkeypatch):
    """docs/examples/neural_batch.py trains a numpy MLP through the batch API: its dev UAS
    after training must beat the untrained model's by far."""
    import runpy

    monkeypatch.chdir(ROOT)
    example = runpy.run_path(str(ROOT / "docs" / "examples" / "neural_batch.py"))

    def uas(epochs: int) -> float:
        example["main"](["--epochs", str(epochs)])
        last = capsys.readouterr().out.strip().splitlines()[-1]
        assert last.startswith("dev UAS ")
        return float(last.split()[2])

    untrained, trained = uas(0), uas(3)
    assert trained > untrained + 40, (untrained, trained)


def test_worked_example_runs_from_a_copy_with_the_default_spec(kernels, tmp_path):
    """Copied out of the repository the example failed (`TS001: no such spec file`): its
    default spec was the path systems/arc-eager.ts; now the packaged name arc-eager."""
    import shutil
    import subprocess
    import sys

    examples = ROOT / "docs" / "examples"
    with_data, alone = tmp_path / "with-data", tmp_path / "alone"
    for where, names in ((with_data, ["neural_batch.py", "toy-train.conllu", "toy-dev.conllu"]),
                         (alone, ["neural_batch.py"])):
        where.mkdir()
        for name in names:
            shutil.copy(examples / name, where)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    run = lambda where, *a: subprocess.run([sys.executable, "neural_batch.py", *a], capture_output=True,
                                           text=True, cwd=tmp_path / where, env=env)
    done = run(with_data, "--epochs", "0")
    assert done.returncode == 0 and "dev UAS" in done.stdout, done.stderr
    # without its data next to it, a copy says where the default files are, not a traceback
    missing = run(alone, "--epochs", "0")
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith(f"neural_batch.py: no file {alone / 'toy-train.conllu'}: give TRAIN and DEV")


@pytest.mark.parametrize("spec, why", [
    ("easy-first", "it has capacity inf"),
    ("dag", "it builds several heads per word"),
    ("attardi", "it has no oracle block"),
])
def test_worked_example_refuses_specs_it_cannot_train_at_the_start(kernels, spec, why, monkeypatch):
    """`neural_batch.py easy-first ...` failed deep in numpy (`operands could not be broadcast
    (32,180) (32,0)`): capacity inf has no fixed action set for the MLP's outputs."""
    import runpy

    monkeypatch.chdir(ROOT)
    example = runpy.run_path(str(ROOT / "docs" / "examples" / "neural_batch.py"))
    with pytest.raises(SystemExit, match=f"neural_batch.py: cannot train .*: {why}"):
        example["main"]([spec])


def test_worked_example_labels_the_words_covington_attaches_at_the_end(kernels, monkeypatch):
    """Covington printed `dev UAS 100.0 LAS 84.8`: the words its `finally` rule attaches got
    label -1.  They get the root label now, as a trained parser gives them."""
    import runpy

    from tsdsl.treebank.conllu import read_conllu

    monkeypatch.chdir(ROOT)
    example = runpy.run_path(str(ROOT / "docs" / "examples" / "neural_batch.py"))
    it, ks = kernels["covington"]
    train = read_conllu(ROOT / "docs" / "examples" / "toy-train.conllu")
    dev = read_conllu(ROOT / "docs" / "examples" / "toy-dev.conllu")
    vocab = example["Vocab"](train)
    L = len(vocab.labels)
    root = vocab.label_id[example["root_label_of"](train)]
    assert example["root_label_of"](train) == "root"
    model = example["MLP"](len(vocab.words) + 3, len(vocab.tags) + 3, example["n_slots"](ks), ks.n_actions * L,
                           np.random.default_rng(0))  # untrained: it leaves many words to the end rule
    heads, labels = example["parse"](ks, model, vocab, dev, 32, L, root)
    assert (heads >= 0).all() and (labels >= 0).all()


def test_finished_labels_name_the_words_the_end_rule_attaches(kernels):
    """`StateBatch.labels(finished=True)` was documented but raised TypeError."""
    it, ks = kernels["covington"]
    batch = ks.batch([3, 2], n_labels=4)
    names = batch.action_names
    batch.apply([names.index("SHIFT")] * 2)
    # sentence 0: LEFT-ARC 2 -> 1 labeled 3; nothing else is built in either sentence
    batch.apply([names.index("LEFT-ARC"), -1], [3, -1])
    while not batch.done:
        live = ~batch.is_terminal()
        mask = batch.legal_mask()
        act = np.where(live, np.argmax(mask * (np.array(batch.takes_label) == 0), axis=1), -1)
        batch.apply(act)
    assert batch.labels().tolist() == [[-1, 3, -1, -1], [-1, -1, -1, -1]]
    assert batch.heads(finished=True).tolist() == [[-1, 2, 0, 0], [-1, 0, 0, -1]]
    assert batch.labels(finished=True, root_label=1).tolist() == [[-1, 3, 1, 1], [-1, 1, 1, -1]]
    assert batch.labels(finished=True, root_label=-1).tolist() == batch.labels().tolist()
    with pytest.raises(UsageError, match=r"labels\(finished=True\) needs root_label"):
        batch.labels(finished=True)
    with pytest.raises(UsageError, match=r"root_label must be a label id in 0..3 or -1, not 4"):
        batch.labels(finished=True, root_label=4)
    with pytest.raises(UsageError, match="root_label goes with finished=True"):
        batch.labels(root_label=1)


def test_one_state_apply_takes_integer_ids(kernels):
    it, ks = kernels["arc-eager"]
    a, b = ks.initial(3), ks.initial(3)
    lab = ks.label_id("a")
    for name in ("SHIFT", "LEFT-ARC"):
        ks.apply(a, name, "a")
        ks.apply(b, ks.action_ids[name], lab)
    assert ks.snapshot(a) == ks.snapshot(b) and ks.output(a) == ks.output(b)
    with pytest.raises(UsageError, match="no action id 9"):
        ks.apply(b, 9)
    with pytest.raises(UsageError, match="no label id"):
        ks.apply(b, 0, len(ks.labels))


def test_an_unlabeled_arc_makes_labeled_costs_no_upper_bound(kernels):
    """docs/kernels.md: arc-eager-nm-2013's REDUCE of a headless word builds its arc
    unlabeled, so a derivation of labeled cost 0 can end with a labeled error."""
    _, ks = kernels["arc-eager-nm-2013"]
    batch = ks.batch([2], [[0, 1]], [[0, 1]], 2)
    names = batch.action_names
    total = 0
    for name, label in [("SHIFT", -1), ("RIGHT-ARC", 1), ("REDUCE", -1), ("REDUCE", -1)]:
        a = names.index(name)
        total += int(batch.costs()[0, a, max(label, 0)])
        batch.apply([a], [label])
    assert batch.done and total == 0
    assert batch.heads().tolist() == [[-1, 0, 1]] and batch.labels().tolist() == [[-1, -1, 1]]


@pytest.mark.parametrize("name", ["arc-hybrid", "arc-eager", "arc-standard", "covington"])
def test_worked_example_reads_both_ends_of_every_arc_an_action_builds(kernels, name):
    """neural_batch.py read two tokens at the open end of each list: arc-hybrid's O ends
    s1 s0 b0, so the head of its RIGHT-ARC (s1) was never read, and arc-hybrid reached 52 dev
    UAS where arc-eager reached 69.  Along random derivations, every arc a legal action would
    build joins two tokens the features read."""
    import runpy

    example = runpy.run_path(str(ROOT / "docs" / "examples" / "neural_batch.py"))
    _, ks = kernels[name]
    rng = np.random.default_rng(0)
    for n in (3, 6, 8):
        taken: list[int] = []
        while True:
            A = ks.n_actions
            batch = ks.batch([n] * A)
            for a in taken:
                batch.apply([a] * A)
            if batch.done:
                break
            read = set(example["slot_tokens"](batch)[0].tolist())
            before = batch.heads()
            legal = batch.legal_mask()[0].astype(bool)
            batch.apply(np.where(legal, np.arange(A), -1))
            after = batch.heads()
            for a in np.flatnonzero(legal):
                for d in np.flatnonzero(after[a] != before[a]):
                    if after[a, d] >= 0:
                        assert {int(d), int(after[a, d])} <= read, (name, n, taken, batch.action_names[a])
            taken.append(int(rng.choice(np.flatnonzero(legal))))
