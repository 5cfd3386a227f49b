"""Default features cover every list position a system's actions bind or attach.

An arc-swift system with k <= 6 (``LEFT-ARC_k`` attaches the k-th stack item) reaches
``s0``..``s5``; the packaged ``zhang-nivre-2011.yaml`` reads ``s0`` and ``s1`` only, so the
default set adds templates for ``s2``..``s5``.  Every seed system's default set stays the
packaged file, byte for byte (the table below lists them), and ``train --features FILE``
says on stderr which positions FILE does not read.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tsdsl.cli import main
from tsdsl.ir.reach import reached_positions
from tsdsl.lang import load_system, load_system_text
from tsdsl.learn.feature_reach import (
    added_templates, default_feature_set, read_positions, unread_positions, unread_text,
)
from tsdsl.learn.features import default_features, load_features

train_module = importlib.import_module("tsdsl.learn.train")  # the package exports a function `train`
REPO = Path(__file__).resolve().parent.parent
SYSTEMS = REPO / "systems"
TOY = REPO / "tests" / "data" / "toy-deps-train.conllu"


def swift_text(k_max: int) -> str:
    """Arc-swift (Qi & Manning 2017) with k <= ``k_max`` and REDUCE, root on the right, as
    rewrite rules: LEFT-ARC_k / RIGHT-ARC_k join the k-th stack item and the buffer front
    when the items above it have heads."""
    lines = [f'system swift{k_max} "arc-swift, k <= {k_max}, with REDUCE; root right"',
             "  produces projective", "  root     right", "  lists    σ, β", "  initial  ([], [1..n|root])",
             "  terminal ([], [r]) if is_root(r)", "  SHIFT  : (σ, b|β) => (σ|b, β)  if not is_root(b)"]
    for k in range(1, k_max + 1):
        stack = "|".join(f"s{j}" for j in range(k, 0, -1))
        guard = " and ".join(f"has_head(s{j})" for j in range(1, k))
        guard = f"  if {guard}" if guard else ""
        lines.append(f"  LEFT-ARC_{k}  : (σ|{stack}, b|β) => (σ, b|β)  arc b -> s{k}{guard}")
        lines.append(f"  RIGHT-ARC_{k} : (σ|{stack}, b|β) => (σ|s{k}|b, β)  arc s{k} -> b{guard}")
    lines.append("  REDUCE : (σ|s, β) => (σ, β)  if has_head(s)")
    return "\n".join(lines) + "\n"


SWIFT6 = load_system_text(swift_text(6))

# every seed spec's default feature file, its number of templates and the head of its digest
SEED_DEFAULTS = {
    "arc-eager-cp.ts": ("control-parameters-b0.yaml", 104, "bfdf70750768d211"),
    "arc-eager-nm-2013.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "arc-eager-root-heuristic.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "arc-eager-slp.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "arc-eager-tree-constrained.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "arc-eager-unshift.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "arc-eager.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "arc-hybrid.ts": ("control-parameters-b0.yaml", 104, "bfdf70750768d211"),
    "arc-standard-slp.ts": ("stack-arcs.yaml", 104, "3782ca07310ccae7"),
    "arc-standard-swap.ts": ("stack-arcs.yaml", 104, "3782ca07310ccae7"),
    "arc-standard.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "attardi-1.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "attardi-2.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "attardi-3.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "attardi.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "covington-nm.ts": ("covington-2017.yaml", 94, "18beee8bf876c265"),
    "covington.ts": ("covington-2017.yaml", 94, "18beee8bf876c265"),
    "dag.ts": ("control-parameters-b0.yaml", 104, "bfdf70750768d211"),
    "easy-first-bounded.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "easy-first-nonproj.ts": ("easy-first-nonproj.yaml", 46, "3ec691adeb095f12"),
    "easy-first.ts": ("easy-first-2010.yaml", 49, "9cd927aa872cdbd1"),
    "readings/arc-eager-tree-constrained-root.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "readings/arc-eager-tree-constrained-shift-empty.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "readings/arc-eager-unshift-shift-empty.ts": ("zhang-nivre-2011.yaml", 83, "3f20df27e8deb00f"),
    "readings/arc-hybrid-literal.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "readings/arc-hybrid-start-1-active.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
    "readings/attardi-3-literal.ts": ("control-parameters.yaml", 104, "3782ca07310ccae7"),
}


def test_the_table_lists_every_seed_spec():
    found = {str(p.relative_to(SYSTEMS)) for p in sorted(SYSTEMS.glob("*.ts")) + sorted(SYSTEMS.glob("readings/*.ts"))}
    assert found == set(SEED_DEFAULTS)


@pytest.mark.parametrize("spec", sorted(SEED_DEFAULTS))
def test_a_seed_specs_default_features_are_its_packaged_file_unchanged(spec):
    system = load_system(SYSTEMS / spec)
    file, n, digest = SEED_DEFAULTS[spec]
    fs = default_feature_set(system)
    assert default_features(system).name == file
    assert fs.text == default_features(system).read_text(encoding="utf-8")  # what a model stores, verbatim
    assert (len(fs), fs.digest()[:16]) == (n, digest)
    assert unread_positions(fs, system) == []


def test_reached_positions_are_the_deepest_each_list_binds():
    assert reached_positions(SWIFT6) == {"sigma": 5, "beta": 0}
    assert reached_positions(load_system(SYSTEMS / "arc-eager.ts")) == {"sigma": 0, "beta": 0}
    assert reached_positions(load_system(SYSTEMS / "arc-standard-swap.ts")) == {"sigma": 1, "beta": 0}
    assert reached_positions(load_system(SYSTEMS / "attardi-3.ts"))["O"] == 3
    assert reached_positions(load_system(SYSTEMS / "easy-first.ts")) == {}  # instance-relative features


def test_arc_swift_default_features_read_every_stack_position_it_attaches():
    packaged = load_features(default_features(SWIFT6), SWIFT6)
    assert default_features(SWIFT6).name == "zhang-nivre-2011.yaml"
    assert unread_text(packaged, SWIFT6) == "s2, s3, s4, s5"
    fs = default_feature_set(SWIFT6)
    assert {(0, p) for p in range(6)} <= read_positions(fs)  # list 0 is σ
    assert unread_positions(fs, SWIFT6) == []
    # s1's templates in the packaged set (w, p, and p with s0 and b0), moved to each deeper position
    added = [t for t, g in zip(fs.template_names, fs.template_groups) if g == "reached-positions"]
    assert added == [f"s{k}.{x}" for k in range(2, 6) for x in ("w", "p", "p+s0.p+b0.p")]
    assert fs.template_names[:len(packaged)] == packaged.template_names
    assert fs.name == "zhang-nivre-2011+s2+s3+s4+s5"
    # the packaged file, its name extended, with one group appended
    renamed = fs.text.replace("\nname: zhang-nivre-2011+s2+s3+s4+s5\n", "\nname: zhang-nivre-2011\n", 1)
    assert renamed.startswith(packaged.text.rstrip("\n"))


def test_a_list_the_set_does_not_read_gets_the_fallback_templates():
    """A third list that the actions look into and no packaged template reads."""
    system = load_system_text(
        "system three\nlists σ, τ, β\nroot left\ninitial ([root], [], [1..n])\nterminal (σ, τ, [])\n"
        "SHIFT : (σ, τ, b|β) => (σ|b, τ, β)\nPARK : (σ|s, τ, β) => (σ, τ|s, β)  if has_head(s)\n"
        "LEFT : (σ|s, τ|t, b|β) => (σ, τ|t, b|β)  arc b -> s\nRIGHT : (σ|s, τ, b|β) => (σ|s|b, τ, β)  arc s -> b\n")
    assert reached_positions(system) == {"sigma": 0, "tau": 0, "beta": 0}
    packaged = load_features(default_features(system), system)
    assert added_templates(packaged, system) == ["tau[0].w", "tau[0].p", "tau[0].w + tau[0].p",
                                                 "tau[0].lc1.l", "tau[0].rc1.l"]
    assert unread_positions(default_feature_set(system), system) == []


class _Stop(Exception):
    """Raised in place of the kernel build: the features are chosen and checked before it."""


def _train_until_the_build(capsys, monkeypatch, tmp_path, features: Path) -> str:
    def stop(*args, **kwargs):
        raise _Stop

    monkeypatch.setattr(train_module, "compile_system", stop)
    spec = tmp_path / "swift6.ts"
    spec.write_text(swift_text(6), encoding="utf-8")
    with pytest.raises(_Stop):
        main(["train", str(spec), "--train", str(TOY), "--out", str(tmp_path / "m"), "--features", str(features),
              "--oracle", "search", "--quiet"])
    return capsys.readouterr().err


def test_train_warns_when_a_given_feature_file_misses_a_position(capsys, monkeypatch, tmp_path):
    err = _train_until_the_build(capsys, monkeypatch, tmp_path, default_features(SWIFT6))
    warnings = [line for line in err.splitlines() if "no template reads" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: {default_features(SWIFT6)}: no template reads s2, s3, s4, s5, ")
    assert "swift6.ts" in warnings[0]


def test_train_says_nothing_of_positions_when_the_file_reads_them_all(capsys, monkeypatch, tmp_path):
    covering = tmp_path / "covering.yaml"
    covering.write_text(default_feature_set(SWIFT6).text, encoding="utf-8")
    err = _train_until_the_build(capsys, monkeypatch, tmp_path, covering)
    assert "no template reads" not in err
