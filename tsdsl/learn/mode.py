"""How training follows the gold trees, in words: the first line ``tsdsl train`` prints
(``training: dynamic oracle (exploration from epoch 2)``), for trees and graphs alike, so that
a user sees which oracle trains without reading model.json."""

from __future__ import annotations

from typing import Optional


def training_mode(kind: str, options, epochs: int, follow: Optional[str] = None) -> str:
    """The training mode in words.  ``kind`` is the chosen oracle (``dynamic``, ``static`` or
    ``search``: :class:`tsdsl.learn.train.OracleChoice`), ``options`` the
    :class:`~tsdsl.learn.train.TrainOptions`, ``epochs`` the most that will run, ``follow``
    the order of the oracle by search when it is not ``options.search_follow`` (graphs always
    follow the canonical one)."""
    if kind == "search":
        follow = follow or options.search_follow
        return "oracle by search (" + ("the model's best-scoring free action" if follow == "model"
                                       else "canonical") + ")"
    beam = f", beam {options.beam} (early update)" if options.beam > 1 else ""
    if kind == "static":
        return "static oracle" + beam
    if options.beam > 1:
        return f"dynamic oracle{beam}, no exploration"
    return _dynamic_mode(options, epochs) + ("; zero-cost detours counted as mistakes (--skip-detours)"
                                             if options.skip_detours else "")


def _dynamic_mode(options, epochs: int) -> str:
    """Greedy training with a dynamic oracle, in words (its exploration)."""
    if options.explore == 0:
        return "dynamic oracle (no exploration: --explore 0)"
    first = options.explore_after + 1
    if first > epochs:
        return (f"dynamic oracle (no exploration: --explore-after {options.explore_after} leaves none of the "
                f"{epochs} epoch{'' if epochs == 1 else 's'})")
    p = "" if options.explore == 1 else f", probability {options.explore:g}"
    return f"dynamic oracle (exploration from epoch {first}{p})"
