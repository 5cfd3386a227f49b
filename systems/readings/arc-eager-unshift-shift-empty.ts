# Honnibal & Johnson 2015 with SHIFT also allowed when the stack is empty, even
# for a word shifted before (as spaCy's implementation does): after UNSHIFT of
# the only word on the stack, Table 1 read literally has no legal move.  It
# inherits both oracles of arc-eager-unshift.ts; training takes the second.
system arc_eager_unshift_shift_empty "Non-monotonic arc-eager with Unshift, SHIFT on an empty stack"
  extends  "../arc-eager-unshift.ts"
  claim    "projective trees; at most 4n transitions"
  SHIFT    : (σ, b|β)   => (σ|b, β)    if not shifted[b] or empty(σ)   then shifted[b] := true

