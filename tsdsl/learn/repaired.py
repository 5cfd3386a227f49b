"""Training a spec that dead-ends: its verified guard repair instead of the spec as written.

Before training, a quick exhaustive check (sentences of up to :data:`QUICK_N` words) looks
for dead ends (and warns of outputs that are not trees and of derivations that loop).  A spec that has one is repaired by :func:`tsdsl.verify.repair.find_repair`
(the smallest guard change, verified exhaustively to ``verify_n`` words); the repair is
written as an ``extends`` spec of the original, and that spec is what trains, so the model
directory saves it (with the original it extends) and ``tsdsl parse`` runs the same system.
The check, the search and the spec are cached on disk, keyed by the spec's hash and place
(the repair names its parent by a relative path), in ``$TSDSL_CACHE_DIR/repairs``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

from .. import ir
from ..errors import UsageError
from ..files import read_json_record, write_atomic
from ..kernels import kernel_cache_dir
from ..lang import load_system
from ..verify.repair import (VERIFY_N, fragments_only, check_printed, extends_path, find_repair, first_failure,
                             repair_spec)

QUICK_N = 4
"""Sentence lengths the pre-training check explores for dead ends."""
CACHE_VERSION = 5  # 5: candidates that remove a guard are set aside, never trained


@dataclass
class RepairUse:
    """What training does about dead ends: ``system`` is what trains; ``note`` says why."""

    system: ir.System
    note: str = ""                 # empty when the spec has no dead end (up to QUICK_N)
    repaired: bool = False
    edits: tuple[str, ...] = ()    # the repair's edits, described
    spec_file: Optional[str] = None
    verified_n: int = 0

    def meta(self) -> Optional[dict]:
        if not self.note:
            return None
        return {"repaired": self.repaired, "note": self.note, "edits": list(self.edits),
                "verified_n": self.verified_n}


def _cache_dir(system: ir.System, verify_n: int) -> Path:
    h = hashlib.sha256(f"{CACHE_VERSION}\0{system.source_hash}\0{Path(system.source_file).resolve()}\0"
                       f"{verify_n}".encode("utf-8"))
    return kernel_cache_dir() / "repairs" / h.hexdigest()[:32]


def _spec_name(system: ir.System) -> str:
    return Path(system.source_file).stem + "-repaired.ts"


def use_repair(system: ir.System, *, verify_n: int = VERIFY_N, overrides: Optional[dict] = None,
               progress: Optional[TextIO] = None) -> RepairUse:
    """The system to train: ``system`` itself unless a quick check finds a dead end, then its
    verified repair (loaded from the cached repair spec), or ``system`` with a note saying that
    no repair was found."""
    where = _cache_dir(system, verify_n)
    record_path = where / "repair.json"
    record = read_json_record(record_path)
    if record is None:
        record = _decide(system, verify_n, where, progress)
        try:
            write_atomic(record_path, json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        except OSError:
            pass  # a cache that cannot be written only costs the next run the search
    if record["status"] == "ok":
        return RepairUse(system)
    if record["status"] != "repaired":
        return RepairUse(system, note=record["note"])
    spec_path = where / _spec_name(system)
    if not spec_path.is_file() or spec_path.read_text(encoding="utf-8") != record["spec"]:
        write_atomic(spec_path, record["spec"])
    repaired = load_system(spec_path, overrides)
    return RepairUse(repaired, note=record["note"], repaired=True, edits=tuple(record["edits"]),
                     spec_file=str(spec_path), verified_n=verify_n)


def _unsound_warning(name: str, quick) -> str:
    """The warning training prints for a spec the quick check finds unsound ("" if sound up
    to :data:`QUICK_N`): the same exploration that looks for dead ends sees every output, so
    saying so costs nothing, and a parser of an unsound spec may output non-trees."""
    if quick is None or "soundness" not in quick.properties or fragments_only(quick.unsound):
        return ""  # headless words only: arc-eager's documented fragments, attached when parsing
    return (f"warning: {name}: unsound: soundness fails at n = {quick.n} (the output has {quick.unsound}); "
            f"`tsdsl verify {name}` shows a derivation; training the spec as written")


def _looping_warning(name: str, quick) -> str:
    """The warning training prints for a spec the quick check finds can loop ("" if it
    terminates up to :data:`QUICK_N`): a derivation that repeats a configuration never ends, so
    the parser stops it at its step limit and the tree fallback attaches the words left."""
    if quick is None or "termination" not in quick.properties:
        return ""
    return (f"warning: {name}: can loop: termination fails at n = {quick.n} (a derivation can come back to a "
            f"configuration); `tsdsl verify {name}` shows the cycle; training the spec as written (a parse "
            "that loops stops at its step limit, and the tree fallback attaches the words left)")


def _decide(system: ir.System, verify_n: int, where: Path, progress: Optional[TextIO] = None) -> dict:
    """Check, search and print; the record the cache keeps.  The search can take minutes, so
    it is announced on ``progress`` before it starts (a first training said nothing for 95 s)."""
    quick = first_failure(system, QUICK_N, stop_early=False)
    name = system.source_file
    warnings = "\n".join(w for w in (_unsound_warning(name, quick), _looping_warning(name, quick)) if w)
    if quick is None or "progress" not in quick.properties:
        return {"status": "warned", "note": warnings} if warnings else {"status": "ok"}
    dead = f"{name}: dead ends (progress fails at n = {quick.n})"
    if progress is not None:
        progress.write(f"{dead}: searching for a guard repair verified to n = {verify_n} (can take minutes; "
                       "the result is cached for the next training) ...\n")
        progress.flush()
    try:
        result = find_repair(system, max_n=verify_n)
    except UsageError as exc:
        return {"status": "unrepaired", "note": f"{dead}; no repair searched ({exc}); training the spec as written"
                                                + (f"\n{warnings}" if warnings else "")}
    aside = (f" ({len(result.set_aside)} candidate(s) that would remove a guard, making it true wherever its "
             "pattern matches, were set aside)" if result.set_aside else "")
    if result.status != "repaired":
        return {"status": "unrepaired",
                "note": f"{dead}; no guard repair of at most {result.max_size} literals verifies to n = {verify_n}"
                        f"{aside}; training the spec as written" + (f"\n{warnings}" if warnings else "")}
    where.mkdir(parents=True, exist_ok=True)  # the relative `extends` resolves through it
    text = repair_spec(result, extends_path(name, str(where)))
    check_printed(result, text, str(where / _spec_name(system)))
    edits = result.describe_edits()
    note = (f"{dead}: training its verified repair instead ({'; '.join(edits)}; verified exhaustively for "
            f"n <= {verify_n}; `tsdsl verify --repair {name}` prints it)")
    return {"status": "repaired", "note": note, "edits": edits, "spec": text}
