# Easy-first (Goldberg & Elhadad 2010) as control parameters: every token is
# active from the start and arcs join any two adjacent tokens.
# Bohnet et al. 2016, section 4.3.  Without a root token, the last word left is
# the root ("any" root position in the paper; we take none).
system easy_first "Easy-first (control parameters)"
  cite     "Bohnet et al. 2016, section 4.3; Goldberg & Elhadad 2010"
  claim    "projective trees (Bohnet et al. 2016, section 4.3)"
  produces projective
  root     none
  capacity inf           # K = ∞: O holds the whole sentence from the start
  distance 1

  # ←(i,i-1): O[i-1] -> O[i], O[i] reduced; one action per adjacent pair.
  LEFT-ARC  = ←*
  # →(i,i-1): O[i] -> O[i-1], O[i-1] reduced.
  RIGHT-ARC = →*

  # Training oracle (Goldberg & Elhadad 2010 train towards any action that keeps the gold
  # tree reachable): a gold arc stays reachable while both of its words are in O.  A word
  # leaves O when it takes its head, so taking one from the wrong word, or before it has
  # collected its own dependents, loses arcs.  Exact (`tsdsl check-oracle`).
  oracle   easy_first_reachable "Reachable arcs of easy-first"
  reachable h -> d if d in O and h in O
  loss = unreachable
