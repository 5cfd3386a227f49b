# Arc-eager, Nivre (2003), in its stack/buffer form with the root on the left.
# Jurafsky & Martin, SLP3 ch. 18.2 (Fig. 18.9); Nivre & Fernández-González 2014,
# Fig. 2.  Terminal as soon as the buffer is empty: words still headless on the
# stack are fragments (see arc-eager-root-heuristic.ts and
# arc-eager-tree-constrained.ts for the two repairs).
system arc_eager "Arc-eager (Nivre 2003)"
  cite     "Nivre 2003; Nivre & Fernández-González 2014, Fig. 2; Jurafsky & Martin SLP3 18.2"
  claim    "complete but not sound for projective trees: headless words are left on the stack (Nivre & Fernández-González 2014)"
  produces projective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal (σ, [])

  # SHIFT: push the next word.
  SHIFT     : (σ, b|β)   => (σ|b, β)
  # LEFT-ARC: b -> s and pop s.  Implicit: s is not the root and has no head.
  LEFT-ARC  : (σ|s, b|β) => (σ, b|β)     arc b -> s
  # RIGHT-ARC: s -> b and push b.
  RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β)   arc s -> b
  # REDUCE: pop s, which must already have its head.
  REDUCE    : (σ|s, β)   => (σ, β)       if has_head(s)

  # Dynamic oracle, Goldberg & Nivre (2012): arc-eager is arc-decomposable, so the
  # loss is the number of gold arcs that can no longer be built.  A missing gold
  # arc is still reachable from the stack to the buffer, between buffer words, or
  # from the buffer to a stack word that has no head yet.
  oracle   goldberg_nivre_2012 "Goldberg & Nivre 2012, arc-eager"
  reachable h -> d if h in σ and d in β or h in β and d in β or h in β and d in σ and not has_head(d)
