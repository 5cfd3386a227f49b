# Non-monotonic arc-eager, Honnibal, Goldberg & Johnson (2013), as summarised by
# Honnibal & Johnson (2015) section 2: LEFT-ARC may overwrite ("clobber") an
# existing head, and REDUCE of a headless word first inserts the missing arc
# from the word below it.  Root on the left; parsing ends with only the root.
system arc_eager_nm_2013 "Non-monotonic arc-eager (Honnibal et al. 2013)"
  cite     "Honnibal, Goldberg & Johnson 2013; summarised in Honnibal & Johnson 2015, section 2"
  claim    "projective trees; non-monotonic repairs of LEFT-ARC and REDUCE"
  produces projective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal ([r], []) if is_root(r)

  # SHIFT: push the next word.
  SHIFT     : (σ, b|β)   => (σ|b, β)
  # RIGHT-ARC: s -> b and push b.
  RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β)   arc s -> b
  # LEFT-ARC: b -> s and pop s, replacing any head s already has.
  LEFT-ARC  : (σ|s, b|β) => (σ, b|β)     arc b -> s  overwrite
  # REDUCE: pop s if it has a head; if it has none, first add the arc t -> s
  # from the word below (the paper labels it with the best RIGHT-ARC label noted
  # when s was shifted: a learner's matter, so the arc is unlabeled here).
  REDUCE    : (σ|s, β)   => (σ, β)       if has_head(s)
            | (σ|t|s, β) => (σ|t, β)     if not has_head(s)  arc t -> s  unlabeled

  # Dynamic oracle after Honnibal, Goldberg & Johnson (2013): a buffer word can
  # take any head on the stack or in the buffer; a stack word can take a head from
  # the buffer (LEFT-ARC, clobbering if need be) and, while headless, from the word
  # right below it (REDUCE inserts that arc).
  oracle   honnibal_2013 "Honnibal, Goldberg & Johnson 2013"
  reachable h -> d if d in β and (h in σ or h in β) or d in σ and h in β or d in σ and not has_head(d) and h in σ and pos(d) == pos(h) + 1
