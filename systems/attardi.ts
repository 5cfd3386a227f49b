# Attardi (2006) non-projective parser, in the variant of Cohen et al. (2011),
# as control parameters: the top N+1 stack tokens are active and arcs join the
# top token with any of the N below it.  Bohnet et al. 2016, section 4.6.
# Bohnet's table lists only the arc actions; with finite K a SHIFT is needed to
# bring in the words, so it is added here.  N = 1, 2, 3 (attardi-1/2/3.ts).
#
# Reading: Bohnet et al. fill O with the first K = N+1 tokens.  With N = 3 that
# loses projective trees (0 -> 3, 3 -> 2, 2 -> 1 at n = 3: every arc must involve
# O[1], so word 3 cannot wait while 2 collects 1; see readings/attardi-3-literal.ts
# and docs/verification.md).  Attardi's own stack starts with the root alone, which
# `start 1` restores.
system attardi "Attardi non-projective (control parameters)"
  cite     "Bohnet et al. 2016, section 4.6; Attardi 2006; Cohen et al. 2011"
  claim    "a non-projective superset of projective trees (Bohnet et al. 2016, section 4.6)"
  produces nonprojective covers projective
  root     left
  param    N = 2
  capacity N + 1
  distance N
  start    1             # O starts as [root], like Attardi's stack

  # ←*(i,1), P=right: O[1] -> O[i] for 2 <= i <= N+1; O[i] reduced.
  LEFT-ARC  = ←* {P: right}
  # →*(i,1), P=right: O[i] -> O[1]; the top O[1] reduced.
  RIGHT-ARC = →* {P: right}
  # SHIFT: push the next word.
  SHIFT     = +
