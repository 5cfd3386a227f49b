# Attardi (2006) with N = 2 (arcs reach 2 tokens below the top of the stack).
system attardi_2 "Attardi non-projective, N = 2"
  extends "attardi.ts"
  param   N = 2
