"""Generate a Cython kernel (`.pyx` text) from a system's IR.

The generated module holds a C state struct (fixed arrays for lists, heads,
labels, flags, in the style of spaCy's ``_state.pxd``), and per action
``valid``/``apply`` functions and, where the spec declares a fast oracle, its
loss and per-action ``cost`` — all ``noexcept nogil``.  Nothing from the spec's
text reaches the code except numbers, generated identifiers and comments that
are escaped to inert ASCII (:func:`comment`).  Output is deterministic.

The generator is one class assembled from emitters with one job each:
:mod:`.emit_expr` (predicates and terms as C), :mod:`.emit_state` (configurations and
list moves), :mod:`.emit_actions` (actions, capacity-inf families and dispatch) and
:mod:`.emit_costs` (losses and costs, incremental where the oracle allows).  Shared Cython
(the state struct's helpers, the Python API, the learner) is included, not generated.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Optional

from .. import ir
from .._version import __version__
from ..errors import KernelBuildError
from .emit_actions import ActionEmitter
from .emit_costs import CostEmitter
from .emit_expr import CExpr, comment
from .emit_opass import fast_opass
from .emit_state import StateEmitter
from .emit_view import StructView

GENERATOR_VERSION = "2"

__all__ = ["GENERATOR_VERSION", "PROFILES", "Generated", "KernelGen", "comment", "generate", "profile_includes"]


INCLUDES = ("_runtime.pxi", "_api.pxi", "_batch.pxi", "_learn.pxi", "_model.pxi", "_rows.pxi", "_groups.pxi",
            "_few.pxi", "_detours.pxi", "_chains.pxi", "_sums.pxi", "_beam.pxi", "_bind.pxi", "_greedy.pxi",
            "_instances.pxi", "_inst_drivers.pxi", "_search.pxi", "_searched.pxi", "_loss.pxi", "_multi.pxi",
            "_multi_parse.pxi", "_explore.pxi", "_probe.pxi")
"""Shared Cython, the same for every spec, that generated kernels ``include``."""

_TAIL = {
    # what a kernel includes after its generated code, by profile (each with its comment); the
    # files these include in turn (_learn.pxi's) come with them
    "full": (("_api.pxi", "the Python-facing API and batch operations"),
             ("_batch.pxi", "a batch of configurations for neural parsers"),
             ("_learn.pxi", "features, scoring, perceptron, greedy and beam search"),
             ("_search.pxi", "the static oracle by search"),
             ("_searched.pxi", "greedy training with the search as the oracle"),
             ("_loss.pxi", "the exact loss search"),
             ("_multi.pxi", "multihead systems: search on gold graphs"),
             ("_multi_parse.pxi", "multihead systems: parsing to graphs"),
             ("_explore.pxi", "exhaustive exploration for the verifier")),
    "explore": (("_api.pxi", "the Python-facing API and batch operations"),
                ("_search.pxi", "the static oracle by search"),
                ("_loss.pxi", "the exact loss search"),
                ("_multi.pxi", "multihead systems: search on gold graphs"),
                ("_explore.pxi", "exhaustive exploration for the verifier")),
}
PROFILES = tuple(_TAIL)
"""What a kernel is built for.  ``full``: everything, learning and parsing included (``tsdsl
train``, ``parse``, the batch API); ``explore``: what the checks run (exhaustive exploration,
the derivation and exact-loss searches: ``verify``, ``coverage``, ``check-oracle``, ``trace
--gold``), about a third of the code, so that a new spec's first check waits for a much shorter
build.  A full kernel serves every use; see :func:`tsdsl.kernels.build.compile_system`."""

_NESTED = {"_learn.pxi": ("_model.pxi", "_rows.pxi", "_groups.pxi", "_few.pxi", "_detours.pxi", "_chains.pxi",
                          "_sums.pxi", "_beam.pxi", "_bind.pxi", "_greedy.pxi", "_instances.pxi",
                          "_inst_drivers.pxi", "_probe.pxi")}


def profile_includes(profile: str = "full") -> tuple[str, ...]:
    """The shared files a kernel of ``profile`` includes, directly or through another."""
    if profile not in _TAIL:
        raise ValueError(f"unknown kernel profile {profile!r} (known: {', '.join(PROFILES)})")
    direct = ["_runtime.pxi", *(name for name, _ in _TAIL[profile])]
    return tuple(name for name in INCLUDES if name in direct or any(name in _NESTED.get(d, ()) for d in direct))


def include_files(profile: str = "full") -> tuple[tuple[str, str], ...]:
    """The shared Cython files a kernel of ``profile`` includes, and their text (installed as
    package data)."""
    root = resources.files("tsdsl.kernels")
    return tuple((name, root.joinpath(name).read_text("utf-8")) for name in profile_includes(profile))


@dataclass(frozen=True)
class Generated:
    """A generated kernel: its source, a digest of it, and what the wrapper needs to know."""

    source: str
    digest: str
    action_names: tuple[str, ...]
    losses: tuple[tuple[str, str], ...]  # (oracle name, loss name) per loss index
    incremental: tuple[bool, ...]  # per loss index: cost computed incrementally
    unit_keys: tuple[str, ...] = ()  # capacity-inf systems: the family of each unit, by name
    includes: tuple[tuple[str, str], ...] = ()  # (file name, text) of the shared Cython it includes
    label: str = "a kernel"  # what it is, for messages ("the compiled kernel of arc_eager")
    profile: str = "full"  # what it is built for (see PROFILES)

    def write(self, pyx: Path) -> None:
        """Write the source to ``pyx`` and its included files next to it (atomically each)."""
        from ..files import write_atomic

        for name, text in self.includes:
            write_atomic(pyx.parent / name, text)
        write_atomic(pyx, self.source)


# ---- the generator -------------------------------------------------------------------


class KernelGen(StateEmitter, ActionEmitter, CostEmitter):
    """Generates the kernel source of one system (see module docstring)."""

    def __init__(self, system: ir.System, profile: str = "full"):
        profile_includes(profile)  # a known profile
        self.sys = system
        self.profile = profile
        # capacity inf: the families' templates stand for the actions (see ``_units``)
        self.actions = tuple(f.template for f in system.families) if system.unbounded else system.actions
        self.list_index = {d.name: k for k, d in enumerate(system.lists)}
        self.tflag_index = {name: k for k, (name, _) in enumerate(system.token_flags)}
        self.gflag_index = {name: k for k, (name, _) in enumerate(system.global_flags)}
        self.monotonic = system.is_monotonic(8)
        self.losses = [(o, l) for o in system.oracles if o.reach is not None for l in o.losses]
        self.uses_cycles = any(t != "unreachable" for _, l in self.losses for t in l.terms)
        if system.multihead and self.uses_cycles:
            raise KernelBuildError(f"{system.name}: cycle terms of a loss are not supported with multihead")
        self.classes = self._incremental_classes()
        self.out: list[str] = []
        self.units = self._units()
        self.view = StructView()  # how the emitters read and write a configuration (emit_view)
        self.indent_base = 0  # added to every emit's indent (a body rendered inside a loop)

    def emit(self, line: str = "", indent: int = 0) -> None:
        self.out.append("    " * (indent + self.indent_base) + line if line else "")

    def origin_comment(self, span, indent: int) -> None:
        """Quote the spec lines an action or case comes from (escaped, see :func:`comment`)."""
        if span is None:
            return
        file = span.file
        # the base name only: the same spec copied elsewhere (a model directory) hits the cache
        self.emit(f"# {comment(Path(file).name)}:{int(span.line)}", indent)
        text = self._source_line(file, span.line)
        if text is not None:
            self.emit(f"#   {comment(text.strip())}", indent)

    def _source_line(self, file: str, line: int) -> Optional[str]:
        texts = getattr(self, "_texts", None)
        if texts is None:
            texts = self._texts = {}
        if file not in texts:
            try:
                with open(file, encoding="utf-8") as fh:
                    texts[file] = fh.read().split("\n")  # line numbers count \n only, as the parser does
            except OSError:
                texts[file] = None
        lines = texts[file]
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]

    def generate(self) -> Generated:
        s = self.sys
        self.out = []
        self.emit("# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True")
        self.emit("# cython: initializedcheck=False, nonecheck=False")
        self.emit(f"# tsdsl kernel for system {comment(s.name)} ({comment(Path(s.source_file).name)})")
        self.emit(f"# spec hash {s.source_hash[:64] if _is_hex(s.source_hash) else 'unknown'}; "
                  f"tsdsl {comment(__version__)}, generator {GENERATOR_VERSION}")
        if s.unbounded:
            self.emit("# capacity inf: one unit per family of actions, its numbers affine in the indexes i0, i1")
        self.emit("# Generated code: do not edit.  `tsdsl compile --emit-pyx SPEC` writes it out.")
        self.emit()
        nl = len(s.lists)
        cl = self.classes
        self.emit("cdef enum:")
        for name, value in (
            ("NLX", max(nl, 1)), ("NGFX", max(len(s.global_flags), 1)), ("NTFX", max(len(s.token_flags), 1)),
            ("MULTI", int(s.multihead)), ("WORK_PER_TOKEN", 7), ("N_ACTIONS", len(self.units)),
            ("UNBOUNDED", int(s.unbounded)), ("USES_POS", int(self._uses_pos())),
            ("N_LOSSES", len(self.losses)), ("INCREMENTAL", int(cl is not None)),
            ("NCLS", cl.count if cl else 1), ("NDIR", cl.n_dir if cl else 1),
            ("NGRP", self._dep_groups()[1] if cl else 1),
            ("NCNT", self._dep_groups()[1] * cl.n_dir if cl else 0),
            ("NEEDS_SCRATCH_STATE", int(not self._all_incremental_losses())),
            ("USES_CYCLES", int(self.uses_cycles)),
            ("ATTACH_HEADLESS", int(s.attach_headless_to_root)), ("HAS_ROOT", int(s.root != "none")),
            ("ILLEGAL", -1_000_000_000),
            ("ROOT_KIND", {"left": 0, "right": 1, "none": 2}[s.root]), ("MONOTONIC", int(self.monotonic)),
            ("HAS_UNLABELED", int(not s.multihead and any(not op.labeled for a in self.actions for c in a.cases
                                                            for op in c.arcs))),
        ):
            self.emit(f"{name} = {int(value)}", 1)
        self.emit()
        self.emit('include "_runtime.pxi"  # the state struct, lists, paths, cycles')
        self.emit()
        self._initial()
        self._terminal()
        self._classes_and_losses()
        self._pending_tables: list[tuple[str, list[int]]] = []
        self._actions()
        # per unit: whether a case of it builds, moves or removes an arc (greedy parsing
        # compares the arcs around the steps that may)
        self._pending_tables.append(("unit_arcs", [int(any(c.arcs for c in a.cases)) for a, _ in self.units]))
        for name, values in self._pending_tables:
            self.emit(f"cdef signed char {name}[{len(values)}]")
            self._table_init(name, values)
            self.emit()
        self._cost_functions()
        self.emit()
        for line in fast_opass(self):  # the unlabeled oracle pass on records, where it applies
            self.emit(line)
        for name, what in _TAIL[self.profile]:
            self.emit(f'include "{name}"  # {what}')
        source = "\n".join(self.out).rstrip() + "\n"
        includes = include_files(self.profile)
        digest = hashlib.sha256("\0".join([source, *(t for _, t in includes)]).encode("utf-8")).hexdigest()
        return Generated(
            source=source, digest=digest, includes=includes,
            action_names=() if s.unbounded else tuple(a.name for a in self.actions),
            losses=tuple((o.name, l.name) for o, l in self.losses),
            incremental=tuple(self._is_incremental(k) for k in range(len(self.losses))),
            unit_keys=tuple(fam.template.name for _, fam in self.units) if s.unbounded else (),
            label=f"the compiled kernel of {s.name}",
            profile=self.profile,
        )

    def expr(self, names: dict[str, str]) -> CExpr:
        """The C translation of predicates and terms under a case's bound names."""
        return CExpr(self.list_index, self.tflag_index, self.gflag_index, names, self.view)


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdef" for c in text.lower())


def generate(system: ir.System, profile: str = "full") -> Generated:
    """The kernel source for ``system``, built for ``profile`` (see :data:`PROFILES`)."""
    return KernelGen(system, profile).generate()
