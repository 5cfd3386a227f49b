"""Treebanks: dependency trees, CoNLL-U reading and writing, pseudo-projective lifting,
the tree repair of parser output, and evaluation.  Knows nothing about transition systems."""
