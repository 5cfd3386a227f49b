"""The backend-neutral intermediate representation of a transition system.

Every spec, whether written with control parameters or rewrite rules, lowers to
the same small vocabulary: a configuration is a tuple of token lists plus arcs
and flags; an action is one or more *cases*, each a list-shape match, a guard
over a fixed set of predicates, arc operations, flag assignments and the lists'
new shapes.  The interpreter, code generator, checker and learner read only this.

- :mod:`.nodes`: the records (numbers of families, list shapes, predicates, terms,
  effects, cases, actions, families, oracles); adding a predicate kind starts here;
- :mod:`.walk`: the walkers, one method per kind, and the spec-syntax/JSON renderings;
- :mod:`.family`: instantiating action families for a sentence length;
- :mod:`.system`: :class:`System`, the root record.
"""

from .family import instantiate
from .nodes import *  # noqa: F401,F403  (the records are the IR's vocabulary)
from .nodes import Num, Item, Pred, Term
from .system import System
from .walk import (EFFECT_KINDS, ITEM_KINDS, PRED_KINDS, TERM_KINDS, EffectWalker, ExprWalker, ItemWalker,
                   PredWalker, TermWalker, Walker, pred_json, pred_text, pred_vars, term_text, visit_method)
