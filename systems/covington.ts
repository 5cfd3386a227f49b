# Covington's non-projective parser in Nivre's (2008) list-based form,
# monotonic version: Fernández-González & Gómez-Rodríguez (2017), section 2.1,
# Fig. 1.  Focus words: i, the end of λ1, and j, the front of the buffer.
# Words left without a head at the end are attached to an artificial root.
system covington "Covington non-projective (monotonic)"
  cite     "Covington 2001; Nivre 2008; Fernández-González & Gómez-Rodríguez 2017, Fig. 1"
  claim    "all non-projective trees (after root attachment); quadratic worst case"
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

  # Dynamic oracle, Gómez-Rodríguez & Fernández-González (2015), as Algorithm 1 of
  # Fernández-González & Gómez-Rodríguez (2017): a gold arc x -> y not yet built is
  # lost when j (first of β) is past both words, when j is the right word but i
  # (last of λ1) is past the left one, when y already has another head, or when x
  # and y are already connected; the loss adds the cycles that the reachable arcs
  # would close.
  oracle   gomez_fernandez_2015 "Gómez-Rodríguez & Fernández-González 2015 (2017, Algorithm 1)"
  unreachable x -> y if first(β) > max(x, y) or first(β) == max(x, y) and last(λ1) < min(x, y) or has_head(y) or connected(x, y)
  loss = unreachable + cycles
