"""Kernel profiles (tsdsl.kernels.codegen.PROFILES): the checks' kernel holds only what the
checks run, builds apart from the full kernel, agrees with it, and gives way to a full kernel
the cache already holds."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tsdsl import load_system
from tsdsl.kernels import compile_system
from tsdsl.kernels.build import PROFILE_FLAGS, cache_key
from tsdsl.kernels.codegen import INCLUDES, PROFILES, generate, profile_includes

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ROOT / "systems"


def _included_by_text(gen) -> set[str]:
    """The files a generated kernel includes, followed through the included files' own
    ``include`` lines: what Cython will read, whatever the profile table says."""
    texts = dict(gen.includes)
    seen: set[str] = set()
    todo = re.findall(r'^include "([^"]+)"', gen.source, re.M)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        assert name in texts, f"{name} is included but not shipped with the kernel"
        todo.extend(re.findall(r'^include "([^"]+)"', texts[name], re.M))
    return seen


@pytest.mark.parametrize("profile", PROFILES)
def test_a_kernel_ships_exactly_the_files_it_includes(profile):
    gen = generate(load_system(SYSTEMS / "arc-eager.ts"), profile)
    assert _included_by_text(gen) == {name for name, _ in gen.includes} == set(profile_includes(profile))


def test_the_checks_kernel_leaves_the_learner_out():
    explore = set(profile_includes("explore"))
    assert {"_runtime.pxi", "_explore.pxi", "_search.pxi", "_loss.pxi"} <= explore
    assert not explore & {"_learn.pxi", "_model.pxi", "_batch.pxi", "_searched.pxi", "_multi_parse.pxi"}
    assert set(profile_includes("full")) == set(INCLUDES)
    full_lines = sum(len(t.splitlines()) for _, t in generate(load_system(SYSTEMS / "arc-eager.ts")).includes)
    lines = sum(len(t.splitlines()) for _, t in generate(load_system(SYSTEMS / "arc-eager.ts"), "explore").includes)
    assert lines < full_lines / 2


def test_profiles_have_their_own_cache_keys_and_flags():
    system = load_system(SYSTEMS / "arc-eager.ts")
    assert cache_key(generate(system)) != cache_key(generate(system, "explore"))
    assert set(PROFILE_FLAGS) == set(PROFILES)


def test_an_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="unknown kernel profile"):
        generate(load_system(SYSTEMS / "arc-eager.ts"), "fast")


@pytest.mark.parametrize("stem", ["arc-hybrid", "covington"])
def test_the_checks_kernel_explores_and_searches_as_the_full_kernel_does(tmp_path, stem):
    """The same graph, the same derivations and the same exact losses from both kernels."""
    full = compile_system(SYSTEMS / f"{stem}.ts", cache_dir=tmp_path / "a", fallback=False)
    checks = compile_system(SYSTEMS / f"{stem}.ts", cache_dir=tmp_path / "b", fallback=False, profile="explore")
    assert checks.gen.profile == "explore" and full.gen.profile == "full"
    assert not hasattr(checks.module, "Learner") and hasattr(full.module, "Learner")
    for n in range(5):
        a, b = full.explore(n), checks.explore(n)
        for field in ("parent", "via", "terminal", "edge_at", "edge_child", "edge_action", "out_heads"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
    heads = [[2, 0, 2, 5, 3], [0, 1, 1]]
    da, db = full.derive(heads), checks.derive(heads)
    assert np.array_equal(da.status, db.status) and np.array_equal(da.actions, db.actions)
    assert list(full.free_actions(heads[0])) == list(checks.free_actions(heads[0]))


def test_a_cached_full_kernel_serves_the_checks(tmp_path):
    full = compile_system(SYSTEMS / "arc-standard.ts", cache_dir=tmp_path, fallback=False)
    again = compile_system(SYSTEMS / "arc-standard.ts", cache_dir=tmp_path, fallback=False, profile="explore")
    assert again.built.cached and again.gen.profile == "full" and again.built.directory == full.built.directory
