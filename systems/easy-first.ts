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
