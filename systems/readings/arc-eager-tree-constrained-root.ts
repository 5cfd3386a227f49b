# Tree-constrained arc-eager with a dummy root prefixed to the sentence (the
# CoNLL-X setting of Nivre & Fernández-González 2014, section 4): the stack never
# empties, the root is never unshifted, and the last word on the stack is the root.
system arc_eager_tree_constrained_root "Tree-constrained arc-eager, dummy root on the left"
  extends  "../arc-eager-tree-constrained.ts"
  claim    "sound and complete for projective trees; fewer than 4n transitions"
  root     left
  initial  ([root], [1..n])
  terminal ([r], []) if e and is_root(r)
  UNSHIFT  : (σ|s, [])  => (σ, [s])    if not has_head(s) and not is_root(s)
