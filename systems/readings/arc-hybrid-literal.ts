# Arc-hybrid read literally from Bohnet et al. 2016 (section 3.4 and 4.4):
# O starts with the first K = 3 tokens and the periphery is measured on
# ACTIVE(O) = O[min(|O|,K)..1].  Compare with systems/arc-hybrid.ts.
system arc_hybrid_literal "Arc-hybrid, literal reading of the control parameters"
  extends   "../arc-hybrid.ts"
  claim     "the paper's table is meant to give Kuhlmann's arc-hybrid (projective trees)"
  start     3
  periphery active
