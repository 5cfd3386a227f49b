# Arc-hybrid (Kuhlmann, Gómez-Rodríguez & Satta 2011) as control parameters:
# three active tokens, O = [.. s1, s0, b0], the root on the right.
# Bohnet et al. 2016, section 4.4.
#
# Reading: the paper fills O with the first K tokens and measures the periphery
# on ACTIVE(O) = O[min(|O|,K)..1].  Read literally that makes K=3 arc-hybrid
# incomplete (with O = [1, 2, root], "2 -> 1" is unreachable) and lets RIGHT-ARC
# fire as s0 -> b0 when |O| = 2.  The reading below, which gives Kuhlmann's
# system exactly, starts O with one token (b0) and places the left periphery at
# O[K] itself.
system arc_hybrid "Arc-hybrid (control parameters)"
  cite      "Bohnet et al. 2016, section 4.4; Kuhlmann et al. 2011"
  claim     "sound and complete for projective trees (Kuhlmann et al. 2011)"
  produces  projective
  root      right
  capacity  3
  distance  1
  start     1            # O starts as [b0]: the stack is empty
  periphery capacity     # the left periphery is O[K] (needs |O| >= K)

  # LEFT-ARC: b0 -> s0 (one end at the right periphery O[1]); s0 is reduced.
  LEFT-ARC  = ← {P: right}
  # RIGHT-ARC: s1 -> s0 (one end at the left periphery O[3]); s0 is reduced.
  RIGHT-ARC = → {P: left}
  # SHIFT: the next word becomes b0; the old b0 becomes s0.
  SHIFT     = +

  # Dynamic oracle, Goldberg & Nivre (2013): arc-hybrid is arc-decomposable.  With
  # O = [.. s1, s0, b0]: a word at b0 or in U can still take any present head; a
  # stack word only b0, a word of U, or the word right below it on the stack.
  oracle   goldberg_nivre_2013 "Goldberg & Nivre 2013, arc-hybrid"
  reachable h -> d if (d in O or d in U) and (h in O or h in U) and (d in U or d == last(O) or h in U or h == last(O) or pos(d) == pos(h) + 1)
