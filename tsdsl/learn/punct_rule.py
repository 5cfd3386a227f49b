"""Words made of punctuation only are tagged PUNCT when the training data always does so.

The tagger predicts a word's UPOS from its form and context.  A run of punctuation it never
saw (``---``, ``!!!``, ``;;;``, an em dash in English text) has features of no known word,
and a new user's raw text got such tokens as NOUN or ADJ, made roots, with lemmas like
``;;;ς``.  UD treebanks tag such words PUNCT (lemma: the form) with few exceptions, so the
tagger learns that as a rule from its training data: when at least :data:`MIN_WORDS` words
consist of punctuation characters only (Unicode categories P*) and at least :data:`MIN_SHARE`
of them are tagged PUNCT, predicted UPOS of such words is PUNCT, and, if their lemmas are
their forms as often, so are predicted lemmas.  Given values are never changed, and a
treebank that tags punctuation otherwise (PUNCT is not its tag, or SYM is common) learns no
rule.
"""

from __future__ import annotations

import unicodedata
from typing import Optional, Sequence

EMPTY = "_"  # a value not given (tsdsl.learn.tagger.EMPTY, which imports this module)
MIN_WORDS = 20
MIN_SHARE = 0.99
PUNCT = "PUNCT"


def punctuation_only(form: str) -> bool:
    """Whether every character of ``form`` is punctuation (Unicode category P*)."""
    return bool(form) and all(unicodedata.category(ch)[0] == "P" for ch in form)


def learn_rule(forms: Sequence[str], upos: Optional[Sequence[str]], lemmas: Optional[Sequence[str]]) -> Optional[dict]:
    """The rule the training words support (``{"upos": "PUNCT", "lemma_is_form": bool}``), or None."""
    if upos is None:
        return None
    picked = [k for k, f in enumerate(forms) if punctuation_only(f) and upos[k] != EMPTY]
    if len(picked) < MIN_WORDS or sum(upos[k] == PUNCT for k in picked) < MIN_SHARE * len(picked):
        return None
    same = lemmas is not None and sum(lemmas[k] == forms[k] for k in picked) >= MIN_SHARE * len(picked)
    return {"upos": PUNCT, "lemma_is_form": bool(same)}


def apply_rule(rule: Optional[dict], column: str, forms: Sequence[str], values: list[str],
               predicted: Sequence[bool]) -> list[str]:
    """``values`` (one sentence's column, ``predicted`` marking the tagger's) with the rule
    applied to the predicted values of punctuation-only words."""
    if not isinstance(rule, dict) or not isinstance(rule.get("upos"), str) or column not in ("upos", "lemma") \
            or (column == "lemma" and rule.get("lemma_is_form") is not True):
        return values  # no rule (or one a damaged tagger.json holds: ignored)
    out = list(values)
    for i, (f, new) in enumerate(zip(forms, predicted)):
        if new and punctuation_only(f):
            out[i] = rule["upos"] if column == "upos" else f
    return out
