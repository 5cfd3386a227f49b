# Arc-standard with SWAP, Nivre (2009), "Non-Projective Dependency Parsing in Expected
# Linear Time", Fig. 1: SWAP moves the second word of the stack back to the buffer, so
# that words can be reordered and any tree built with arcs between adjacent stack words.
# The spec declares no oracle: `tsdsl train` derives the training trees by search.
system arc_standard_swap "Arc-standard with SWAP (Nivre 2009)"
  cite     "Nivre 2009, ACL-IJCNLP, Fig. 1"
  claim    "sound and complete for non-projective trees; at most n^2 + n transitions (Nivre 2009)"
  produces nonprojective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal ([r], []) if is_root(r)

  SHIFT     : (σ, b|β)     => (σ|b, β)
  # LEFT-ARC and RIGHT-ARC join the two top words.  Implicit: the dependent is not the root
  # and has no head.
  LEFT-ARC  : (σ|i|j, β)   => (σ|j, β)     arc j -> i
  RIGHT-ARC : (σ|i|j, β)   => (σ|i, β)     arc i -> j
  # SWAP: 0 < i < j, i.e. never the root and never a word already swapped back.
  SWAP      : (σ|i|j, β)   => (σ|j, i|β)   if i < j and not is_root(i)
