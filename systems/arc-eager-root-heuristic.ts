# Arc-eager with the usual root heuristic (MaltParser): at the end of parsing,
# every word still without a head is attached to the artificial root.
# Nivre & Fernández-González 2014, section 2.
system arc_eager_root_heuristic "Arc-eager with the root heuristic"
  extends  "arc-eager.ts"
  cite     "Nivre 2003; heuristic as described by Nivre & Fernández-González 2014, section 2"
  claim    "with the root heuristic every output is a projective tree (MaltParser practice)"
  finally  attach headless to root

  # Goldberg & Nivre (2012) with the heuristic: a headless stack word can still
  # get the root as head at the end.
  oracle   goldberg_nivre_2012_heuristic "Goldberg & Nivre 2012 with the root heuristic"
  reachable h -> d if h in σ and d in β or h in β and d in β or h in β and d in σ and not has_head(d) or is_root(h) and d in σ and not has_head(d)
