# Covington's non-projective parser in Nivre's (2008) list-based form,
# monotonic version: Fernández-González & Gómez-Rodríguez (2017), section 2.1,
# Fig. 1.  Focus words: i, the end of λ1, and j, the front of the buffer.
# Words left without a head at the end are attached to an artificial root.
system covington "Covington non-projective (monotonic)"
  cite     "Covington 2001; Nivre 2008; Fernández-González & Gómez-Rodríguez 2017, Fig. 1"
  produces nonprojective
  root     none
  lists    λ1, λ2, β
  initial  ([], [], [1..n])
  terminal (λ1, λ2, [])
  finally  attach headless to root

  # SHIFT: j ends its turn; λ2 is put back after λ1 and j follows.
  SHIFT     : (λ1, λ2, j|β)   => (λ1·λ2|j, [], β)
  # NO-ARC: no arc between i and j; i moves over to λ2.
  NO-ARC    : (λ1|i, λ2, β)   => (λ1, i|λ2, β)
  # LEFT-ARC: j -> i (implicit: i has no head); no path i ->* j, so no cycle.
  LEFT-ARC  : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  arc j -> i  if not i ->* j
  # RIGHT-ARC: i -> j (implicit: j has no head); no path j ->* i.
  RIGHT-ARC : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  arc i -> j  if not j ->* i
