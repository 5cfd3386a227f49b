# Tree-constrained arc-eager without a root where SHIFT is also allowed on an
# empty stack after the end of the input (the stack can empty when LEFT-ARC pops
# the last word after an UNSHIFT).
system arc_eager_tree_constrained_shift_empty "Tree-constrained arc-eager, SHIFT on an empty stack"
  extends  "../arc-eager-tree-constrained.ts"
  claim    "sound and complete for projective trees; fewer than 4n transitions"
  SHIFT    : (σ, b|β)   => (σ|b, β)    if not e or empty(σ)   then e := e or empty(β)
