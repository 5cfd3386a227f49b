# Arc-eager as control parameters: O = [.. s0, b0], the root on the right.
# Bohnet et al. 2016, section 4.2 (Nivre 2003; Kuhlmann et al. 2011 notation).
system arc_eager_cp "Arc-eager (control parameters, root right)"
  cite     "Bohnet et al. 2016, section 4.2; Nivre 2003"
  claim    "projective trees (Bohnet et al. 2016, section 4.2)"
  produces projective
  root     right         # so that REDUCE can work at the left periphery
  capacity 2
  distance 1

  # LEFT-ARC: b0 -> s0 and s0 is reduced (defaults: B=true, S=false, P=na).
  LEFT-ARC  = ←
  # RIGHT-ARC: s0 -> b0, b0 stays (B=false) and the next word is shifted (S=true).
  RIGHT-ARC = → {B: false, S: true}
  # REDUCE: remove the left active token (s0); only if it has a head.
  REDUCE    = − {P: left}
  # SHIFT: next word into O.
  SHIFT     = +
