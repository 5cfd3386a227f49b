# Arc-hybrid with O starting as one token but the periphery measured on
# ACTIVE(O) (so RIGHT-ARC may also act as s0 -> b0 when |O| = 2).
system arc_hybrid_start1_active "Arc-hybrid, start 1 with the active periphery"
  extends   "../arc-hybrid.ts"
  claim     "one of the readings of Bohnet et al. 2016, section 4.4"
  periphery active
