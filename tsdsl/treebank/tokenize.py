"""Plain text to words, and text files to CoNLL-U sentences (``tsdsl parse --text``).

The rule (documented in docs/learning.md, "Plain text"), the same for every language:

1. The text is split at whitespace.
2. Each piece is cut, left to right, into
   - abbreviations: two or more single letters each followed by a period (``e.g.``, ``U.S.``);
   - words: runs of letters, marks, digits and connector punctuation (Unicode categories L*,
     M*, N*, Pc), which may hold a hyphen or an apostrophe (``-``, ``'``, ``’``) between two
     such characters (``well-known``, ``o'clock``), or ``.``, ``,``, ``:``, ``/`` between two
     digits (``3.5``, ``1,000``, ``10:30``);
   - anything else one character at a time, a run of the same character kept together
     (``...``, ``--``, ``?!`` is two tokens).
3. The English clitics ``n't 's 're 've 'll 'd 'm`` (with ``'`` or ``’``) are split off the
   end of a word, as the UD English treebanks do: ``don't`` -> ``do n't``, ``can't`` ->
   ``ca n't``, ``John's`` -> ``John 's``.  Nothing else is split: contractions of other
   languages (Greek ``στο`` = ``σε`` + ``το``, French ``du``, ``l'homme``) stay one word,
   and a period after a word is its own token (``Mr.`` -> ``Mr`` ``.``).

A text file's lines end at any line break :meth:`str.splitlines` knows (a lone CR, as old Mac
files have, U+2028 and U+2029 among them; CRLF is one break).  Control characters, zero-width
spaces (U+200B), word joiners (U+2060) and a stray BOM count as spaces.  Words keep their
characters exactly otherwise (no normalisation), so they can be found in ``# text``; a word
followed directly by the next one gets ``SpaceAfter=No`` in MISC.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Optional

from .conllu import Sentence, Word

_ABBREV = re.compile(r"(?:[^\W\d_]\.){2,}")
_CLITIC = re.compile(r"(?i)(.+?)(n['’]t|['’](?:s|re|ve|ll|d|m))\Z")
_INNER = "-'’"
INVISIBLE = re.compile("[\x00-\x08\x0e-\x1f\x7f\u200b\u2060\ufeff]")
"""Control characters, the zero-width space, the word joiner and a stray BOM: read as spaces
(a NUL or a lone U+200B became a word of its own, tagged and attached)."""
_NUMERIC_INNER = ".,:/"


def _wordish(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in "LMN" or cat == "Pc"


def _split_piece(piece: str) -> list[str]:
    out: list[str] = []
    i, n = 0, len(piece)
    while i < n:
        m = _ABBREV.match(piece, i)
        if m and (m.end() == n or not _wordish(piece[m.end()])):
            out.append(m.group())
            i = m.end()
            continue
        ch = piece[i]
        j = i + 1
        if _wordish(ch):
            while j < n:
                c = piece[j]
                if _wordish(c):
                    j += 1
                elif j + 1 < n and _wordish(piece[j + 1]) and (
                        c in _INNER or (c in _NUMERIC_INNER and piece[j - 1].isdigit() and piece[j + 1].isdigit())):
                    j += 2
                else:
                    break
            word = piece[i:j]
            m = _CLITIC.match(word)
            out.extend(m.groups() if m else (word,))
        else:
            while j < n and piece[j] == ch:
                j += 1
            out.append(piece[i:j])
        i = j
    return out


def tokenize(text: str) -> list[tuple[str, bool]]:
    """The words of ``text`` by the module's rule, each with whether a space follows it."""
    text = INVISIBLE.sub(" ", text)
    out: list[tuple[str, bool]] = []
    for m in re.finditer(r"\S+", text):
        parts = _split_piece(m.group())
        out.extend((p, False) for p in parts)
        if out:
            out[-1] = (out[-1][0], True)
    if out:
        out[-1] = (out[-1][0], True)
    return out


def words_of(text: str) -> list[str]:
    """Just the words of ``text`` (see :func:`tokenize`)."""
    return [w for w, _ in tokenize(text)]


def comment_text(text: str) -> str:
    """A sentence of plain text as its ``# text`` comment holds it: invisible characters as
    spaces and every run of whitespace (a line break too) one space."""
    return " ".join(INVISIBLE.sub(" ", text).split())


def spacing(text: str) -> list[bool]:
    """Per word of ``text``, whether a space follows it (MISC ``SpaceAfter=No`` where not)."""
    return [space for _, space in tokenize(text)]


def text_sentence(text: str, *, sent_id: Optional[str] = None, file: str = "<string>",
                  line: int = 1) -> Optional[Sentence]:
    """One sentence of plain text as a CoNLL-U sentence without tags or heads (every column
    but ID, FORM and MISC is ``_``), with ``# sent_id`` and ``# text``; None if it has no word."""
    text = comment_text(text)
    words = tokenize(text)
    if not words:
        return None
    lines = ([f"# sent_id = {sent_id}\n"] if sent_id is not None else []) + [f"# text = {text}\n"]
    first = len(lines)
    items = []
    for k, (form, space) in enumerate(words, start=1):
        fields = (str(k), form, "_", "_", "_", "_", "_", "_", "_", "_" if space else "SpaceAfter=No")
        lines.append("\t".join(fields) + "\n")
        items.append(Word(k, fields, line))
    lines.append("\n")
    return Sentence(tuple(lines), tuple(items), tuple(range(first, first + len(items))), file, line)


LONG_LINE = 500
"""Words on one line of a ``--text`` file above which :func:`read_text` warns: the line is one
sentence (there is no sentence splitter), most likely a paragraph or a whole text."""

_CONLLU_ID = re.compile(r"[0-9]+(?:-[0-9]+|\.[0-9]+)?\Z")
_CONLLU_COMMENT = re.compile(r"#\s*(?:sent_id|text)\s*=")


def text_lines(text: str) -> list[str]:
    """The lines of plain text: split at every line break :meth:`str.splitlines` knows (``\\n``,
    ``\\r\\n`` as one, a lone ``\\r`` as old Mac files have, ``\\v``, ``\\f``, U+001C..U+001E,
    U+0085, U+2028, U+2029), so that a file whose lines end otherwise than in ``\\n`` is not
    read as one long sentence."""
    return text.splitlines()


def looks_like_conllu(line: str) -> bool:
    """Whether a line of a ``--text`` file is a CoNLL-U line: a word line (ten tab-separated
    columns, the first an ID such as ``3``, ``3-4`` or ``5.1``) or a ``# sent_id =`` or
    ``# text =`` comment."""
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) == 10 and _CONLLU_ID.match(fields[0]):
        return True
    return bool(_CONLLU_COMMENT.match(line))


def read_text(path: str, *, warn: Optional[Callable[[str], None]] = None) -> list[Sentence]:
    """A plain-text file ("-": standard input), one sentence per line (see :func:`text_lines`;
    blank lines skipped), as CoNLL-U sentences numbered 1, 2, ... in ``# sent_id``.

    Two likely mistakes are read as asked but said through ``warn`` (default: a
    ``UserWarning``), once each: a file that looks like CoNLL-U (``tsdsl parse --text
    file.conllu``: every line of it would be parsed as a sentence of text), and a line of more
    than :data:`LONG_LINE` words (a paragraph: no sentence splitter cuts it).

    Raises:
        UsageError: the file is not UTF-8 (naming the line).
        OSError: it cannot be read.
    """
    import sys

    from ..errors import UsageError

    if warn is None:
        import warnings

        warn = lambda message: warnings.warn(message, UserWarning, stacklevel=3)  # noqa: E731
    if path == "-":
        data, name = sys.stdin.buffer.read(), "<stdin>"
    else:
        with open(path, "rb") as fh:
            data, name = fh.read(), path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = len(text_lines(data[:exc.start].decode("utf-8") + "x"))  # the line the bad byte is on
        raise UsageError(f"{name}:{line}: invalid UTF-8 (byte 0x{data[exc.start]:02x})") from None
    out: list[Sentence] = []
    conllu_line = None
    long_lines: list[tuple[int, int]] = []  # (line, words) of each line over LONG_LINE words
    for lineno, raw in enumerate(text_lines(text.lstrip("\ufeff")), start=1):
        if conllu_line is None and looks_like_conllu(raw):
            conllu_line = lineno
        s = text_sentence(raw, sent_id=str(len(out) + 1), file=name, line=lineno)
        if s is not None:
            out.append(s)
            if s.n > LONG_LINE:
                long_lines.append((lineno, s.n))
    if conllu_line is not None:
        warn(f"{name}:{conllu_line}: the file looks like CoNLL-U, but --text reads it as plain text (every "
             "line a sentence, tabs and all); leave out --text to parse it as CoNLL-U")
    if long_lines:
        (first, words), more = long_lines[0], len(long_lines) - 1
        warn(f"{name}:{first}: {words} words on one line" + (f" (and {more} more such line{'s' * (more > 1)})"
                                                             if more else "") +
             f", parsed as one sentence: --text reads one sentence per line and has no sentence splitter; "
             "put each sentence on a line of its own")
    return out
