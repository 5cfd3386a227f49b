"""Compiled kernels against the interpreter: every system, every step, every oracle cost.

A Hypothesis state machine per spec draws a sentence, a gold tree and random
legal actions (and copies that then diverge); after every step the compiled
system and the interpreter must agree on the legal set, the configuration, the
terminal test, the output tree and, for every declared oracle loss, the cost of
every legal action.  The oracle pass over a small treebank must take the same
actions as the interpreter following :class:`tsdsl.oracle.FastOracle`.

Kernels are built once into the user's kernel cache (``TSDSL_CACHE_DIR`` to
change it); set ``TSDSL_KERNEL_EXAMPLES`` to change the examples per system.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from strategies import trees
from tsdsl import Interpreter, UsageError, load_system
from tsdsl.kernels import compile_system
from tsdsl.kernels.compiled import CompiledSystem
from tsdsl.oracle import FastOracle

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "systems").glob("*.ts")) + sorted((ROOT / "systems" / "readings").glob("*.ts"))
EXTRA = [("easy-first-bounded.ts", {"K": 4}), ("easy-first-nonproj.ts", {"D": 3}), ("attardi.ts", {"N": 3})]
EXAMPLES = int(os.environ.get("TSDSL_KERNEL_EXAMPLES", "40"))

CASES = [(p, {}) for p in SPECS] + [(ROOT / "systems" / f, o) for f, o in EXTRA]


def _case_id(case) -> str:
    path, overrides = case
    rel = path.relative_to(ROOT / "systems").with_suffix("")
    return str(rel) + "".join(f"-{k}{v}" for k, v in overrides.items())


@pytest.fixture(scope="session")
def kernels() -> dict[str, tuple[Interpreter, CompiledSystem]]:
    """Every spec compiled (two builds at a time), with its interpreter."""

    def one(case):
        path, overrides = case
        system = load_system(path, overrides)
        return _case_id(case), (Interpreter(system), compile_system(system, fallback=False))

    with ThreadPoolExecutor(max_workers=max(os.cpu_count() or 1, 2)) as pool:
        return dict(pool.map(one, CASES))


class _Agreement(RuleBasedStateMachine):
    """One sentence: the interpreter and the kernel take the same random legal actions."""

    it: Interpreter = None
    ks: CompiledSystem = None

    @initialize(data=st.data())
    def start(self, data):
        self.n = data.draw(st.integers(0, 9), label="n")
        gold = data.draw(trees(min_n=self.n, max_n=self.n), label="gold") if self.n else ()
        self.gold = list(gold)
        self.c = self.it.initial(self.n)
        self.k = self.ks.initial(self.n)
        self.oracles = []
        if self.n and self.ks.gen.losses:
            self.ks.attach_gold(self.k, self.gold)
            for oracle, loss in self.ks.gen.losses:
                self.oracles.append((FastOracle(self.it, oracle, self.gold), oracle, loss))
        self.spare = None

    @precondition(lambda self: hasattr(self, "c") and not self.it.is_terminal(self.c))
    @rule(data=st.data())
    def step(self, data):
        legal = self.it.legal(self.c)
        if not legal:
            return
        name = data.draw(st.sampled_from(legal), label="action")
        label = data.draw(st.sampled_from(["nsubj", "obj", None]), label="label")
        self.it.apply(self.c, name, label)
        self.ks.apply(self.k, name, label)

    @precondition(lambda self: hasattr(self, "c"))
    @rule()
    def copy_then_diverge(self):
        """A copy is independent: stepping it changes neither original."""
        c2, k2 = self.it.copy(self.c), self.ks.copy(self.k)
        legal = self.it.legal(c2)
        if legal:
            self.it.apply(c2, legal[-1])
            self.ks.apply(k2, legal[-1])
            assert self.ks.snapshot(k2) == self.it.snapshot(c2)
        assert self.ks.snapshot(self.k) == self.it.snapshot(self.c)

    @invariant()
    def agree(self):
        if not hasattr(self, "c"):
            return
        assert self.ks.is_terminal(self.k) == self.it.is_terminal(self.c)
        assert self.ks.legal(self.k) == self.it.legal(self.c)
        assert self.ks.snapshot(self.k) == self.it.snapshot(self.c)
        assert self.ks.output(self.k) == self.it.output(self.c)
        for fo, oracle, loss in self.oracles:
            assert self.ks.loss(self.k, oracle=oracle, loss=loss) == fo.loss(self.c, loss), (oracle, loss)
            assert self.ks.costs_dict(self.k, oracle=oracle, loss=loss) == fo.costs(self.c, loss), (oracle, loss)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_kernel_agrees_with_interpreter(kernels, case):
    it, ks = kernels[_case_id(case)]
    machine = type("Agreement", (_Agreement,), {"it": it, "ks": ks})
    machine.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=40, deadline=None,
                                         suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.filter_too_much])
    machine.TestCase().runTest()


def _interpreter_pass(it: Interpreter, gold: list[int]) -> list[str]:
    fo = FastOracle(it, None, gold)
    c = it.initial(len(gold))
    taken = []
    while not it.is_terminal(c):
        zero = [a for a, v in fo.costs(c).items() if v == 0]
        if not zero:
            break
        it.apply(c, zero[0])
        taken.append(zero[0])
    return taken


@pytest.mark.parametrize("stem", ["arc-eager", "arc-hybrid", "arc-eager-unshift", "covington", "covington-nm",
                                  "arc-eager-nm-2013", "arc-eager-tree-constrained", "arc-standard"])
def test_oracle_pass_takes_the_interpreters_actions(kernels, stem):
    it, ks = kernels[stem]
    rng = np.random.default_rng(7)
    projective = it.system.produces == "projective"
    golds = []
    from tsdsl.verify.oracle_check import random_tree
    import random
    r = random.Random(11)
    for _ in range(25):
        n = int(rng.integers(1, 12))
        golds.append(list(random_tree(r, n, projective=projective)))
    res = ks.oracle_pass(golds)
    expected = [a for g in golds for a in _interpreter_pass(it, g)]
    assert [ks.action_names[a] for a in res.actions] == expected
    assert res.transitions == len(expected)
    heads = [h for g in golds for h in it_output_heads(it, g)]
    assert res.heads.tolist() == heads


@pytest.mark.parametrize("labeled", [False, True])
def test_oracle_pass_counts_past_a_short_log(kernels, labeled):
    """With a log too short for the treebank, the pass writes what fits, still counts every
    transition (and sentence start) and says it overflowed; the wrapper then retries."""
    it, ks = kernels["arc-eager"]
    golds = [[2, 0, 2, 3], [0, 1, 1], [3, 3, 0, 3, 4]]
    labels = [[0, 1, 2, 0], [1, 2, 2], [2, 0, 1, 1, 0]] if labeled else None
    full = ks.oracle_pass(golds, labels, n_labels=3 if labeled else 0)
    tb = ks.pack(golds, labels, 3 if labeled else 0)
    n_sent, words = len(golds), len(tb.heads)
    for cap in (0, 5, full.transitions - 1, full.transitions):
        acts = np.full(cap + 1, -7, np.int32)
        labs = np.full(cap + 1, -7, np.int32)
        heads = np.empty(words, np.int32)
        starts = np.empty(n_sent + 1, np.int32)
        T, stuck, bad_s, bad_w, overflow = ks.module.oracle_pass(
            tb.heads, tb.offsets, n_sent, tb.labels if labeled else None, 3 if labeled else 0,
            ks.loss_index(None, None), acts, labs, cap, heads, None, 0, starts)
        assert (T, stuck, bad_w) == (full.transitions, 0, 0)
        assert overflow == (cap < full.transitions)
        assert acts[:cap].tolist() == full.actions[:cap].tolist() and acts[cap] == -7
        if labeled:
            assert labs[:cap].tolist() == full.labels[:cap].tolist()
        assert starts.tolist() == full.starts.tolist()
        assert heads.tolist() == full.heads.tolist()


def it_output_heads(it: Interpreter, gold: list[int]) -> list[int]:
    c = it.initial(len(gold))
    for a in _interpreter_pass(it, gold):
        it.apply(c, a)
    return [-1 if h is None else h for h in it.output(c).heads]


def test_labeled_oracle_pass_builds_gold_labels(kernels):
    it, ks = kernels["arc-eager-root-heuristic"]
    golds = [[2, 0, 2, 3], [0, 1, 1]]
    labels = [[0, 1, 2, 0], [1, 2, 2]]
    res = ks.oracle_pass(golds, labels, n_labels=3)
    assert res.mismatched_words == 0 and res.stuck_sentences == 0
    # replay: every arc built carries the gold label of its dependent
    st_ = ks.initial(4)
    assert ks.run(st_, res.actions[:res.transitions - 0], res.labels) > 0
    view = ks.module.view(st_)
    built = {d: view["labels"][d] for d in range(1, 5) if view["heads"][d] >= 0}
    assert built and all(lab == labels[0][d - 1] for d, lab in built.items())


def test_batch_operations_match_single_steps(kernels):
    it, ks = kernels["covington"]
    gold = [2, 0, 2, 3, 3]
    k = ks.initial(5)
    ks.attach_gold(k, gold)
    mask = ks.legal_mask(k)
    assert [ks.action_names[i] for i in np.flatnonzero(mask)] == ks.legal(k)
    res = ks.oracle_pass([gold])
    k2 = ks.initial(5)
    assert ks.run(k2, res.actions) == len(res.actions)
    assert ks.is_terminal(k2) and ks.output(k2).heads == tuple(gold)
    with pytest.raises(UsageError):
        ks.legal_mask(k, np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("stem", ["easy-first", "easy-first-nonproj", "easy-first-nonproj-D3"])
def test_capacity_inf_families_on_long_sentences(kernels, stem):
    """Families are fitted on short sentences; they must hold far beyond them."""
    import random

    it, ks = kernels[stem]
    rng = random.Random(5)
    for n in (15, 40, 90):
        c, k = it.initial(n), ks.initial(n)
        assert ks.actions_of(k) == [a.name for a in it.actions(c)]
        while not it.is_terminal(c):
            legal = it.legal(c)
            assert ks.legal(k) == legal
            if not legal:
                break
            name = rng.choice(legal)
            it.apply(c, name)
            ks.apply(k, name)
        assert ks.snapshot(k) == it.snapshot(c)
        assert ks.output(k) == it.output(c)


def test_arrays_crossing_into_the_kernel_are_checked(kernels):
    """The kernel takes numpy arrays, not addresses: a wrong item type, a short or a
    read-only output array is a clear ValueError, never a write past the end."""
    _, ks = kernels["arc-eager"]
    state = ks.initial(3)
    n = ks.module.n_actions(state)
    assert ks.module.legal_mask(state, np.zeros(n, np.uint8)) > 0
    with pytest.raises(ValueError, match=r"legal mask: expected 8-bit items, got format 'i'"):
        ks.module.legal_mask(state, np.zeros(n, np.int32))
    with pytest.raises(ValueError, match=r"legal mask: expected at least 4 items, got 2"):
        ks.module.legal_mask(state, np.zeros(2, np.uint8))
    frozen = np.zeros(n, np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match=r"legal mask: expected a C-contiguous writable array"):
        ks.module.legal_mask(state, frozen)
    with pytest.raises(ValueError, match=r"actions: expected 32-bit items"):
        ks.module.run(state, np.zeros(2, np.int64), None, 2)
