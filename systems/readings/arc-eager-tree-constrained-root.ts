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

  # Training oracle, as in Nivre & Fernández-González's experiments (section 3): arc-eager's
  # classifier and oracle, UNSHIFT used only where it is forced.  Goldberg & Nivre's arc-eager
  # rule counts what monotonic arc-eager could still build; UNSHIFT may recover more, hence an
  # upper bound.  (The inherited lower bound gives SHIFT cost 0 almost always: following it, a
  # learner shifts everything and leaves the tree to the end-of-input repairs.)
  oracle   arc_eager_training "Goldberg & Nivre 2012 arc-eager rule (the oracle N&FG 2014 trained with)"
  reachable h -> d if h in σ and d in β or h in β and d in β or h in β and d in σ and not has_head(d)
  loss = unreachable bound upper
