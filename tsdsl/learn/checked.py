"""Checking a declared oracle against the exact loss before it trains, with the verdict cached.

Every oracle a spec declares, in its own text or inherited through ``extends``, is compared
with the exact loss of the spec's transitions on a few hundred random configurations of short
sentences (``tsdsl check-oracle``'s machinery): an exact loss must match it and give the same
optimal actions, a bound must stay on its side.  Following an oracle over the training trees
only tests it on the gold path; a penalty or rule that is wrong after a mistake shows up here
only, and a dynamic oracle explores exactly there.

The check takes seconds, so its verdict is cached on disk, keyed by the spec's hash (its text,
its ancestors' and the ``--set`` values), its place and the oracle's name, in
``$TSDSL_CACHE_DIR/oracle-checks``, as repairs and derived oracles are.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import ir
from ..files import read_json_record, write_atomic
from ..kernels import kernel_cache_dir
from ..verify.oracle_check import check_oracle

CHECK_CONFIGS = 300
"""Configurations on which a declared oracle is compared with the exact loss of the spec's
transitions before it trains."""
CHECK_N = 6
"""Longest sentence of that check (the exact search grows quickly with the length)."""
CHECK_BUDGET = 20_000
"""Configurations one exact-loss search may expand in that check."""
CACHE_VERSION = 2
"""Part of the cache key: raise it whenever the check or its messages change."""


def _cache_file(system: ir.System, oracle_name: str) -> Path:
    h = hashlib.sha256(f"{CACHE_VERSION}\0{system.source_hash}\0{Path(system.source_file).resolve()}\0"
                       f"{oracle_name}\0{CHECK_CONFIGS}\0{CHECK_N}\0{CHECK_BUDGET}".encode("utf-8"))
    return kernel_cache_dir() / "oracle-checks" / f"{h.hexdigest()[:32]}.json"


def declared_oracle_holds(system: ir.System, oracle_name: str) -> tuple[bool, str]:
    """Whether the oracle ``oracle_name`` that ``system`` declares (or inherits) holds for its
    transitions, and a note saying what was checked or what failed (cached by spec hash)."""
    path = _cache_file(system, oracle_name)
    record = read_json_record(path)
    if not isinstance(record, dict) or not isinstance(record.get("holds"), bool) \
            or not isinstance(record.get("why"), str):
        holds, why = _check(system, oracle_name)
        record = {"holds": holds, "why": why}
        try:
            write_atomic(path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        except OSError:
            pass  # a cache that cannot be written only costs the next run the check
    return record["holds"], record["why"]


def _check(system: ir.System, oracle_name: str) -> tuple[bool, str]:
    oracle = next(o for o in system.oracles if o.name == oracle_name)
    report = check_oracle(system, oracle_name, configs=CHECK_CONFIGS, max_n=CHECK_N, budget=CHECK_BUDGET)
    # named by file: the spec that trains may be a verified repair the user never named
    what = f"oracle {oracle_name} (declared in {Path(oracle.origin.file).name})"
    whose = f"the transitions of {Path(system.source_file).name}"
    if not report.checked:
        return False, f"{what} cannot be checked against {whose}: {report.shortfall()}"
    if report.ok:  # said for an inherited oracle only: one's own is expected to fit its spec
        own = Path(oracle.origin.file).resolve() == Path(system.source_file).resolve()
        return True, "" if own else f"{what} checked against {whose}"
    wrong = ", ".join(f"{k} {v}" for k, v in report.mismatches.items() if v)
    return False, (f"{what} does not hold for {whose} "
                   f"(mismatches against the exact loss on {report.configurations} configurations: {wrong}; "
                   f"`tsdsl check-oracle {system.source_file}` shows them)")
