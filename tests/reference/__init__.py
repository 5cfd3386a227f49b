"""Independent, hand-written reference implementations of the seed transition
systems, written straight from the papers (see each module's docstring).

They are witnesses for differential tests against the tsdsl interpreter and must
not import anything from tsdsl.

Common interface of every reference system object:
  name                      spec file stem, e.g. "arc-eager"
  initial(n) -> config      configs are immutable namedtuples
  legal(config) -> set[str] empty for terminal configurations
  apply(config, action)     returns a NEW config
  terminal(config) -> bool
  snapshot(config) -> {"lists": {...}, "arcs": frozenset, "token_flags": {...},
                       "global_flags": {...}}

REFERENCES maps a system name to a factory taking its keyword parameters
(K, D or N where relevant), e.g. REFERENCES["easy-first-bounded"](K=4).
"""
from . import control
from .arc_eager import ArcEager, ArcEagerSLP
from .arc_standard_slp import ArcStandardSLP
from .covington import Covington, CovingtonNM
from .nonmonotonic_eager import ArcEagerNM2013, ArcEagerUnshift
from .tree_constrained import TreeConstrainedArcEager

REFERENCES = {
    # stack/buffer systems
    "arc-eager": ArcEager,
    "arc-eager-slp": ArcEagerSLP,
    "arc-standard-slp": ArcStandardSLP,
    "arc-eager-tree-constrained": TreeConstrainedArcEager,
    "arc-eager-nm-2013": ArcEagerNM2013,
    "arc-eager-unshift": ArcEagerUnshift,
    # list-based (Covington)
    "covington": Covington,
    "covington-nm": CovingtonNM,
    # control-parameter family (Bohnet et al. 2016)
    "arc-standard": control.arc_standard,
    "arc-eager-cp": control.arc_eager_cp,
    "arc-hybrid": control.arc_hybrid,
    "easy-first": control.easy_first,
    "easy-first-bounded": control.easy_first_bounded,
    "easy-first-nonproj": control.easy_first_nonproj,
    "attardi": control.attardi,
    "dag": control.dag,
}

__all__ = ["REFERENCES"]
