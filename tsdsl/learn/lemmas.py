"""Lemmas as edit-script classes (Chrupała 2006; UDPipe's lemmatiser works the same way).

A script says how to turn a form into its lemma: optionally lowercase the form, then replace
a suffix by another.  ``("L", "ies", "y")`` turns ``Studies`` into ``study``.  Of the
prefix-keeping scripts the one keeping the longest common prefix is chosen, so
``running -> run`` is ``("", "ning", "")``.  A script applies to a form only if the form (in
the script's case) ends with the removed suffix; the tagger scores, for each word, only the
scripts seen in training with its UPOS that apply to it (:func:`candidate_scripts`).
A script is stored as one string, the JSON list ``[case, removed, added]``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Iterable, Optional


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


@lru_cache(maxsize=1 << 18)  # a treebank repeats its (form, lemma) pairs
def lemma_script(form: str, lemma: str) -> str:
    """The script turning ``form`` into ``lemma`` (see the module docstring)."""
    best: Optional[tuple[int, str]] = None
    for case, base in (("", form), ("L", form.lower())):
        p = _common_prefix(base, lemma)
        if best is None or p > best[0]:
            best = (p, _join(case, base[p:], lemma[p:]))
    return best[1]


def apply_script(form: str, script: str) -> Optional[str]:
    """The lemma a script gives for ``form``, or None where it does not apply."""
    case, removed, added = script_parts(script)
    base = form.lower() if case else form
    if not base.endswith(removed):
        return None
    return base[:len(base) - len(removed)] + added


class ScriptIndex:
    """The scripts seen with each UPOS, indexed by the suffix they remove."""

    def __init__(self, classes: list[str], pairs: Iterable[tuple[str, int]]):
        """``classes``: the scripts, by class id; ``pairs``: (UPOS, class id) seen in training."""
        self.by_upos: dict[str, dict[tuple[str, str], list[int]]] = {}
        for upos, c in sorted(set(pairs)):
            case, removed, _ = script_parts(classes[c])
            self.by_upos.setdefault(upos, {}).setdefault((case, removed), []).append(c)
        self.any: dict[tuple[str, str], list[int]] = {}
        for table in self.by_upos.values():
            for key, ids in table.items():
                self.any.setdefault(key, []).extend(ids)

    def candidates(self, form: str, upos: str) -> tuple[int, ...]:
        """The scripts of ``upos`` (of any UPOS if ``upos`` was never seen) applying to ``form``."""
        table = self.by_upos.get(upos, self.any)
        out: set[int] = set()
        for case, base in (("", form), ("L", form.lower())):
            for k in range(len(base) + 1):
                ids = table.get((case, base[k:]))
                if ids:
                    out.update(ids)
        return tuple(sorted(out))


def identity_script() -> str:
    """The script that keeps the form as it is (the fallback where no script applies)."""
    return _join("", "", "")


def _join(case: str, removed: str, added: str) -> str:
    return json.dumps([case, removed, added], ensure_ascii=False)


def script_parts(script: str) -> tuple[str, str, str]:
    """(case, removed, added) of a script."""
    case, removed, added = json.loads(script)
    return case, removed, added
