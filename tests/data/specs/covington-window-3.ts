# Covington's list-based parser (systems/covington.ts) restricted to a window of 3 words: j, the
# front of the buffer, is compared with i, the end of λ1, at most 3 words back (NO-ARC, LEFT-ARC
# and RIGHT-ARC are guarded by j <= i + 3; i lies before j).  It builds no arc longer than 3, so
# it claims no class of trees it covers; its longest derivation is 4n - 6 (n >= 3).
system covington_w3 "Covington non-projective, arcs of length at most 3"
  produces nonprojective covers any
  root     none
  lists    λ1, λ2, β
  initial  ([], [], [1..n])
  terminal (λ1, λ2, [])
  finally  attach headless to root
  SHIFT     : (λ1, λ2, j|β)   => (λ1·λ2|j, [], β)
  NO-ARC    : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  if j <= i + 3
  LEFT-ARC  : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  arc j -> i  if not i ->* j and j <= i + 3
  RIGHT-ARC : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  arc i -> j  if not j ->* i and j <= i + 3
