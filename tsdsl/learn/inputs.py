"""What :meth:`~tsdsl.learn.parser.Parser.parse_sentences` takes: a list whose items are each
a CoNLL-U :class:`~tsdsl.treebank.conllu.Sentence`, a string (one sentence) or a list of
words, turned into Sentences, with messages that name a bad item by its index."""

from __future__ import annotations

from typing import Sequence

from ..errors import UsageError
from ..treebank.conllu import Sentence, Word
from ..treebank.tokenize import text_sentence

ACCEPTED_SENTENCES = ("a Sentence (read_conllu), a string (one sentence, tokenised as parse tokenises it) or a "
                      "list of words (strings)")
"""What :meth:`Parser.parse_sentences` takes as one item of its list, for its messages."""


def words_sentence(words: Sequence[str], *, file: str = "<string>", line: int = 1) -> Sentence:
    """A list of words as a CoNLL-U sentence without tags, heads or comments (every column but
    ID and FORM is ``_``): what :meth:`ParsedSentence.to_conllu` writes for a list of words,
    its spacing not known."""
    lines, items = [], []
    for k, form in enumerate(words, start=1):
        fields = (str(k), form, "_", "_", "_", "_", "_", "_", "_", "_")
        lines.append("\t".join(fields) + "\n")
        items.append(Word(k, fields, line))
    lines.append("\n")
    return Sentence(tuple(lines), tuple(items), tuple(range(len(items))), file, line)


def input_sentences(what: str, items) -> list[Sentence]:
    """The items of a ``parse_sentences`` call as CoNLL-U sentences: a :class:`Sentence` as it
    is; a string as ``tsdsl parse --text`` reads a line (:func:`~tsdsl.treebank.tokenize.text_sentence`:
    the words as :meth:`Parser.parse` tokenises the string, ``# text``, ``SpaceAfter=No``, no
    ``# sent_id``); a list or tuple of words as :func:`words_sentence` (checked as
    :meth:`Parser.parse` checks them).  Messages name an item by its index, ``sentences[K]``
    (from 0), and so does the ``file`` of a sentence made from a string or list, so that a later
    message about it (a model without a tagger refusing its empty UPOS) names it too.  Items
    of different kinds may be mixed.

    Raises:
        TypeError: ``items`` is one string or sentence rather than a list of them, or an item
            (or a word of a list) is of another type; the message names the item's index.
        UsageError: a string or list without a word, or a word that :meth:`Parser.parse`
            refuses (empty, holding a tab or a line break), naming the item's index (and the
            word's, ``sentences[K][J]``).
    """
    if isinstance(items, (str, bytes, bytearray, Sentence)):
        one = "one string" if isinstance(items, str) else \
            "bytes" if isinstance(items, (bytes, bytearray)) else "one Sentence"
        raise TypeError(f"{what}: give a list of sentences, not {one}: each item {ACCEPTED_SENTENCES} "
                        "(parse parses one sentence)")
    try:
        items = items if isinstance(items, list) else list(items)
    except TypeError:
        raise TypeError(f"{what}: give a list of sentences, not {type(items).__name__}: each item "
                        f"{ACCEPTED_SENTENCES}") from None
    if all(isinstance(s, Sentence) for s in items):  # what tsdsl parse and most callers give
        return items
    out = []
    for k, item in enumerate(items):
        name = f"sentences[{k}]"
        where = f"{what}: {name}"
        if isinstance(item, Sentence):
            out.append(item)
            continue
        if isinstance(item, str):
            s = text_sentence(item, file=f"<{name}>")
            if s is None:
                raise UsageError(f"{where} is a string without a word ({item!r}): each item is one sentence")
            out.append(s)
            continue
        if not isinstance(item, (list, tuple)):
            raise TypeError(f"{where} is {type(item).__name__}: each item {ACCEPTED_SENTENCES}")
        for j, w in enumerate(item):
            if not isinstance(w, str):
                raise TypeError(f"{what}: {name}[{j}] is {type(w).__name__} ({w!r}), not a string: each item "
                                f"{ACCEPTED_SENTENCES}")
            if not w:
                raise UsageError(f"{what}: {name}[{j}] is an empty string: every word must be a non-empty string")
            if "\t" in w or "\n" in w or "\r" in w:  # as parse refuses it (_refuse_breaks)
                raise UsageError(f"{what}: {name}[{j}] ({w!r}) contains a tab or a line break, which CoNLL-U "
                                 "cannot hold")
        if not item:
            raise UsageError(f"{where} is an empty list of words: each item is one sentence")
        out.append(words_sentence(item, file=f"<{name}>"))
    return out
