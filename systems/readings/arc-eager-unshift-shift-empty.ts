# Honnibal & Johnson 2015 with SHIFT also allowed when the stack is empty, even
# for a word shifted before (as spaCy's implementation does): after UNSHIFT of
# the only word on the stack, Table 1 read literally has no legal move.
system arc_eager_unshift_shift_empty "Non-monotonic arc-eager with Unshift, SHIFT on an empty stack"
  extends  "../arc-eager-unshift.ts"
  claim    "projective trees; at most 4n transitions"
  SHIFT    : (σ, b|β)   => (σ|b, β)    if not shifted[b] or empty(σ)   then shifted[b] := true

  # Training oracle, Honnibal & Johnson (2015), section 2.2: a transition is optimal when it
  # "renders no additional arcs unreachable using the monotonic arc-eager transitions", i.e.
  # Goldberg & Nivre's arc-eager rule; UNSHIFT and LEFT-ARC's overwrite then count as repairs
  # (negative cost) instead of as ways to postpone decisions.  The oracle above, which also
  # counts what the non-monotonic moves could still build, gives SHIFT cost 0 almost always,
  # so a learner that follows it learns nothing.  Arcs counted as lost here may be recovered
  # non-monotonically, hence an upper bound
  # (`tsdsl check-oracle` confirms it here; on the literal Table 1 the dead ends break it).
  oracle   honnibal_johnson_2015_training "Honnibal & Johnson 2015, section 2.2, optimality (1): monotonic arc-eager"
  reachable h -> d if h in σ and d in β or h in β and d in β or h in β and d in σ and not has_head(d)
  loss = unreachable bound upper
  # "in cases of ties, [use] as few non-monotonic transitions as possible": without this,
  # UNSHIFT of a word whose head is the next word costs 0 like LEFT-ARC, and SHIFT and
  # UNSHIFT of the same word cycle.  With an empty buffer UNSHIFT is the forced repair.
  penalty  UNSHIFT if not empty(β)
