# Non-monotonic Covington, Fernández-González & Gómez-Rodríguez (2017), Fig. 2:
# arc transitions are always allowed; the new arc replaces the dependent's head,
# and when it would close a cycle, the arc into the new arc's head (the one on
# the cycle) is removed.
system covington_nm "Non-monotonic Covington"
  extends  "covington.ts"
  cite     "Fernández-González & Gómez-Rodríguez 2017, ACL, Fig. 2"
  claim    "all non-projective trees; arc transitions always allowed"

  # LEFT-ARC: j -> i, replacing i's head; breaks the cycle through j.
  LEFT-ARC  : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  arc j -> i  overwrite break_cycle
  # RIGHT-ARC: i -> j, replacing j's head; breaks the cycle through i.
  RIGHT-ARC : (λ1|i, λ2, j|β) => (λ1, i|λ2, j|β)  arc i -> j  overwrite break_cycle

  # Approximate dynamic oracle, Fernández-González & Gómez-Rodríguez (2017),
  # Algorithm 2: only the two positional conditions make an arc unreachable; the
  # three loss expressions bracket the exact loss.
  oracle   fernandez_gomez_2017 "Fernández-González & Gómez-Rodríguez 2017, Algorithm 2"
  unreachable x -> y if first(β) > max(x, y) or first(β) == max(x, y) and last(λ1) < min(x, y)
  loss lower    = unreachable                        bound lower
  loss pc_upper = unreachable + problematic_cycles   bound upper
  loss upper    = unreachable + cycles               bound upper
