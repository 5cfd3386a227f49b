# Attardi (2006) with N = 1 (arcs reach 1 tokens below the top of the stack).
system attardi_1 "Attardi non-projective, N = 1"
  extends "attardi.ts"
  param   N = 1
