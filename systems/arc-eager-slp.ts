# Arc-eager as traced in Jurafsky & Martin, SLP3 Fig. 18.9: parsing goes on
# after the buffer empties, reducing until only the root is left on the stack.
system arc_eager_slp "Arc-eager (SLP3 Fig. 18.9)"
  extends  "arc-eager.ts"
  cite     "Jurafsky & Martin, Speech and Language Processing (3rd ed.), 18.2, Fig. 18.9"
  claim    "the SLP3 trace reduces to [root] at the end"
  # done when the buffer is empty and the stack holds only the root
  terminal ([r], []) if is_root(r)

  # Arc-eager's decomposed loss (inherited oracle) does not hold here: with this
  # terminal a headless word left on the stack is a dead end, not a lost arc.
  drop     goldberg_nivre_2012
