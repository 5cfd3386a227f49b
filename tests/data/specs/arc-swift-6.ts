# Arc-swift (Qi & Manning 2017) with k <= 6, written as rewrite rules: LEFT-ARC_k makes the
# buffer front b the head of the k-th stack item s_k and pops s_1..s_k; RIGHT-ARC_k makes s_k
# the head of b, pops s_1..s_(k-1) and pushes b.  The items popped over s_k must have heads.
# Words left without a head at the end go to the root.  An arc whose head lies under 6 headed
# stack items is out of reach: the system misses such trees from n = 8 on (word 1 the head of
# word 8 over the chain 1 -> 2 -> ... -> 7).
system arc_swift_6 "arc-swift, k <= 6"
  produces projective
  root     left
  lists    σ, β
  initial  ([root], [1..n])
  terminal (σ, [])
  finally  attach headless to root
  SHIFT        : (σ, b|β) => (σ|b, β)
  LEFT-ARC_1   : (σ|s1, b|β) => (σ, b|β)  arc b -> s1  if not is_root(s1)
  LEFT-ARC_2   : (σ|s2|s1, b|β) => (σ, b|β)  arc b -> s2  if not is_root(s2) and has_head(s1)
  LEFT-ARC_3   : (σ|s3|s2|s1, b|β) => (σ, b|β)  arc b -> s3  if not is_root(s3) and has_head(s1) and has_head(s2)
  LEFT-ARC_4   : (σ|s4|s3|s2|s1, b|β) => (σ, b|β)  arc b -> s4  if not is_root(s4) and has_head(s1) and has_head(s2) and has_head(s3)
  LEFT-ARC_5   : (σ|s5|s4|s3|s2|s1, b|β) => (σ, b|β)  arc b -> s5  if not is_root(s5) and has_head(s1) and has_head(s2) and has_head(s3) and has_head(s4)
  LEFT-ARC_6   : (σ|s6|s5|s4|s3|s2|s1, b|β) => (σ, b|β)  arc b -> s6  if not is_root(s6) and has_head(s1) and has_head(s2) and has_head(s3) and has_head(s4) and has_head(s5)
  RIGHT-ARC_1  : (σ|s1, b|β) => (σ|s1|b, β)  arc s1 -> b
  RIGHT-ARC_2  : (σ|s2|s1, b|β) => (σ|s2|b, β)  arc s2 -> b  if has_head(s1)
  RIGHT-ARC_3  : (σ|s3|s2|s1, b|β) => (σ|s3|b, β)  arc s3 -> b  if has_head(s1) and has_head(s2)
  RIGHT-ARC_4  : (σ|s4|s3|s2|s1, b|β) => (σ|s4|b, β)  arc s4 -> b  if has_head(s1) and has_head(s2) and has_head(s3)
  RIGHT-ARC_5  : (σ|s5|s4|s3|s2|s1, b|β) => (σ|s5|b, β)  arc s5 -> b  if has_head(s1) and has_head(s2) and has_head(s3) and has_head(s4)
  RIGHT-ARC_6  : (σ|s6|s5|s4|s3|s2|s1, b|β) => (σ|s6|b, β)  arc s6 -> b  if has_head(s1) and has_head(s2) and has_head(s3) and has_head(s4) and has_head(s5)
