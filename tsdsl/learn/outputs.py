"""The classifier outputs of a system: one per spec classifier class, times labels for arcs.

Transitions that share a `class` in the spec are one output (Honnibal & Johnson's REDUCE and
UNSHIFT); an output stands for the first of its transitions that is legal.  Classes whose
transitions build labelled arcs are split by label ("labels folded into arc actions").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from .. import ir

CLS_W = 6  # must match the kernel: label, up to four units, spare
MAX_UNITS = 4


@dataclass(frozen=True)
class Outputs:
    names: tuple[str, ...]          # "LEFT-ARC:nsubj", "SHIFT", "POP" ...
    table: np.ndarray               # int32 [C, CLS_W] for the kernel
    labeled_classes: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.names)


def build_outputs(system: ir.System, unit_names: tuple[str, ...], labels: list[str]) -> Outputs:
    """Outputs for a system whose kernel units are ``unit_names`` (in kernel order): its
    actions, or for a capacity-inf system its action families (an output then stands for
    every instance of its family, each scored from its own tokens)."""
    if system.unbounded:
        by_name = {f.template.name: dataclasses.replace(f.template, cls=f.template.cls or f.template.name)
                   for f in system.families}
    else:
        by_name = {a.name: a for a in system.actions}
    groups: dict[str, list[int]] = {}
    labeled: dict[str, bool] = {}
    for u, name in enumerate(unit_names):
        action = by_name[name]
        groups.setdefault(action.cls, []).append(u)
        labeled[action.cls] = labeled.get(action.cls, False) or action.labeled
    names: list[str] = []
    rows: list[list[int]] = []
    for cls, units in groups.items():
        if len(units) > MAX_UNITS:
            raise UsageError(f"{system.source_file}: class {cls} groups {len(units)} transitions; "
                             f"a learner output can stand for at most {MAX_UNITS}")
        pad = units + [-1] * (MAX_UNITS - len(units))
        if labeled[cls]:
            for k, lab in enumerate(labels):
                names.append(f"{cls}:{lab}")
                rows.append([k] + pad + [0])
        else:
            names.append(cls)
            rows.append([-1] + pad + [0])
    table = np.ascontiguousarray(np.asarray(rows, dtype=np.int32).reshape(len(rows), CLS_W))
    return Outputs(tuple(names), table, tuple(c for c in groups if labeled[c]))


def unit_names(kernel) -> tuple[str, ...]:
    """The names of a compiled kernel's units, in order: its actions, or for a capacity-inf
    system its action families."""
    return tuple(kernel.gen.unit_keys) if kernel.system.unbounded else tuple(kernel.action_names)
