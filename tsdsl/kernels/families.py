"""Families of actions parameterised by position (capacity-inf systems).

Easy-first's ``LEFT-ARC(i,j)`` has one instance per pair of positions.  Their
generated code is identical up to numbers; :func:`skeleton` says which instances
share a shape and :func:`affine` writes each number as an affine function of
the indexes (checked exactly, never guessed).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Optional

from .. import ir
from ..errors import KernelBuildError


INT = re.compile(r"(?<![\w.])\d+(?![\w.])")


def skeleton(action: ir.Action) -> tuple:
    """What decides an action's code apart from its numbers: family, cases, item kinds."""
    def kinds(items):
        return tuple(type(i).__name__[0] for i in items)

    return (action.family or action.name, len(action.indexes),
            tuple((tuple(kinds(m.items) for m in c.match), tuple(kinds(r) for r in c.result)) for c in action.cases))


def affine(values: list[int], indexes: list[tuple[int, ...]], system: str) -> str:
    """A C expression equal to values[k] at indexes[k] for every k: c, or c + a*i0 (+ b*i1)."""
    if len(set(values)) == 1:
        return str(values[0])
    width = max(len(i) for i in indexes)
    for use in ([0], [1], [0, 1]):
        if max(use) >= width:
            continue
        rows = [[Fraction(1)] + [Fraction(ix[u]) for u in use] for ix in indexes]
        coef = solve(rows, [Fraction(v) for v in values])
        if coef is None or any(c.denominator != 1 for c in coef):
            continue
        if all(sum(c * x for c, x in zip(coef, row)) == v for row, v in zip(rows, values)):
            text = ""
            for c, u in zip(coef[1:], use):
                c = int(c)
                if c:
                    sign = "-" if c < 0 else ("+" if text else "")
                    text += f" {sign} " if text else sign
                    text += (f"{abs(c)} * " if abs(c) != 1 else "") + f"i{u}"
            if coef[0]:
                text += f" {'-' if coef[0] < 0 else '+'} {abs(int(coef[0]))}"
            return f"({text.strip()})"
    raise KernelBuildError(f"{system}: a number in a family's code is not affine in its indexes")


def solve(rows: list[list[Fraction]], rhs: list[Fraction]) -> Optional[list[Fraction]]:
    """Least-squares-free exact solve: Gaussian elimination on independent rows, or None."""
    m = len(rows[0])
    basis: list[tuple[list[Fraction], Fraction]] = []
    for row, v in zip(rows, rhs):
        r, val = list(row), v
        for b, bv in basis:
            p = next(k for k, x in enumerate(b) if x != 0)
            if r[p] != 0:
                f = r[p] / b[p]
                r = [x - f * y for x, y in zip(r, b)]
                val -= f * bv
        if any(x != 0 for x in r):
            basis.append((r, val))
        if len(basis) == m:
            break
    if len(basis) < m:
        return None
    coef = [Fraction(0)] * m
    for b, bv in reversed(basis):
        p = next(k for k, x in enumerate(b) if x != 0)
        coef[p] = (bv - sum(b[k] * coef[k] for k in range(p + 1, m))) / b[p]
    return coef
