# Non-projective easy-first: easy-first with arcs between active tokens up to
# D positions apart.  Bohnet et al. 2016, section 5.2.  Try --set D=3.
system easy_first_nonproj "Non-projective easy-first"
  cite     "Bohnet et al. 2016, section 5.2"
  claim    "trees whose arcs fit distance D in O; D = 1 gives projective trees (Bohnet et al. 2016, section 5.2)"
  produces nonprojective covers projective   # every output is a tree; all projective trees derivable
  root     none
  capacity inf
  distance 2

  # ←*(i,j), i - j <= D: O[j] -> O[i], O[i] reduced.
  LEFT-ARC  = ←*
  # →*(i,j), i - j <= D: O[i] -> O[j], O[j] reduced.
  RIGHT-ARC = →*

  # Training oracle, as easy-first's: a gold arc stays reachable while both of its words
  # are in O.  Exact on the trees the system can build (`tsdsl check-oracle`); on a tree
  # with an arc that no order brings within D, that arc still counts as reachable.
  oracle   easy_first_reachable "Reachable arcs of easy-first"
  reachable h -> d if d in O and h in O
  loss = unreachable
