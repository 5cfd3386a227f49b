# Bounded-capacity easy-first: arc-standard with K active tokens
# (K = 2 is arc-standard, K = ∞ is easy-first).  Bohnet et al. 2016, section 5.1.
# Try other capacities with --set K=4.
system easy_first_bounded "Bounded-capacity easy-first"
  cite     "Bohnet et al. 2016, section 5.1"
  claim    "projective trees (Bohnet et al. 2016, section 5.1)"
  produces projective
  root     none
  capacity 3
  distance 1

  # ←*(i,i-1) for 2 <= i <= K: adjacent left arcs inside the active window.
  LEFT-ARC  = ←*
  # →*(i,i-1): adjacent right arcs inside the active window.
  RIGHT-ARC = →*
  # SHIFT: the next word enters O (and the window slides).
  SHIFT     = +

  # Training oracle, as for arc-standard (K = 2): a gold arc stays reachable while both of its
  # words are active or still unread; a word leaves O when it takes its head, so taking one
  # too early (before collecting its dependents) or from the wrong word loses arcs.  The
  # window's order constraints are not counted, hence a lower bound.
  oracle   easy_first_reachable "Reachable arcs of bounded easy-first (as arc-standard)"
  reachable h -> d if (d in O or d in U) and (h in O or h in U)
  loss = unreachable bound lower
