# Attardi (2006) with N = 3 (arcs reach 3 tokens below the top of the stack).
system attardi_3 "Attardi non-projective, N = 3"
  extends "attardi.ts"
  param   N = 3
