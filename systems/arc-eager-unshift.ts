# Non-monotonic arc-eager with Unshift, Honnibal & Johnson (2015), Table 1.
# No artificial root; a bit per word (S) stops Shift/Unshift cycles.  At most 4n
# transitions.  REDUCE and UNSHIFT are scored as one class (section 3.1).
system arc_eager_unshift "Non-monotonic arc-eager with Unshift (Honnibal & Johnson 2015)"
  cite     "Honnibal & Johnson 2015, EMNLP, Table 1"
  produces projective
  root     none
  lists    σ, β
  flag     shifted[token]       # S(b): b was shifted once already
  initial  ([], [1..n])
  terminal ([w], [])            # empty buffer, one word on the stack

  # SHIFT: only a word never shifted before; marks it.
  SHIFT     : (σ, b|β)   => (σ|b, β)    if not shifted[b]   then shifted[b] := true
  # RIGHT-ARC: s -> b and push b.
  RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β)  arc s -> b
  # REDUCE: pop s, which has a head.
  REDUCE    : (σ|s, β)   => (σ, β)      if has_head(s)       class POP
  # UNSHIFT: put a headless s back at the front of the buffer, at any time.
  UNSHIFT   : (σ|s, β)   => (σ, s|β)    if not has_head(s)   class POP
  # LEFT-ARC: b -> s and pop s, overwriting any head of s.
  LEFT-ARC  : (σ|s, b|β) => (σ, b|β)    arc b -> s  overwrite
