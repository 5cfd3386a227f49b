# Arc-standard as control parameters.
# Bohnet, McDonald, Pitler & Ma 2016, "Generalized Transition-based Dependency
# Parsing via Control Parameters", section 4.1 (after Nivre 2003/2008).
system arc_standard "Arc-standard (control parameters)"
  cite     "Bohnet et al. 2016, section 4.1; Nivre 2008"
  claim    "sound and complete for projective trees; 2n - 1 transitions (Nivre 2008)"
  produces projective
  root     left
  capacity 2            # K: two active tokens, the top two of the stack
  distance 1            # D: arcs between adjacent active tokens

  # ←: O[1] -> O[2]; bottom-up (default) removes the dependent O[2].
  LEFT-ARC  = ←
  # →: O[2] -> O[1]; bottom-up removes the dependent O[1].
  RIGHT-ARC = →
  # +: move the front of U onto the right end of O.
  SHIFT     = +

  # Arc-standard is not arc-decomposable (Goldberg & Nivre 2013), so counting the
  # gold arcs that can no longer be built gives only a lower bound of the loss:
  # any two words still in O or U can be brought together (the words between them
  # can be reduced first), so a gold arc is lost once either end is reduced.
  oracle   arc_standard_reachable "Reachable arcs of arc-standard (after Goldberg & Nivre 2013)"
  reachable h -> d if (d in O or d in U) and (h in O or h in U)
  loss = unreachable bound lower
