# Arc-standard in its stack/buffer form, as in Jurafsky & Martin, SLP3 18.2
# (Fig. 18.7): arcs between the top two words of the stack.
system arc_standard_slp "Arc-standard (SLP3 Fig. 18.7)"
  cite     "Jurafsky & Martin, Speech and Language Processing (3rd ed.), 18.2, Fig. 18.7"
  claim    "sound and complete for projective trees (Nivre 2008)"
  produces projective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal ([r], []) if is_root(r)

  # SHIFT: push the next word.
  SHIFT     : (σ, b|β)     => (σ|b, β)
  # LEFT-ARC: s -> t between the top s and the second t; t leaves the stack
  # (implicit: t is not the root).
  LEFT-ARC  : (σ|t|s, β)   => (σ|s, β)   arc s -> t
  # RIGHT-ARC: t -> s; s leaves the stack.
  RIGHT-ARC : (σ|t|s, β)   => (σ|t, β)   arc t -> s
