"""The oracle by search as a non-deterministic oracle: free outputs decided by search.

Training with ``--oracle search`` (``--search-follow model``, the default) takes an output
as free when the gold tree is still derivable after it.  The kernel's decision
(``free_actions``) is checked against an independent witness: an exhaustive depth-first
search over the interpreter, without pruning, from the same configuration, on random small
trees of every seed system and on configurations reached by random free steps.  Training
with random weights (so that it takes many different free orders) must still end every
derivable training sentence in its gold tree.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from test_learn import SYSTEMS, generate_treebank, conllu_text  # noqa: F401
from test_search_oracle import SEED_SPECS, random_heads, reference_derivation
from tsdsl import Interpreter, load_system
from tsdsl.kernels import compile_system
from tsdsl.learn.derive import search_oracle
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import default_features, load_features
from tsdsl.learn.train import gold_batch
from tsdsl.treebank.conllu import parse_conllu


def derivable(it: Interpreter, c, gold: list[int], names: list[str]) -> bool:
    """Whether some sequence of actions leads from ``c`` to a terminal configuration whose
    output is ``gold`` (the exhaustive reference search of test_search_oracle)."""
    return reference_derivation(it, gold, names, start=c) is not None


@pytest.mark.parametrize("spec", SEED_SPECS, ids=[p.stem for p in SEED_SPECS])
def test_free_actions_are_those_after_which_the_gold_tree_is_derivable(spec):
    system = load_system(spec)
    ks = compile_system(system, fallback=False)
    it = Interpreter(system)
    rng = random.Random(11)
    checked = free_seen = 0
    for _ in range(8):
        gold = random_heads(rng, rng.randint(1, 5))
        if not derivable(it, it.initial(len(gold)), gold, ks.action_names):
            continue
        c, prefix = it.initial(len(gold)), []
        while not it.is_terminal(c):
            got = ks.free_actions(gold, prefix)
            legal = set(it.legal(c))
            free = []
            for a, name in enumerate(ks.action_names):
                if name not in legal:
                    assert got[a] == -1, (spec.name, gold, prefix, name)
                    continue
                child = it.copy(c)
                it.apply(child, name)
                want = derivable(it, child, gold, ks.action_names)
                assert got[a] == int(want), (spec.name, gold, [ks.action_names[p] for p in prefix], name)
                checked += 1
                if want:
                    free.append(a)
            assert free, (spec.name, gold, prefix)    # on a gold path some action is always free
            free_seen += len(free)
            a = rng.choice(free)                      # a random free step: not only the canonical path
            it.apply(c, ks.action_names[a])
            prefix.append(a)
    assert checked and free_seen


def _batch(system, ks, text):
    sentences = parse_conllu(text, "<toy>")
    features = load_features(default_features(system), system)
    outputs, batch, _ = gold_batch(system, ks, sentences, features)
    return features, outputs, batch


@pytest.mark.parametrize("name", ["attardi.ts", "arc-standard-swap.ts", "easy-first-bounded.ts",
                                  "arc-eager-slp.ts", "covington.ts"])
def test_training_by_search_ends_every_sentence_in_its_gold_tree(name):
    system = load_system(SYSTEMS / name)
    ks = compile_system(system, fallback=False)
    features, outputs, batch = _batch(system, ks, conllu_text(generate_treebank(80, seed=5), prefix="s"))
    engine = Engine(ks, features, outputs, 12, train=True)
    rng = np.random.default_rng(3)
    engine.W[:] = rng.normal(size=engine.W.shape).astype(np.float32)   # a perverse model: many free orders
    order = search_oracle(ks, batch, outputs).derived       # the sentences the system can derive
    assert len(order) > 40
    steps, wrong, stuck = engine.train_searched(batch, order, budget=2_000)
    assert stuck == 0 and wrong > 0 and steps > 0
    # a trained model makes fewer mistakes along its own free orders
    for _ in range(4):
        steps2, wrong2, stuck2 = engine.train_searched(batch, order, budget=2_000)
    assert stuck2 == 0 and wrong2 < wrong


def test_train_follows_the_model_among_free_actions_when_asked(tmp_path):
    from test_learn import FAST, cli

    (tmp_path / "train.conllu").write_text(conllu_text(generate_treebank(200, seed=1), prefix="t"), encoding="utf-8")
    (tmp_path / "dev.conllu").write_text(conllu_text(generate_treebank(40, seed=2), prefix="d"), encoding="utf-8")
    metas = {}
    for follow in ("canonical", "model"):
        out = tmp_path / follow
        code, _, err = cli("train", SYSTEMS / "attardi.ts", "--train", tmp_path / "train.conllu", "--dev",
                           tmp_path / "dev.conllu", "--out", out, *FAST, "--no-tagger", "--search-follow", follow)
        assert code == 0, err
        metas[follow] = json.loads((out / "model.json").read_text(encoding="utf-8"))
    for follow, meta in metas.items():
        assert meta["oracle"] == "search" and meta["args"]["search_follow"] == follow
        assert meta["dev_las"] > 0.9, (follow, meta["dev_las"])
    # the canonical derivation is the default
    code, _, err = cli("train", SYSTEMS / "attardi.ts", "--train", tmp_path / "train.conllu", "--out",
                       tmp_path / "default", *FAST, "--no-tagger")
    assert code == 0, err
    meta = json.loads((tmp_path / "default" / "model.json").read_text(encoding="utf-8"))
    assert meta["args"]["search_follow"] == "canonical"
    # a spec trained with its declared oracle says that the option does nothing for it
    code, _, err = cli("train", SYSTEMS / "arc-eager.ts", "--train", tmp_path / "train.conllu", "--out",
                       tmp_path / "declared", *FAST, "--no-tagger", "--search-follow", "model")
    assert code == 0, err
    meta = json.loads((tmp_path / "declared" / "model.json").read_text(encoding="utf-8"))
    assert meta["oracle"] == "dynamic" and "--search-follow model has no effect" in meta["oracle_note"]
    with pytest.raises(SystemExit) as exit_:        # argparse refuses the choice
        cli("train", SYSTEMS / "attardi.ts", "--train", tmp_path / "train.conllu", "--out", tmp_path / "bad",
            *FAST, "--search-follow", "sideways")
    assert exit_.value.code != 0 and not (tmp_path / "bad").exists()
