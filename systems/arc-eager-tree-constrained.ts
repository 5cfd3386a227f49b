# Tree-constrained arc-eager, Nivre & Fernández-González (2014), Fig. 3:
# a flag e records that the end of the input has been seen; after that SHIFT is
# forbidden and UNSHIFT moves a headless top word back to the (empty) buffer, so
# every terminal configuration holds a projective tree.  No artificial root: the
# last word on the stack is the root.
system arc_eager_tree_constrained "Tree-constrained arc-eager"
  cite     "Nivre & Fernández-González 2014, Computational Linguistics 40(2), Fig. 3"
  claim    "sound and complete for projective trees; fewer than 4n transitions"
  produces projective
  root     none
  lists    σ, β
  flag     e = false        # the buffer has been empty at some point
  initial  ([], [1..n])
  terminal ([w], []) if e    # one word on the stack, empty buffer, e = true

  # SHIFT: only before the end of the input; notes when the buffer runs out.
  SHIFT     : (σ, b|β)   => (σ|b, β)    if not e            then e := e or empty(β)
  # RIGHT-ARC: s -> b and push b; notes when the buffer runs out.
  RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β)  arc s -> b          then e := e or empty(β)
  # LEFT-ARC: b -> s and pop s (implicit: s has no head).
  LEFT-ARC  : (σ|s, b|β) => (σ, b|β)    arc b -> s
  # REDUCE: pop s, which has its head.
  REDUCE    : (σ|s, β)   => (σ, β)      if has_head(s)
  # UNSHIFT: move a headless top word back to the empty buffer.
  UNSHIFT   : (σ|s, [])  => (σ, [s])    if not has_head(s)

  # Approximate dynamic oracle (a lower bound; UNSHIFT makes the system not
  # arc-decomposable): arc-eager's reachable arcs (Goldberg & Nivre 2012), plus what
  # UNSHIFT adds once the input is exhausted: a headless stack word can still take
  # a head from below it on the stack, or from a headless word above it.
  oracle   tree_constrained "Goldberg & Nivre 2012 extended for Unshift"
  reachable h -> d if d in β and (h in σ or h in β) or d in σ and not has_head(d) and (h in β or h in σ and (h < d or not has_head(h)))
  loss = unreachable bound lower
