"""Faithful CoNLL-U reading and writing.

A :class:`Sentence` keeps every line of its block exactly as read (line
terminators included), so ``write_conllu(read_conllu(p))`` reproduces the file
byte for byte (a BOM and CRLF line ends included): comments, multiword-token
lines (``3-4``) and empty nodes (``5.1``) pass through untouched.  The one change:
a sentence not closed by a blank line (a file without its final blank line) gets
one.  Word lines are also parsed into their ten fields; :meth:`Sentence.with_heads`
returns a copy in which only the HEAD and DEPREL columns of word lines are rewritten.

Heads use CoNLL-U numbering (words 1..n, 0 = the root, ``None`` = ``_``), the
numbering of :meth:`tsdsl.interp.Interpreter.output`.

Malformed input raises :class:`ConlluError` whose message is
``file:line: message`` (the first problem of the file).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

from ..errors import TsdslError, UsageError
from ..gcpause import cyclic_gc_paused
from ..files import atomic_output
from .trees import Tree, cycle_word

__all__ = [
    "ConlluError", "Sentence", "Word", "parse_conllu", "read_conllu", "sentence_text", "writable_label",
    "write_conllu",
]

FIELDS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
HEAD_COL, DEPREL_COL = 6, 7

_WORD_ID = re.compile(r"[0-9]+\Z")
_RANGE_ID = re.compile(r"[0-9]+-[0-9]+\Z")
_EMPTY_ID = re.compile(r"[0-9]+\.[0-9]+\Z")
_INT = re.compile(r"-?[0-9]+\Z")
_BLANK = re.compile(r"[^\S\t]")
"""Whitespace other than the tab that separates the columns."""
_WHITESPACE = re.compile(r"\s")
SPACED_COLUMNS = frozenset({1, 2, 9})
"""The columns (0-based: FORM, LEMMA, MISC) in which UD v2 allows spaces; no other column may
hold whitespace (the UD validator refuses it: a space in DEPREL or FEATS is a broken value)."""


class ConlluError(TsdslError):
    """A CoNLL-U file is malformed; ``str()`` is ``file:line: message``."""

    def __init__(self, file: str, line: int, message: str):
        self.file = file
        self.line = line
        self.message = message
        super().__init__(f"{file}:{line}: {message}")


@dataclass(frozen=True)
class Word:
    """One word line (integer ID): its ten columns and where it was read."""

    id: int
    fields: tuple[str, ...]
    line: int = 0  # 1-based line in the source file (0 when unknown)

    @property
    def form(self) -> str:
        return self.fields[1]

    @property
    def lemma(self) -> str:
        return self.fields[2]

    @property
    def upos(self) -> str:
        return self.fields[3]

    @property
    def xpos(self) -> str:
        return self.fields[4]

    @property
    def feats(self) -> str:
        return self.fields[5]

    @property
    def head(self) -> Optional[int]:
        """The HEAD column as an integer, or None for ``_``."""
        h = self.fields[HEAD_COL]
        return None if h == "_" else int(h)

    @property
    def deprel(self) -> str:
        return self.fields[DEPREL_COL]

    @property
    def deps(self) -> str:
        return self.fields[8]

    @property
    def misc(self) -> str:
        return self.fields[9]


@dataclass(frozen=True)
class Sentence:
    """One sentence block, kept line by line.

    Attributes:
        lines: every raw line of the block with its terminator (comments,
            multiword and empty-node lines, word lines, the blank line(s) that
            end it; blank lines before the first sentence of a file belong to it).
        words: the word lines (integer IDs) in order.
        word_index: for each word, the index of its line in ``lines``.
        file: the file it was read from.
        line: the 1-based line where the block starts.
    """

    lines: tuple[str, ...]
    words: tuple[Word, ...]
    word_index: tuple[int, ...]
    file: str = "<string>"
    line: int = 1

    # ---- views -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.words)

    @property
    def n(self) -> int:
        return len(self.words)

    @property
    def heads(self) -> tuple[Optional[int], ...]:
        """HEAD of each word (CoNLL-U numbering; None for ``_``)."""
        return tuple(w.head for w in self.words)

    @property
    def deprels(self) -> tuple[str, ...]:
        return tuple(w.deprel for w in self.words)

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(w.form for w in self.words)

    @property
    def lemmas(self) -> tuple[str, ...]:
        return tuple(w.lemma for w in self.words)

    @property
    def upos(self) -> tuple[str, ...]:
        return tuple(w.upos for w in self.words)

    @property
    def xpos(self) -> tuple[str, ...]:
        return tuple(w.xpos for w in self.words)

    @property
    def feats(self) -> tuple[str, ...]:
        return tuple(w.feats for w in self.words)

    @property
    def comments(self) -> tuple[str, ...]:
        """Comment lines without their terminator (``"# sent_id = 1"``)."""
        return tuple(_content(l) for l in self.lines if l.startswith("#"))

    def meta(self, key: str) -> Optional[str]:
        """The value of a ``# key = value`` comment, or None."""
        for c in self.comments:
            k, sep, v = c[1:].partition("=")
            if sep and k.strip() == key:
                return v.strip()
        return None

    @property
    def sent_id(self) -> Optional[str]:
        return self.meta("sent_id")

    @property
    def text(self) -> Optional[str]:
        return self.meta("text")

    def to_text(self) -> str:
        """The block exactly as read (or as rewritten by :meth:`with_heads`)."""
        return "".join(self.lines)

    # ---- rewriting -------------------------------------------------------------------
    def with_heads(self, heads: Sequence[Optional[int]],
                   deprels: Optional[Sequence[Optional[str]]] = None) -> "Sentence":
        """A copy with new HEAD and DEPREL columns; nothing else changes.

        The copy's lines are written at once; its ``words`` (new :class:`Word` objects) are
        made on first access and then kept, so writing parser output costs no Word objects.

        Args:
            heads: one head per word in CoNLL-U numbering (0 = root, None = ``_``).
            deprels: one label per word (None, or a None item, writes ``_``:
                gold labels are never kept beside new heads).

        Raises:
            UsageError: wrong lengths, a head out of 0..n, or a label that
                would break the format (empty, or containing a tab or newline).
        """
        n = self.n
        if len(heads) != n:
            raise UsageError(f"with_heads: {len(heads)} heads for a sentence of {n} words")
        if deprels is None:
            deprels = [None] * n
        if len(deprels) != n:
            raise UsageError(f"with_heads: {len(deprels)} labels for a sentence of {n} words")
        try:  # the common case at C speed: plain ints in 0..n
            plain = n == 0 or (set(map(type, heads)) == {int} and min(heads) >= 0 and max(heads) <= n)
        except TypeError:  # None among them
            plain = False
        if plain:
            head_texts = list(map(str, heads))
        else:
            for w, h in zip(self.words, heads):
                if h is not None and (type(h) is not int or not 0 <= h <= n):
                    if isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= n:
                        raise UsageError(f"with_heads: head {h!r} of word {w.id} is not in 0..{n}")
            head_texts = ["_" if h is None else str(h) for h in heads]
        if n and set(map(type, deprels)) == {str}:
            label_texts = list(deprels)  # a copy: the words made later must not see the caller's changes
        else:
            label_texts = ["_" if lab is None else str(lab) for lab in deprels]
        bad = {x for x in set(label_texts) if not writable_label(x)}  # each distinct label checked once
        if bad:
            w, ls = next((w, x) for w, x in zip(self.words, label_texts) if x in bad)  # the first bad word
            raise UsageError(f"with_heads: label {ls!r} of word {w.id} cannot be written in CoNLL-U")
        return self._with_head_texts(head_texts, label_texts)

    def _with_head_texts(self, head_texts: Sequence[str], label_texts: Sequence[str]) -> "Sentence":
        """:meth:`with_heads` from HEAD and DEPREL texts already checked (one per word, each
        writable in CoNLL-U): the lines are rewritten now, the new Word objects made when
        first asked for (see :class:`_WordsOnDemand`), since most callers (``tsdsl parse``)
        only write the lines."""
        lines = list(self.lines)
        join = "\t".join
        for k, hs, ls in zip(self.word_index, head_texts, label_texts):
            # a word line is its 10 fields joined by tabs, then its terminator (and the file's
            # BOM before the first line): split from the right, the first six fields stay one
            # string, then HEAD, DEPREL, DEPS and MISC with the terminator
            parts = lines[k].rsplit("\t", 4)
            parts[1] = hs
            parts[2] = ls
            lines[k] = join(parts)
        return self._with_lines(tuple(lines), head_texts, label_texts)

    def _with_lines(self, lines: tuple, head_texts: Sequence[str], label_texts: Sequence[str]) -> "Sentence":
        """:meth:`_with_head_texts` from its lines already rewritten (``lines``: this
        sentence's, each word line's HEAD and DEPREL the texts given; tsdsl.learn rewrites
        them in compiled code)."""
        out = object.__new__(Sentence)
        object.__setattr__(out, "__dict__", {"lines": lines, "word_index": self.word_index, "file": self.file,
                                             "line": self.line, _PENDING: (self.words, head_texts, label_texts)})
        return out

    def with_columns(self, columns: dict[str, Sequence[str]]) -> "Sentence":
        """A copy in which the named columns of the word lines (``lemma``, ``upos``, ``xpos``,
        ``feats``: the tagger's) take new values; nothing else changes.

        Raises:
            UsageError: an unknown column, wrong lengths, or a value that would break the
                format (empty, or containing a tab, a newline or, except in LEMMA, a space).
        """
        index = {"lemma": 2, "upos": 3, "xpos": 4, "feats": 5}
        n = self.n
        for name, values in columns.items():
            if name not in index:
                raise UsageError(f"with_columns: unknown column {name!r}")
            if len(values) != n:
                raise UsageError(f"with_columns: {len(values)} {name} values for a sentence of {n} words")
            for w, v in zip(self.words, values):
                if not isinstance(v, str) or not v or any(c in v for c in "\t\n\r") or (name != "lemma" and " " in v):
                    raise UsageError(f"with_columns: {name} {v!r} of word {w.id} cannot be written in CoNLL-U")
        lines = list(self.lines)
        words = []
        for k, (w, li) in enumerate(zip(self.words, self.word_index)):
            fields = list(w.fields)
            for name, values in columns.items():
                fields[index[name]] = values[k]
            raw = lines[li]
            end = "\r\n" if raw.endswith("\r\n") else ("\n" if raw.endswith("\n") else "")
            lines[li] = ("\ufeff" if raw.startswith("\ufeff") else "") + "\t".join(fields) + end
            words.append(Word(w.id, tuple(fields), w.line))
        return Sentence(tuple(lines), tuple(words), self.word_index, self.file, self.line)

    def with_tree(self, tree: Tree) -> "Sentence":
        """:meth:`with_heads` from a parser output (its heads and labels)."""
        return self.with_heads(tree.heads, tree.labels)


_PENDING = "_pending_words"
assert (HEAD_COL, DEPREL_COL) == (6, 7)  # Sentence._with_head_texts spells them out


class _WordsOnDemand:
    """``Sentence.words`` of a sentence made by :meth:`Sentence.with_heads`: its Word objects
    built on first access from the source sentence's words and the new HEAD and DEPREL texts,
    then kept in the instance (so later accesses are plain attribute reads).  A non-data
    descriptor: every other Sentence holds ``words`` in its instance dict, which wins."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        d = obj.__dict__
        words = d.get("words")
        if words is None:
            source, head_texts, label_texts = d[_PENDING]
            new, set_dict = object.__new__, object.__setattr__
            made = []
            for w, hs, ls in zip(source, head_texts, label_texts):
                f = w.fields
                word = new(Word)  # Word(w.id, fields, w.line) without the frozen dataclass's slower __init__
                set_dict(word, "__dict__", {"id": w.id, "fields": f[:HEAD_COL] + (hs, ls) + f[DEPREL_COL + 1:],
                                            "line": w.line})
                made.append(word)
            words = d["words"] = tuple(made)
            d.pop(_PENDING, None)
        return words


Sentence.words = _WordsOnDemand()


def _content(raw: str) -> str:
    """A raw line without its terminator (``\\n`` or ``\\r\\n``)."""
    if raw.endswith("\n"):
        raw = raw[:-1]
        if raw.endswith("\r"):
            raw = raw[:-1]
    return raw


def _raw_lines(text: str) -> list[str]:
    """Split on ``\\n`` only (keeping it), unlike str.splitlines, so that forms
    containing other Unicode line breaks survive."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


# ---------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------


def read_conllu(path: Union[str, Path], *, require_heads: bool = True,
                allow_multiple_roots: bool = False, check_trees: bool = True) -> list[Sentence]:
    """Read a CoNLL-U file ("-" reads standard input).

    Args:
        require_heads: when False, HEAD may be ``_`` (parser input); tree checks
            then apply only to the sentences whose heads are all given.
        allow_multiple_roots: accept several words attached to 0.
        check_trees: when False, a HEAD need only be an integer (or ``_``): no range,
            root or cycle checks (parser input, whose heads the parse replaces).

    Raises:
        ConlluError: the first malformed line, as ``file:line: message``.
        OSError: the file cannot be read.
    """
    name = str(path)
    if name == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConlluError(name, line, f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at byte column {col})") from None
    return parse_conllu(text, file=name, require_heads=require_heads,
                        allow_multiple_roots=allow_multiple_roots, check_trees=check_trees)


def parse_conllu(text: str, file: str = "<string>", *, require_heads: bool = True,
                 allow_multiple_roots: bool = False, check_trees: bool = True) -> list[Sentence]:
    """Parse CoNLL-U text; see :func:`read_conllu`."""
    with cyclic_gc_paused():  # many objects, no cycles (see cyclic_gc_paused)
        return _parse_text(text, file, require_heads, allow_multiple_roots, check_trees)


def _parse_text(text: str, file: str, require_heads: bool, allow_multiple_roots: bool,
                check_trees: bool) -> list[Sentence]:
    bom = text.startswith("\ufeff")
    raw = _raw_lines(text[1:] if bom else text)
    sentences: list[Sentence] = []
    shared: dict[str, str] = {}  # each distinct column value once (see _parse_block)
    k = 0
    total = len(raw)
    while k < total:
        start = k
        while k < total and not _content(raw[k]).strip():  # leading blank lines (file start)
            k += 1
        if k == total:
            if sentences:  # extra blank lines at the end belong to the last sentence
                last = sentences[-1]
                sentences[-1] = Sentence(last.lines + tuple(raw[start:]), last.words, last.word_index,
                                         last.file, last.line)
            break
        block_start = k
        while k < total and _content(raw[k]).strip():
            k += 1
        body_end = k
        while k < total and not _content(raw[k]).strip():
            k += 1
        sentences.append(_parse_block(raw, start, block_start, body_end, k, file,
                                      require_heads, allow_multiple_roots, check_trees, shared))
    if bom and sentences:  # kept in the raw text only, so that it is written back
        first = sentences[0]
        lines = ("\ufeff" + first.lines[0],) + first.lines[1:]
        sentences[0] = Sentence(lines, first.words, first.word_index, first.file, first.line)
    return sentences


_COLUMN_NAMES = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


def _parse_block(raw: list[str], start: int, block_start: int, body_end: int, end: int, file: str,
                 require_heads: bool, allow_multiple_roots: bool, check_trees: bool,
                 shared: dict[str, str]) -> Sentence:
    """One sentence block.  Equal column values of the file's words are one string object
    (``shared``, the file's values so far): a treebank repeats a few dozen UPOS values, a few
    hundred FEATS values and its common words over and over, and a parse reads each word's
    columns several times (its columns, the tag gaps, the token hashes, the UPOS check); with
    the values shared those reads hit the same few cached objects instead of one object per
    word (the whole greedy parse of en_gum test 3 to 4% faster, measured in one process).  The
    look-up per field costs the reading about 0.1 to 0.4 µs a word, which the paused collector
    (:func:`parse_conllu`) more than repays on a large file."""
    words: list[Word] = []
    index: list[int] = []
    last_range: Optional[tuple[str, int, int]] = None  # the latest multiword token: (ID, its end, line)
    for k in range(block_start, body_end):
        lineno = k + 1
        content = _content(raw[k])
        if content.startswith("#"):
            continue
        fields = content.split("\t")
        if len(fields) != 10:
            raise ConlluError(file, lineno, f"expected 10 tab-separated columns, found {len(fields)}")
        if _BLANK.search(content) is not None:  # rare: most lines hold no whitespace but their tabs
            _refuse_whitespace(fields, file, lineno)
        tid = fields[0]
        if _RANGE_ID.match(tid):
            a, b = map(int, tid.split("-"))
            if not 1 <= a < b:
                raise ConlluError(file, lineno, f"bad multiword token range {tid!r}")
            if last_range is not None and a <= last_range[1]:
                raise ConlluError(file, lineno, f"multiword token {tid} overlaps {last_range[0]}")
            if a != len(words) + 1:
                raise ConlluError(file, lineno, f"multiword token {tid} must come right before word {a}, "
                                                f"found before word {len(words) + 1}")
            last_range = (tid, b, lineno)
            continue
        if _EMPTY_ID.match(tid):
            continue
        if not _WORD_ID.match(tid):
            raise ConlluError(file, lineno, f"ID {tid!r} is not an integer, a range (3-4) or a decimal (5.1)")
        wid = int(tid)
        if wid != len(words) + 1:
            raise ConlluError(file, lineno, f"word ID {wid} out of order: expected {len(words) + 1}")
        head = fields[HEAD_COL]
        if head == "_":
            if require_heads:
                raise ConlluError(file, lineno, "HEAD is _ (heads are required here)")
        elif not _INT.match(head):
            raise ConlluError(file, lineno, f"HEAD {head!r} is not an integer")
        if "" in fields:  # CoNLL-U writes `_` for a missing value, never nothing
            raise ConlluError(file, lineno, f"empty {_COLUMN_NAMES[fields.index('')]}")
        words.append(Word(wid, tuple(map(shared.setdefault, fields, fields)), lineno))
        index.append(k - start)
    if not words:
        raise ConlluError(file, block_start + 1, "a sentence without word lines")
    if last_range is not None and last_range[1] > len(words):
        raise ConlluError(file, last_range[2],
                          f"multiword token {last_range[0]} goes past the last word ({len(words)})")
    if check_trees:
        _check_tree(words, file, block_start + 1, allow_multiple_roots)
    return Sentence(tuple(raw[start:end]), tuple(words), tuple(index), file, block_start + 1)


def _refuse_whitespace(fields: list[str], file: str, lineno: int) -> None:
    """Raise ConlluError for the first column of a line that holds whitespace where CoNLL-U
    allows none (every column but :data:`SPACED_COLUMNS`)."""
    for c, value in enumerate(fields):
        found = _WHITESPACE.search(value) if c not in SPACED_COLUMNS else None
        if found is not None:
            ch = found.group()
            what = "a space" if ch == " " else f"whitespace (U+{ord(ch):04X})"
            raise ConlluError(file, lineno, f"{_COLUMN_NAMES[c]} {value!r} contains {what}: CoNLL-U allows "
                                            "spaces only in FORM, LEMMA and MISC")


def _check_tree(words: list[Word], file: str, first_line: int, allow_multiple_roots: bool) -> None:
    n = len(words)
    heads = [w.head for w in words]
    for w, h in zip(words, heads):
        if h is not None and not 0 <= h <= n:
            raise ConlluError(file, w.line, f"HEAD {h} out of range 0..{n}")
        if h == w.id:
            raise ConlluError(file, w.line, f"word {w.id} is its own head (a cycle)")
    if all(h is not None for h in heads):  # root checks first: without a root there must be a cycle
        roots = [w for w, h in zip(words, heads) if h == 0]
        if not roots:
            raise ConlluError(file, first_line, "no root (no word has HEAD 0)")
        if len(roots) > 1 and not allow_multiple_roots:
            raise ConlluError(file, roots[1].line,
                              f"more than one root (words {', '.join(str(w.id) for w in roots)} have HEAD 0)")
    cyc = cycle_word(heads)
    if cyc is not None:
        raise ConlluError(file, words[cyc - 1].line, f"cycle through word {cyc}")


# ---------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------


def writable_label(label: str) -> bool:
    """Whether a DEPREL value can be written in a CoNLL-U line: non-empty, without whitespace
    (a tab or a line break would break the line, a space is not allowed in DEPREL)."""
    return bool(label) and _WHITESPACE.search(label) is None


def sentence_text(sentences: Iterable[Sentence]) -> Iterable[str]:
    """The text of each sentence, each ending with a blank line: where its block lacks one (a
    file without its final blank line or newline, a sentence made in code), the missing line
    ends are added, in the block's own style (``\\r\\n`` after a CRLF block).  Strict readers
    refuse a file whose last sentence is not closed by a blank line; everything else of the
    input (a BOM, CRLF line ends, comments, extra blank lines) is written back as read."""
    for s in sentences:
        t = s.to_text()
        yield t
        end = _closing(t)
        if end:
            yield end


def _closing(text: str) -> str:
    """What must follow a sentence block's ``text`` so that it ends with a blank line (nothing
    when it does): its line end twice (no terminator on the last line) or once."""
    if text.endswith("\n"):
        if not text[:-1].rpartition("\n")[2].strip():  # the last line is blank (CR and spaces count as blank)
            return ""
        ends = 1
    else:
        ends = 2
    first = text.find("\n")
    return ("\r\n" if first > 0 and text[first - 1] == "\r" else "\n") * ends


def write_conllu(path: Union[str, Path], sentences: Iterable[Sentence]) -> None:
    """Write sentences to ``path`` atomically ("-" writes to standard output), each
    closed by a blank line (see :func:`sentence_text`).

    The text goes to a temporary file in the same directory, which replaces
    ``path`` only once everything is written; on any error the temporary file is
    removed and ``path`` is left as it was (:func:`tsdsl.files.atomic_output`:
    missing parent directories are created, a directory is refused).
    """
    if str(path) == "-":
        out = getattr(sys.stdout, "buffer", None)
        for chunk in sentence_text(sentences):
            if out is not None:
                out.write(chunk.encode("utf-8"))
            else:
                sys.stdout.write(chunk)
        if out is not None:
            out.flush()
        else:
            sys.stdout.flush()
        return
    with atomic_output(path) as fh:
        for chunk in sentence_text(sentences):
            fh.write(chunk.encode("utf-8"))
