"""Training a spec that declares no oracle with the oracle derived from its IR.

:func:`tsdsl.verify.derive_oracle.derive_oracle` writes the IR's pair reachability back as a
``reachable h -> d if ...`` rule and compares it with the exact loss on random configurations
of small sentences (as ``tsdsl check-oracle`` does).  Here the result becomes a spec: a child
that ``extends`` the one being trained and declares the rule as oracle ``derived``, with
``loss = unreachable`` when the check found it exact and ``bound lower`` otherwise.  That spec
is what trains (so the model directory saves it, and ``tsdsl parse`` runs the same system),
and from there the rules of declared oracles apply unchanged (``choose_oracle``): an exact
oracle trains dynamically, a lower bound statically, and either must first reproduce the
training trees, else training falls back to the static oracle by search.  A rule the check
finds above the exact loss somewhere (not even a lower bound) is not used.

The derivation, the check and the spec are cached on disk, keyed by the spec's hash (which
covers ``--set`` values) and place, in ``$TSDSL_CACHE_DIR/oracles``, as repairs are.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .. import ir
from ..files import read_json_record, write_atomic
from ..kernels import kernel_cache_dir
from ..lang import load_system
from ..verify.derive_oracle import TITLE, derive_oracle
from ..verify.oracle_check import NOTHING_CHECKABLE
from ..verify.repair import extends_path

CHECK_CONFIGS = 300
"""Configurations on which the derived rule is compared with the exact loss before it trains."""
CHECK_N = 6
"""Longest sentence of that check (the exact search grows quickly with the length)."""
CHECK_EXHAUSTIVE_N = 4
"""Before those, every configuration of every gold tree of up to this many words."""
ORACLE_NAME = "derived"
_CHECK = (f"every configuration of every gold tree of up to {CHECK_EXHAUSTIVE_N} words, and {CHECK_CONFIGS} random "
          f"ones of up to {CHECK_N} words")
CACHE_VERSION = 7
"""Part of the cache key: raise it whenever the derivation or its check changes."""


@dataclass
class DerivedUse:
    """The system to train (``system``) and what the derivation found (``note``)."""

    system: ir.System
    note: str = ""
    used: bool = False             # ``system`` is the child declaring the derived oracle
    exact: bool = False            # the check found the rule exact (else a lower bound)
    rule: str = ""
    configurations: int = 0
    spec_file: Optional[str] = None

    def meta(self, trained: bool) -> Optional[dict]:
        """What model.json keeps: the rule, the check's verdict, and whether the parser trained
        with it (``trained``; False when the oracle checks sent training to the search)."""
        if not self.note:
            return None
        return {"used": self.used, "trained": trained, "exact": self.exact, "rule": self.rule, "note": self.note,
                "check": {"configurations": self.configurations, "random_max_n": CHECK_N,
                          "exhaustive_max_n": CHECK_EXHAUSTIVE_N}}


def _cache_dir(system: ir.System) -> Path:
    h = hashlib.sha256(f"{CACHE_VERSION}\0{system.source_hash}\0{Path(system.source_file).resolve()}\0"
                       f"{CHECK_CONFIGS}\0{CHECK_N}\0{CHECK_EXHAUSTIVE_N}".encode("utf-8"))
    return kernel_cache_dir() / "oracles" / h.hexdigest()[:32]


def _spec_name(system: ir.System) -> str:
    return Path(system.source_file).stem + "-derived-oracle.ts"


def oracle_spec(system: ir.System, extends: str, rule: str, exact: bool, configurations: int) -> str:
    """The child spec that declares the derived rule as oracle ``derived``."""
    verdict = ("exact on all of them (not proved for longer sentences)" if exact else
               "a lower bound (some configurations differ from the exact loss)")
    bound = "" if exact else "  bound lower"
    return (f"# The oracle `tsdsl derive-oracle` derives for {Path(system.source_file).name}, checked against\n"
            f"# the exact loss on {configurations} configurations ({_CHECK}): {verdict}.\n"
            f'system {system.name}_derived "{_quoted(system.title)} (derived oracle)"\n'
            f'  extends  "{extends}"\n'
            f'  oracle   {ORACLE_NAME} "{TITLE}"\n'
            f"  reachable h -> d if {rule}\n"
            f"  loss = unreachable{bound}\n")


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def use_derived_oracle(system: ir.System, overrides: Optional[dict] = None) -> DerivedUse:
    """``system`` itself when it declares an oracle or is multihead; otherwise the child spec
    declaring its derived oracle (loaded from the cache, derived and checked on a miss), or
    ``system`` with a note saying why the derived rule is not used."""
    if system.oracles or system.multihead:
        return DerivedUse(system)
    where = _cache_dir(system)
    record_path = where / "oracle.json"
    record = read_json_record(record_path)
    if record is None:
        try:
            record = _decide(system, overrides, where)
        except OSError as exc:  # the child spec must be on disk to train (and to be saved with the model)
            return DerivedUse(system, note=f"{system.source_file}: declares no oracle; the derived one could not be "
                                           f"written to {where} ({exc.strerror or exc}), so it is not used")
        try:
            write_atomic(record_path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        except OSError:
            pass  # a cache that cannot be written only costs the next run the derivation
    if record["status"] != "ok":
        return DerivedUse(system, note=record["note"], rule=record.get("rule", ""),
                          configurations=record.get("configurations", 0))
    spec_path = where / _spec_name(system)
    if not spec_path.is_file() or spec_path.read_text(encoding="utf-8") != record["spec"]:
        write_atomic(spec_path, record["spec"])
    child = load_system(spec_path, overrides)
    return DerivedUse(child, note=record["note"], used=True, exact=record["exact"], rule=record["rule"],
                      configurations=record["configurations"], spec_file=str(spec_path))


def _decide(system: ir.System, overrides: Optional[dict], where: Path) -> dict:
    """Derive, check and print; the record the cache keeps."""
    name = system.source_file
    derived = derive_oracle(system, str(Path(name).resolve()), configs=CHECK_CONFIGS, max_n=CHECK_N,
                            exhaustive_n=CHECK_EXHAUSTIVE_N, name=ORACLE_NAME, overrides=overrides)
    checked = f"checked against the exact loss on {derived.configurations} configurations: {_CHECK}"
    base = {"rule": derived.rule, "configurations": derived.configurations}
    if derived.rule == "false":
        return {**base, "status": "none", "note": f"{name}: declares no oracle, and the IR's pair reachability "
                                                  "derives none (every arc unreachable)"}
    if not derived.checked:
        return {**base, "status": "unchecked",
                "note": f"{name}: declares no oracle; the derived one cannot be checked ({NOTHING_CHECKABLE}), "
                        "so it is not used"}
    if not derived.lower:
        return {**base, "status": "unsound",
                "note": f"{name}: declares no oracle; the derived one exceeds the exact loss somewhere ({checked}), "
                        "so it is not used"}
    where.mkdir(parents=True, exist_ok=True)  # the relative `extends` resolves through it
    text = oracle_spec(system, extends_path(name, str(where)), derived.rule, derived.exact, derived.configurations)
    load_system(_probe(where, system, text), overrides)  # a printing mistake must never train
    kind = "exact as far as checked (not proved for longer sentences)" if derived.exact else "a lower bound"
    note = f"{name}: declares no oracle; derived one from the IR's pair reachability, {kind} ({checked})"
    return {**base, "status": "ok", "exact": derived.exact, "spec": text, "note": note}


def _probe(where: Path, system: ir.System, text: str) -> Path:
    path = where / _spec_name(system)
    write_atomic(path, text)
    return path
