# Arc-eager with the usual root heuristic (MaltParser): at the end of parsing,
# every word still without a head is attached to the artificial root.
# Nivre & Fernández-González 2014, section 2.
system arc_eager_root_heuristic "Arc-eager with the root heuristic"
  extends  "arc-eager.ts"
  cite     "Nivre 2003; heuristic as described by Nivre & Fernández-González 2014, section 2"
  claim    "with the root heuristic every output is a projective tree (MaltParser practice)"
  finally  attach headless to root
