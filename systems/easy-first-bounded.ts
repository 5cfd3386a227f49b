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
