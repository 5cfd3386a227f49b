# cython: boundscheck=False, wraparound=False, language_level=3
"""The per-word Python around a parse, compiled: rewriting the HEAD and DEPREL of CoNLL-U
word lines, filling token tables from the per-attribute hash dicts, reading the word
columns.

Parsing a loaded model spent about 0.8 µs a word in these three (tsdsl.learn.parser,
tsdsl.learn.tokens, tsdsl.learn.data), against about 10 µs in the search for the slowest
systems.  They do
here exactly what the Python does (the same text, the same numbers), word by word in C,
and hand back to the Python whatever they cannot do (None, False): the Python then
does it as before, with its error messages.

This file is fixed (not generated): tsdsl.kernels.fixed builds it through
tsdsl.kernels.build, cached by the hash of its text like the generated kernels.
"""

from cpython.unicode cimport PyUnicode_FindChar

from libc.string cimport memcpy

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object o)
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    Py_ssize_t PyUnicode_CopyCharacters(object to, Py_ssize_t to_start, object src, Py_ssize_t from_start,
                                        Py_ssize_t how_many) except -1
from cpython.dict cimport PyDict_GetItem
from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport int64_t

cdef list _NUMBERS = [str(i) for i in range(4096)]


cdef inline bint _last_tabs(str line, Py_ssize_t end, Py_ssize_t* t2, Py_ssize_t* t4):
    """t2 and t4: the positions of the second and fourth tab from the end of line; False
    when it has fewer than four."""
    cdef const unsigned char* src
    cdef Py_ssize_t t1, t3, seen = 0
    if PyUnicode_KIND(line) == 1:  # one byte a character (the common case): by hand
        src = <const unsigned char*>PyUnicode_DATA(line)
        while end > 0:
            end -= 1
            if src[end] == 9:
                seen += 1
                if seen == 2:
                    t2[0] = end
                elif seen == 4:
                    t4[0] = end
                    return True
        return False
    t1 = PyUnicode_FindChar(line, 9, 0, end, -1)
    t2[0] = PyUnicode_FindChar(line, 9, 0, t1, -1) if t1 > 0 else -1
    t3 = PyUnicode_FindChar(line, 9, 0, t2[0], -1) if t2[0] > 0 else -1
    t4[0] = PyUnicode_FindChar(line, 9, 0, t3, -1) if t3 > 0 else -1
    return t4[0] >= 0


cdef str _rewritten(str line, str head, str label):
    """``line`` (a word line: ten fields, then its terminator) with HEAD and DEPREL replaced,
    as ``parts = line.rsplit("\\t", 4); parts[1] = head; parts[2] = label; "\\t".join(parts)``
    makes it: one new string, the pieces copied in (the last four tabs found from the end);
    None when the line has fewer than four tabs."""
    cdef Py_ssize_t end = PyUnicode_GET_LENGTH(line), nh = PyUnicode_GET_LENGTH(head)
    cdef Py_ssize_t nl = PyUnicode_GET_LENGTH(label), t2 = -1, t4 = -1
    cdef unsigned char* dst
    if not _last_tabs(line, end, &t2, &t4):
        return None
    cdef Py_UCS4 top = PyUnicode_MAX_CHAR_VALUE(line)
    if PyUnicode_MAX_CHAR_VALUE(label) > top:
        top = PyUnicode_MAX_CHAR_VALUE(label)
    if PyUnicode_MAX_CHAR_VALUE(head) > top:
        top = PyUnicode_MAX_CHAR_VALUE(head)
    out = PyUnicode_New(t4 + 1 + nh + 1 + nl + end - t2, top)
    if PyUnicode_KIND(out) == 1:  # then all three are too: the bytes copied by hand
        dst = <unsigned char*>PyUnicode_DATA(out)
        memcpy(dst, PyUnicode_DATA(line), t4 + 1)
        memcpy(dst + t4 + 1, PyUnicode_DATA(head), nh)
        dst[t4 + 1 + nh] = 9
        memcpy(dst + t4 + 2 + nh, PyUnicode_DATA(label), nl)
        memcpy(dst + t4 + 2 + nh + nl, <const unsigned char*>PyUnicode_DATA(line) + t2, end - t2)
    else:
        PyUnicode_CopyCharacters(out, 0, line, 0, t4 + 1)
        PyUnicode_CopyCharacters(out, t4 + 1, head, 0, nh)
        PyUnicode_CopyCharacters(out, t4 + 1 + nh, line, t4, 1)  # a tab
        PyUnicode_CopyCharacters(out, t4 + 2 + nh, label, 0, nl)
        PyUnicode_CopyCharacters(out, t4 + 2 + nh + nl, line, t2, end - t2)
    return out


def rewrite_heads(list sentences, list heads, list labels):
    """Per sentence (a :class:`~tsdsl.treebank.conllu.Sentence`, with its heads, ints in
    0..n, and labels, writable str): ``(lines, head_texts)``, its lines with each word
    line's HEAD and DEPREL replaced as ``Sentence._with_head_texts`` replaces them, and the
    heads as text; or None where a head is not an int, a label not a str, a count wrong or
    a word line short of tabs (the caller rewrites that sentence in Python)."""
    cdef Py_ssize_t si, k, n, h
    cdef list out = [], new, htexts, hs, ls
    cdef str line, ht
    cdef object lab
    for si in range(len(sentences)):
        s = sentences[si]
        widx = s.word_index
        hs = heads[si]
        ls = labels[si]
        n = len(widx)
        if len(hs) != n or len(ls) != n:
            out.append(None)
            continue
        new = list(s.lines)
        htexts = [None] * n
        for k in range(n):
            h_obj = hs[k]
            lab = ls[k]
            if type(h_obj) is not int or type(lab) is not str:
                new = None
                break
            h = h_obj
            ht = _NUMBERS[h] if 0 <= h < 4096 else str(h)
            line = new[widx[k]]
            line = _rewritten(line, ht, lab)
            if line is None:
                new = None
                break
            new[widx[k]] = line
            htexts[k] = ht
        out.append(None if new is None else (tuple(new), htexts))
    return out


def fill_hashes(int64_t[::1] row, list sentences, str column, dict known):
    """row[w]: ``known[v]`` for the value v of column ``column`` of each word w of the
    sentences (dicts of column -> values, one after another), as tsdsl.learn.tokens fills a
    token table's row; False (the row part-filled) when some value is not in ``known``."""
    cdef Py_ssize_t w = 0
    cdef PyObject* found
    for s in sentences:
        for v in s[column]:  # (Cython indexes a list or tuple directly)
            if w >= row.shape[0]:
                return False
            found = PyDict_GetItem(known, v)
            if found == NULL:
                return False
            row[w] = <int64_t><object>found
            w += 1
    return w == row.shape[0]


_COLUMNS = ("form", "lemma", "upos", "xpos", "feats")


def word_columns(list sentences):
    """Per sentence, its word columns as ``tsdsl.learn.data.columns_of`` gives them (a dict
    of form, lemma, upos, xpos and feats, a tuple of values each), built word by word; None
    for a sentence with a word whose fields are not a tuple of six or more (the caller asks
    columns_of)."""
    cdef list out = []
    cdef Py_ssize_t n, k, c
    cdef tuple f
    cdef list cols
    for s in sentences:
        words = s.words
        n = len(words)
        cols = [PyTuple_New(n) for c in range(5)]
        for k in range(n):
            fo = words[k].fields
            if type(fo) is not tuple or len(<tuple>fo) < 6:
                cols = None
                break
            f = <tuple>fo
            for c in range(5):
                v = f[c + 1]
                Py_INCREF(v)
                PyTuple_SET_ITEM(<tuple>cols[c], k, v)
        if cols is None:
            out.append(None)
        else:
            out.append(dict(zip(_COLUMNS, cols)))
    return out
