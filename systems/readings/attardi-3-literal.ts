# Attardi N = 3 with O filled with the first K = 4 tokens, as Bohnet et al. 2016
# (section 3.4) describe the capacity parameter.  Compare systems/attardi-3.ts.
system attardi_3_literal "Attardi N = 3, O starting with K tokens"
  extends "../attardi-3.ts"
  claim   "a non-projective superset of projective trees (Bohnet et al. 2016, section 4.6)"
  start   4
