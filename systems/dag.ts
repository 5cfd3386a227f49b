# Sagae & Tsujii (2008) projective DAG parsing: arc-eager whose arcs neither
# reduce nor shift, and no single-head rule.  Bohnet et al. 2016, section 4.5.
# A DAG has no cycles and no repeated arc, so an arc that would close a cycle or
# repeat an existing arc is not allowed (implicit guards of `multihead`).
system dag "Sagae & Tsujii DAG parser (control parameters)"
  cite      "Bohnet et al. 2016, section 4.5; Sagae & Tsujii 2008"
  claim     "projective DAGs (Sagae & Tsujii 2008)"
  produces  projective-dag
  root      right
  multihead              # a token may receive several heads
  capacity  2
  distance  1

  # LEFT-ARC: b0 -> s0; nothing moves (B=false).
  LEFT-ARC  = ← {B: false}
  # RIGHT-ARC: s0 -> b0; nothing moves (B=false).
  RIGHT-ARC = → {B: false}
  # REDUCE: remove s0 (the left periphery) once it has a head.
  REDUCE    = − {P: left}
  # SHIFT: next word into O.
  SHIFT     = +
