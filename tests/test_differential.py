"""Differential tests: the tsdsl interpreter against the hand-written references.

For every seed system (spec file ``systems/<name>.ts``, parameters given as
overrides) Hypothesis draws a sentence length and a random legal action sequence;
after every step the interpreter's legal set, snapshot and terminal test must
equal the reference's (``tests/reference``, written straight from the papers).

The number of examples per system is at least 200 by default (CI); set it with
the environment variable ``TSDSL_DIFF_EXAMPLES`` or choose a Hypothesis profile
(``HYPOTHESIS_PROFILE=thorough`` in tests/conftest.py gives 2000).
"""
import os
import random
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))   # tsdsl from the working tree
sys.path.insert(0, str(HERE))   # the `reference` package

from reference import REFERENCES  # noqa: E402
from tsdsl import load_system  # noqa: E402
from tsdsl.interp import Interpreter  # noqa: E402

SYSTEMS_DIR = ROOT / "systems"

# TSDSL_DIFF_EXAMPLES wins; otherwise the loaded Hypothesis profile's count if one was
# chosen explicitly (HYPOTHESIS_PROFILE), else at least 200 (what CI runs).
if os.environ.get("TSDSL_DIFF_EXAMPLES"):
    EXAMPLES = int(os.environ["TSDSL_DIFF_EXAMPLES"])
elif os.environ.get("HYPOTHESIS_PROFILE"):
    EXAMPLES = settings.default.max_examples
else:
    EXAMPLES = max(200, settings.default.max_examples)

# (id, spec file stem, overrides passed to load_system, reference name, reference kwargs)
CASES = [
    ("arc-eager", "arc-eager", {}, "arc-eager", {}),
    ("arc-eager-slp", "arc-eager-slp", {}, "arc-eager-slp", {}),
    ("arc-standard-slp", "arc-standard-slp", {}, "arc-standard-slp", {}),
    ("arc-eager-tree-constrained", "arc-eager-tree-constrained", {}, "arc-eager-tree-constrained", {}),
    ("arc-eager-nm-2013", "arc-eager-nm-2013", {}, "arc-eager-nm-2013", {}),
    ("arc-eager-unshift", "arc-eager-unshift", {}, "arc-eager-unshift", {}),
    ("covington", "covington", {}, "covington", {}),
    ("covington-nm", "covington-nm", {}, "covington-nm", {}),
    ("arc-standard", "arc-standard", {}, "arc-standard", {}),
    ("arc-eager-cp", "arc-eager-cp", {}, "arc-eager-cp", {}),
    ("arc-hybrid", "arc-hybrid", {}, "arc-hybrid", {}),
    ("easy-first", "easy-first", {}, "easy-first", {}),
    ("easy-first-bounded", "easy-first-bounded", {}, "easy-first-bounded", {}),          # K = 3
    ("easy-first-bounded-K3", "easy-first-bounded", {"K": 3}, "easy-first-bounded", {"K": 3}),
    ("easy-first-bounded-K4", "easy-first-bounded", {"K": 4}, "easy-first-bounded", {"K": 4}),
    ("easy-first-nonproj", "easy-first-nonproj", {}, "easy-first-nonproj", {}),          # D = 2
    ("easy-first-nonproj-D2", "easy-first-nonproj", {"D": 2}, "easy-first-nonproj", {"D": 2}),
    ("easy-first-nonproj-D3", "easy-first-nonproj", {"D": 3}, "easy-first-nonproj", {"D": 3}),
    ("attardi", "attardi", {}, "attardi", {}),                                           # N = 2
    ("attardi-N1", "attardi", {"N": 1}, "attardi", {"N": 1}),
    ("attardi-N2", "attardi", {"N": 2}, "attardi", {"N": 2}),
    ("attardi-N3", "attardi", {"N": 3}, "attardi", {"N": 3}),
    ("dag", "dag", {}, "dag", {}),
]
# fixed-parameter variant files, checked when the repository ships them
for _n in (1, 2, 3):
    if (SYSTEMS_DIR / f"attardi-{_n}.ts").is_file():
        CASES.append((f"attardi-{_n}.ts", f"attardi-{_n}", {}, "attardi", {"N": _n}))

_LOADED = {}


def interpreter(stem, overrides):
    key = (stem, tuple(sorted(overrides.items())))
    if key not in _LOADED:
        _LOADED[key] = Interpreter(load_system(SYSTEMS_DIR / f"{stem}.ts", overrides or None))
    return _LOADED[key]


def normalise(snap):
    """Compare values, not container types (the form itself is tested separately)."""
    return {
        "lists": {k: tuple(v) for k, v in snap["lists"].items()},
        "arcs": frozenset(tuple(a) for a in snap["arcs"]),
        "token_flags": {k: frozenset(v) for k, v in snap["token_flags"].items()},
        "global_flags": {k: bool(v) for k, v in snap["global_flags"].items()},
    }


def compare(case_id, n, trace, ref, rc, it, ic):
    where = f"{case_id}, n={n}, actions (or their tail)={trace}"
    rsnap, isnap = ref.snapshot(rc), normalise(it.snapshot(ic))
    assert isnap == rsnap, f"snapshot differs after {where}\n  reference:   {rsnap}\n  interpreter: {isnap}"
    ilegal = it.legal(ic)
    assert len(ilegal) == len(set(ilegal)), f"duplicate legal names after {where}: {ilegal}"
    rlegal = ref.legal(rc)
    assert set(ilegal) == rlegal, (
        f"legal sets differ after {where} at {rsnap}\n"
        f"  reference only:   {sorted(rlegal - set(ilegal))}\n"
        f"  interpreter only: {sorted(set(ilegal) - rlegal)}")
    assert it.is_terminal(ic) == ref.terminal(rc), f"terminal differs after {where} at {rsnap}"


LENGTHS = st.one_of(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12), st.integers(13, 40))


@pytest.mark.parametrize("case_id,stem,overrides,ref_name,ref_kw", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_differential(case_id, stem, overrides, ref_name, ref_kw, data):
    it = interpreter(stem, overrides)
    ref = REFERENCES[ref_name](**ref_kw)
    n = data.draw(LENGTHS, label="n")
    rc, ic = ref.initial(n), it.initial(n)
    trace = []
    compare(case_id, n, trace, ref, rc, it, ic)
    for _ in range(4 * n + 10):
        legal = sorted(ref.legal(rc))
        if not legal:
            break
        action = legal[data.draw(st.integers(0, len(legal) - 1), label=f"step {len(trace)}")]
        trace.append(action)
        saved = it.copy(ic)
        saved_snap = normalise(it.snapshot(saved))
        rc = ref.apply(rc, action)
        it.apply(ic, action)
        assert normalise(it.snapshot(saved)) == saved_snap, "Interpreter.copy shares state"
        compare(case_id, n, trace, ref, rc, it, ic)


@pytest.mark.parametrize("case_id,stem,overrides,ref_name,ref_kw", CASES, ids=[c[0] for c in CASES])
def test_snapshot_form(case_id, stem, overrides, ref_name, ref_kw):
    """The interpreter's snapshot has exactly the documented form and types."""
    it = interpreter(stem, overrides)
    ref = REFERENCES[ref_name](**ref_kw)
    for n in (0, 3):
        snap = it.snapshot(it.initial(n))
        assert set(snap) == {"lists", "arcs", "token_flags", "global_flags"}
        assert list(snap["lists"]) == list(ref.snapshot(ref.initial(n))["lists"])  # list order
        assert all(type(v) is tuple for v in snap["lists"].values())
        assert isinstance(snap["arcs"], frozenset)
        assert all(isinstance(v, frozenset) for v in snap["token_flags"].values())
        assert all(type(v) is bool for v in snap["global_flags"].values())


LONG = [c for c in CASES if c[0] in {
    "arc-standard", "arc-eager", "arc-eager-slp", "arc-hybrid", "arc-eager-unshift",
    "arc-eager-tree-constrained", "covington", "covington-nm", "easy-first",
    "easy-first-nonproj-D3", "attardi-N3", "dag"}]


@pytest.mark.parametrize("case_id,stem,overrides,ref_name,ref_kw", LONG, ids=[c[0] for c in LONG])
def test_long_sentence(case_id, stem, overrides, ref_name, ref_kw):
    it = interpreter(stem, overrides)
    ref = REFERENCES[ref_name](**ref_kw)
    rng = random.Random(zlib.crc32(case_id.encode()))
    n = 500 + rng.randrange(50)
    rc, ic = ref.initial(n), it.initial(n)
    trace = []
    legal = sorted(ref.legal(rc))
    for step in range(8 * n):
        if step % 25 == 0:   # full comparison every few steps keeps this fast
            compare(case_id, n, trace[-10:], ref, rc, it, ic)
        assert sorted(it.legal(ic)) == legal, f"{case_id} n={n} step {step}"
        if not legal:
            break
        # a random action, avoiding a dead end (no legal action, not terminal) if possible
        rng.shuffle(legal)
        for action in legal:
            nxt = ref.apply(rc, action)
            nxt_legal = sorted(ref.legal(nxt))
            if nxt_legal or ref.terminal(nxt):
                break
        trace.append(action)
        rc, legal = nxt, nxt_legal
        it.apply(ic, action)
    compare(case_id, n, trace[-10:], ref, rc, it, ic)
    assert len(trace) >= n - 1, f"{case_id}: the random walk stopped after {len(trace)} steps"
