"""The language front end: spec text to a checked IR system.

The path a spec takes, one module a step:

- :mod:`.parse` (the only user of Lark) turns text into the syntax tree of :mod:`.syntax`,
  skipping each statement with a syntax error; :mod:`.recover` says which lines that is and
  whether the rest can be checked without it;
- :mod:`.chain` loads the `extends` chain and merges its statements;
- :mod:`.lower` lowers the merged spec through the shared :mod:`.context`: guards and terms
  (:mod:`.guards`), patterns (:mod:`.patterns`), rewrite rules (:mod:`.rules`) or
  control-parameter transitions (:mod:`.control`), oracle blocks (:mod:`.oracles`), with
  the static "can never apply" check of :mod:`.static`;
- every error has a code from the catalogue in :mod:`.codes`.

:func:`load_system`, :func:`load_system_text` and :func:`check_spec` (in :mod:`.load`) are
the entry points.
"""

from .load import check_spec, load_system, load_system_text, packaged_systems
from .parse import parse_file, parse_spec

__all__ = ["check_spec", "load_system", "load_system_text", "packaged_systems", "parse_file", "parse_spec"]
