"""Scoring groups: the sums greedy parsing keeps per anchor token (``_groups.pxi``).

The kernel sums the rows of the templates that start at one list position (a group) on
their own, and greedy parsing keeps that sum per token until an arc within the group's
reach changes.  The kept sums must give the scores of ``score()`` recomputed from scratch
bit for bit: with ``Learner.group_check`` set, greedy parsing recomputes every step's
scores and counts the steps that differ.  These tests check that count is 0 for monotonic
and non-monotonic Covington and for a feature file with deep and sentence-neighbour steps,
on the toy treebank and on random sentences (Hypothesis); and that it is not 0 when the
reverse walks are cut short or one of them is left out, so the check can fail.
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from tsdsl.kernels import compile_system
from tsdsl.lang import load_system
from tsdsl.learn.data import columns_of, make_batch
from tsdsl.learn.engine import Engine
from tsdsl.learn.features import BASE_CL, BASE_CR, default_features, load_features
from tsdsl.learn.outputs import build_outputs, unit_names
from tsdsl.learn.scoring import (MIN_GROUP, WALK_CHILDREN, WALK_HEAD, WALK_NEXT, WALK_PREV, reads_arcs,
                                 scoring_groups)
from tsdsl.treebank.conllu import read_conllu

from strategies import columns_of_tagged, tagged_sentences

REPO = Path(__file__).resolve().parent.parent
TOY_TRAIN = REPO / "docs" / "examples" / "toy-train.conllu"
TOY_DEV = REPO / "docs" / "examples" / "toy-dev.conllu"
SYSTEMS = REPO / "systems"
HASH_BITS = 12

# templates that read arcs far from their anchor: the dependents of a child of the grandparent
# (depth 3), the arcs of sentence neighbours (prev/next), a distance within one anchor; the
# arcs at the word CL picks; and pairs across anchors
DEEP = """templates:
  - s0.w
  - s0.p
  - s0.h.p + s0.p
  - s0.h2.lc1.vl
  - s0.prev.l + s0.p
  - s0.next.h.p
  - s0.h.l + s0.vr
  - s0.p + dist(s0,s0.h)
  - b0.w
  - b0.p
  - b0.lc1.p + b0.p
  - b0.prev.l + b0.next.p
  - b0.lcc.l + b0.sl
  - s0.p + b0.p
  - s0.w + b0.w
  - s1.p + s0.p + b0.p
  - CL.w
  - CL.p
  - CL.h.p + CL.lc1.l
"""


LABELS = sorted({lab for s in read_conllu(TOY_TRAIN) for lab in s.deprels})


def random_engine(spec: str, features: str | None, tmp: Path, seed: int = 1) -> Engine:
    """The system bound to random weights, every row non-zero: any change of a feature bucket
    changes the scores, so a stale kept sum cannot go unseen (a trained model's rows for rare
    conjunctions are mostly zero)."""
    system = load_system(SYSTEMS / spec)
    if features is None:
        fs = load_features(default_features(system), system)
    else:
        path = tmp / "f.yaml"
        path.write_text(features, encoding="utf-8")
        fs = load_features(path, system)
    kernel = compile_system(system, fallback=False)
    outputs = build_outputs(system, unit_names(kernel), LABELS)
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((1 << HASH_BITS, len(outputs))).astype(np.float32)
    return Engine(kernel, fs, outputs, HASH_BITS, weights=weights)


@pytest.fixture(scope="module")
def engines(tmp_path_factory) -> dict[str, Engine]:
    tmp = tmp_path_factory.mktemp("groups")
    return {"covington": random_engine("covington.ts", None, tmp),
            "covington-nm": random_engine("covington-nm.ts", None, tmp),
            "covington-deep": random_engine("covington.ts", DEEP, tmp),
            "arc-eager": random_engine("arc-eager.ts", None, tmp)}


def checked_parse(engine: Engine, batch) -> tuple[int, int, int]:
    """Parse greedily with the self-check on: (steps whose kept sums differed, hits, misses)."""
    learner = engine.learner
    learner.group_check = True
    try:
        engine.parse(batch, beam=1)
    finally:
        learner.group_check = False
    return learner.group_mismatches, learner.cache_hits, learner.cache_misses


def toy_batch(engine: Engine, path: Path = TOY_DEV):
    return make_batch([columns_of(s) for s in read_conllu(path)], engine.features.token_attrs)


def test_covington_groups():
    system = load_system(SYSTEMS / "covington.ts")
    features = load_features(default_features(system), system)
    g = scoring_groups(features)
    names = features.template_names
    assert sorted(g.order.tolist()) == list(range(len(names)))
    assert g.starts[0] == 0 and g.starts[-1] == len(names) and len(g.starts) == g.count + 2
    groups = [[names[t] for t in g.order[g.starts[k]:g.starts[k + 1]]] for k in range(g.count + 1)]
    assert all(len(members) >= MIN_GROUP for members in groups[1:])
    lists = [d.name for d in system.lists]
    anchors = [(lists[a], p) if a >= 0 else {BASE_CL: "CL", BASE_CR: "CR"}[int(features.addresses[p][0])]
               for a, p in g.anchors.tolist()]
    by_anchor = dict(zip(anchors, groups[1:]))
    walks_by_anchor = dict(zip(anchors, g.group_walks))
    focus = by_anchor[(lists[0], 0)]  # s0: the last of λ1
    assert {"s0.w", "s0.h.p", "s0.lcc.l", "s0.h2.w"} <= set(focus)
    assert all(name.count("b0") == 0 and "CL" not in name for name in focus)
    # CL and CR: the word each picks between s0 and b0 anchors its own templates
    assert set(by_anchor["CL"]) == {"CL.w", "CL.p", "CL.w+CL.p"} and set(by_anchor["CR"]) == {"CR.w", "CR.p", "CR.w+CR.p"}
    direct = set(groups[0])
    assert {"s0.w+b0.w", "s0.p+dist(s0,b0)"} <= direct  # two anchors
    # h2: the longest walk two steps back (children of children); no prev/next
    assert max(map(len, g.walks)) == 2 and not {WALK_PREV, WALK_NEXT} & {c for w in g.walks for c in w}
    # groups that read no arc (s1, b1, b2, CL, CR: forms and tags) have no walks: kept all sentence long
    assert walks_by_anchor[(lists[0], 1)] == () and walks_by_anchor["CL"] == ()
    assert walks_by_anchor[(lists[0], 0)] and walks_by_anchor[(lists[2], 0)]


def test_deep_groups_reach_and_neighbours(tmp_path):
    system = load_system(SYSTEMS / "covington.ts")
    feats = tmp_path / "f.yaml"
    feats.write_text(DEEP, encoding="utf-8")
    g = scoring_groups(load_features(feats, system))
    assert g.count == 3  # s0 (8 templates), b0 (5) and CL (3); s1 has one template, summed directly
    # s0.h2.lc1.vl: three steps, and a child count (the children of the last); prev and next
    assert max(map(len, g.walks)) == 4 and {WALK_PREV, WALK_NEXT} <= {c for w in g.walks for c in w}
    assert g.starts[1] == 3  # the two-anchor pairs and the lone s1 template
    # CL's group: the arc at CL (the dependent itself) and CL's children (back to the head)
    assert g.anchors[2][0] == -1 and set(g.group_walks[2]) == {(), (WALK_HEAD,)}


def test_each_group_starts_with_the_templates_that_read_no_arc(tmp_path):
    """Within a group, the templates that read no arc come first (their sum is kept per
    token for the whole sentence, the start of the group's sum when it is made again)."""
    system = load_system(SYSTEMS / "covington.ts")
    feats = tmp_path / "f.yaml"
    feats.write_text(DEEP, encoding="utf-8")
    for features in (load_features(default_features(system), system), load_features(feats, system)):
        g = scoring_groups(features)
        names = features.template_names
        reads = {names[t]: reads_arcs(features, t) for t in range(len(names))}
        for k in range(1, g.count + 1):
            flags = [reads_arcs(features, int(t)) for t in g.order[g.starts[k]:g.starts[k + 1]]]
            assert flags == sorted(flags)
        if "s0.prev.l+s0.p" in reads:  # DEEP
            assert not reads["s0.w"] and not reads["b0.p"] and not reads["CL.w"]
            assert reads["s0.prev.l+s0.p"] and reads["s0.next.h.p"] and reads["s0.p+dist(s0,s0.h)"]
            assert [names[t] for t in g.order[g.starts[1]:g.starts[1] + 2]] == ["s0.w", "s0.p"]
        else:  # Fernández-González & Gómez-Rodríguez: forms, tags, morphology first
            assert not reads["s0.w+s0.p"] and not reads["b0.feats"] and not reads["CR.w+CR.p"]
            assert reads["s0.lcc.l"] and reads["b0.p+b0.sl"] and reads["s0.w+s0.vr"]


@pytest.mark.parametrize("name", ["covington", "covington-nm", "covington-deep", "arc-eager"])
def test_kept_sums_are_the_scores_from_scratch(engines, name):
    engine = engines[name]
    mismatches, hits, misses = checked_parse(engine, toy_batch(engine))
    assert mismatches == 0
    assert hits > 0 and misses > 0


@pytest.mark.parametrize("name, cut", [("covington", "shorter"), ("covington-nm", "shorter"),
                                       ("covington-deep", "shorter"), ("covington-deep", "neighbours")])
def test_the_check_fails_when_the_walks_are_cut(engines, name, cut):
    """With every reverse walk one step shorter, or without the steps to sentence
    neighbours, some kept sums go stale: the self-check sees it, so the zero above means
    something."""
    engine = engines[name]
    per_group = engine.groups.group_walks
    if cut == "shorter":
        walks = tuple(tuple({w[:-1] for w in ws}) for ws in per_group)
    else:
        assert any(WALK_PREV in w or WALK_NEXT in w for w in engine.groups.walks)
        walks = tuple(tuple(w for w in ws if WALK_PREV not in w and WALK_NEXT not in w) for ws in per_group)
    engine.bind_groups(walks=walks)
    try:
        mismatches, _, _ = checked_parse(engine, toy_batch(engine, TOY_TRAIN))
    finally:
        engine.bind_groups()
    assert mismatches > 0


@pytest.mark.parametrize("name", ["covington", "covington-nm"])
def test_every_walk_of_covington_is_needed(engines, name, tmp_path):
    """Fernández-González & Gómez-Rodríguez's templates need all four walks (the dependent,
    its heads, its children, its grandchildren): without any one of them a kept sum goes
    stale.  Every token within two arcs of the dependent and of its heads (the rule before
    the walks) loses more kept sums, none of which was stale."""
    engine = engines[name]
    walks, per_group = engine.groups.walks, engine.groups.group_walks
    assert set(walks) == {(), (WALK_HEAD,), (WALK_CHILDREN,), (WALK_CHILDREN, WALK_CHILDREN)}
    _, _, misses = checked_parse(engine, toy_batch(engine, TOY_TRAIN))
    within_two = {w for k in range(3) for w in product((WALK_HEAD, WALK_CHILDREN), repeat=k)}
    everywhere = tuple(within_two | {(WALK_HEAD,) + w for w in within_two})
    engine.bind_groups(walks=tuple(everywhere for _ in per_group))
    try:
        stale, _, more = checked_parse(engine, toy_batch(engine, TOY_TRAIN))
    finally:
        engine.bind_groups()
    assert stale == 0 and more > misses
    # a cut walk shows when the parser scans back over a word whose arcs changed since its
    # sum was kept: random tables whose NO-ARC leans ahead (+0.2 a row, about a fifth of the
    # spread of a step's scores) scan further; a few tables, until one shows it
    others = []
    for seed in (1, 2, 3):
        e = random_engine(f"{name}.ts", None, tmp_path, seed)
        e.W[:, list(e.outputs.names).index("NO-ARC")] += 0.2
        others.append(e)
    for dropped in walks:
        found = 0
        for e in others:
            e.bind_groups(walks=tuple(tuple(w for w in ws if w != dropped) for ws in per_group))
            try:
                found, _, _ = checked_parse(e, toy_batch(e, TOY_TRAIN))
            finally:
                e.bind_groups()
            if found:
                break
        assert found > 0, dropped


def test_kept_sums_parse_as_recomputed_sums(engines):
    """Greedy parsing (kept sums) and beam search of width 1 (every score from scratch) build
    the same trees."""
    engine = engines["covington-nm"]
    batch = toy_batch(engine)
    heads, labels = (np.empty(batch.words + 1, dtype=np.int32) for _ in range(2))
    engine.learner.parse_beam(batch.offsets, batch.tokens, 1, heads, labels)
    greedy = engine.parse(batch, beam=1)
    assert np.array_equal(greedy[0], heads[:batch.words]) and np.array_equal(greedy[1], labels[:batch.words])


WORDS = sorted({(w, p) for s in read_conllu(TOY_TRAIN) for w, p in zip(s.forms, s.upos)})


@settings(max_examples=30, deadline=None)
@given(tagged_sentences(WORDS))
def test_kept_sums_are_exact_on_random_sentences(engines, sentences):
    for name in ("covington-nm", "covington-deep"):
        engine = engines[name]
        batch = make_batch(columns_of_tagged(sentences), engine.features.token_attrs)
        assert checked_parse(engine, batch)[0] == 0


# ---- suffix programs: buffer positions read from the buffer's first word ----------------

def _plain_engine(monkeypatch, spec: str, tmp: Path) -> Engine:
    """``random_engine`` without :func:`program_for` (the program as the feature file wrote it)."""
    import tsdsl.learn.engine as engine_module

    monkeypatch.setattr(engine_module, "program_for", lambda features, system: features)
    try:
        return random_engine(spec, None, tmp)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("spec", ["covington-nm.ts", "arc-eager.ts", "arc-hybrid.ts"])
def test_the_suffix_program_reads_the_same_tokens(spec, tmp_path, monkeypatch):
    """Along random legal action sequences, every address of the kernel's program (``b1``
    read as ``b0.next``) holds the token the feature file's address holds; and the program
    did rewrite some (a wrong step, such as ``prev``, fails here)."""
    from hypothesis import strategies as st

    from tsdsl.interp import Interpreter

    ours, plain = random_engine(spec, None, tmp_path), _plain_engine(monkeypatch, spec, tmp_path)
    assert not np.array_equal(ours.program.addresses, plain.program.addresses)
    interp = Interpreter(load_system(SYSTEMS / spec))
    kernel = ours.kernel
    names = list(kernel.action_names)
    sentences = read_conllu(TOY_DEV)
    batch = toy_batch(ours)

    @settings(max_examples=40, deadline=None)
    @given(st.data())
    def check(data):
        si = data.draw(st.integers(0, len(sentences) - 1))
        c = interp.initial(sentences[si].n)
        actions = []
        for _ in range(data.draw(st.integers(0, 4 * sentences[si].n + 4))):
            legal = sorted(a for a in interp.legal(c) if a in names)
            if interp.is_terminal(c) or not legal:
                break
            a = data.draw(st.sampled_from(legal))
            interp.apply(c, a)
            actions.append(names.index(a))
        got = [np.zeros((len(actions) + 1, len(e.program.addresses)), dtype=np.int32) for e in (ours, plain)]
        for e, out in zip((ours, plain), got):
            kernel.module.address_tokens(e.learner, batch.offsets, batch.tokens, si, np.asarray(actions, np.int32),
                                         np.full(len(actions), -1, np.int32), out)
        assert np.array_equal(got[0], got[1])

    check()


def test_the_buffer_words_join_the_group_of_its_first(tmp_path, monkeypatch):
    """NM Covington: with its buffer read from ``b0``, the templates of ``b1`` and ``b2`` and
    ``b0.p + b1.p`` are in ``b0``'s group (kept for a whole scan over λ1), the kept sums are
    the scores from scratch, and the trees are those of the program as written."""
    ours, plain = random_engine("covington-nm.ts", None, tmp_path), _plain_engine(monkeypatch, "covington-nm.ts", tmp_path)
    names = ours.features.template_names

    def group_of(engine, template):
        g = engine.groups
        k = int(np.flatnonzero(g.order == names.index(template))[0])
        at = int(np.searchsorted(g.starts, k, side="right")) - 1
        return None if at == 0 else tuple(g.anchors[at - 1])

    b0 = group_of(ours, "b0.w")
    assert b0 is not None and all(group_of(ours, t) == b0 for t in ("b1.w", "b2.w+b2.p", "b0.p+b1.p", "b0.p+b1.p+b2.p"))
    assert group_of(plain, "b0.p+b1.p") is None and group_of(plain, "b1.w") != group_of(plain, "b0.w")
    assert ours.groups.count == plain.groups.count - 2
    batch = toy_batch(ours)
    assert checked_parse(ours, batch)[0] == 0
    a, b = ours.parse(batch, beam=1), plain.parse(batch, beam=1)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
