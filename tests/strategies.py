"""Every Hypothesis strategy the tests share.

Trees use CoNLL-U numbering: ``heads[d-1]`` is the head of word ``d`` and 0 is
the artificial root; every tree has exactly one word attached to 0.
"""

from __future__ import annotations

from hypothesis import strategies as st


# tree strategies live in the package (tsdsl verify uses them); re-exported here
from tsdsl.verify.strategies import class_trees_strategy, projective_trees, trees  # noqa: E402,F401


@st.composite
def legal_action_sequences(draw, interpreter, n: int, *, max_steps: int | None = None) -> list[str]:
    """A random legal action sequence from the initial configuration of ``n`` words,
    e.g. ``["SHIFT", "LEFT-ARC", "SHIFT"]``: each step draws among the legal actions."""
    c = interpreter.initial(n)
    limit = max_steps if max_steps is not None else 4 * n + 10
    seq: list[str] = []
    while len(seq) < limit and not interpreter.is_terminal(c):
        legal = sorted(interpreter.legal(c))
        if not legal:
            break
        a = draw(st.sampled_from(legal))
        interpreter.apply(c, a)
        seq.append(a)
    return seq


@st.composite
def labeled_graphs(draw, max_n: int = 7, labels=("nsubj", "obj", "obl:in", "conj:and")):
    """``(n, arcs)``: a sentence length and a random set of labeled arcs (head 0..n, dependent
    1..n, no self-loop; cycles, crossings and words without a head all allowed), e.g.
    ``(3, {(2, 1, "nsubj"), (0, 2, "obj"), (1, 2, "conj:and")})``."""
    n = draw(st.integers(1, max_n))
    pairs = [(h, d) for d in range(1, n + 1) for h in range(0, n + 1) if h != d]
    chosen = draw(st.sets(st.sampled_from(pairs), max_size=2 * n))
    return n, {(h, d, draw(st.sampled_from(labels))) for h, d in chosen}


# ---------------------------------------------------------------------------------
# spec texts for fuzzing the parser and checker
# ---------------------------------------------------------------------------------

import functools as _functools
import re as _re
from pathlib import Path as _Path

_REPO = _Path(__file__).resolve().parent.parent
_SYSTEMS = _REPO / "systems"

# Names that mean something to the checker, so that grammar-derived specs reach past
# "unknown name" errors into the deeper checks (list patterns, guards, CP params...).
SPEC_NAMES = (
    "σ", "β", "λ1", "λ2", "sigma", "beta", "s", "b", "i", "j", "w", "x", "O", "U",
    "SHIFT", "LEFT-ARC", "RIGHT-ARC", "REDUCE", "NO-ARC",
    "has_head", "is_root", "empty", "len", "path", "arc",
    "left", "right", "none", "na", "active", "capacity", "projective", "nonprojective", "dag",
    "B", "S", "P", "K", "D", "N", "bottom_up", "periphery", "token", "shifted",
    "overwrite", "break_cycle", "unlabeled", "attach", "headless", "to", "root",
    "left_arc", "right_arc", "reduce", "shift", "words",
)


@_functools.lru_cache(maxsize=1)
def _ts_lark():
    from lark import Lark

    return Lark((_REPO / "grammars" / "ts.lark").read_text(encoding="utf-8"), parser="lalr")


def _pad(s: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # from_lark only sometimes puts ignored whitespace between tokens; without it
    # `system x` comes out as `systemx`, so every token gets a blank on each side.
    return s.map(lambda v: f" {v} ")


@_functools.lru_cache(maxsize=1)
def statement_rules() -> tuple[str, ...]:
    """The grammar's statement kinds (``cite``, ``param``, ``rule_transition``...), read from
    the ``statement`` rule so that new statements are fuzzed as soon as they exist."""
    _terminals, rules, _ignore = _ts_lark().grammar.compile(["start"], ())
    return tuple(sorted({r.expansion[0].name for r in rules if r.origin.name == "statement"}))


def _explicit_terminals() -> dict[str, st.SearchStrategy[str]]:
    grammar = _ts_lark()
    terminals, _rules, _ignore = grammar.grammar.compile(["start"], ())
    explicit: dict[str, st.SearchStrategy[str]] = {}
    for t in terminals:
        if t.pattern.type == "str":
            explicit[t.name] = _pad(st.just(t.pattern.value))
    explicit["NAME"] = _pad(
        st.sampled_from(SPEC_NAMES) | st.from_regex(r"[A-Za-zσβλ_][A-Za-z0-9_]{0,6}", fullmatch=True)
    )
    explicit["ACTION_NAME"] = _pad(
        st.sampled_from(SPEC_NAMES + ("LEFT-ARC-2", "A-1-b"))
        | st.from_regex(r"[A-Za-zσβλ_][A-Za-z0-9_]{0,6}(-[A-Za-z0-9][A-Za-z0-9_]{0,3}){0,2}", fullmatch=True)
    )
    explicit["INT"] = _pad(st.integers(0, 5).map(str) | st.from_regex(r"[0-9]{1,4}", fullmatch=True))
    explicit["STRING"] = _pad(
        st.sampled_from(['"x"', '""', '"arc-eager.ts"', '"a\\"b"', '"\\n"', '"\\x41"', '"\\u00e9"', '"\\q"'])
        | st.from_regex(r'"(?:[^"\\\n]|\\.)*"', fullmatch=True)
    )
    explicit["WORDS"] = _pad(st.sampled_from(["1..n", "1 .. n"]))
    explicit["_NL"] = st.sampled_from(["\n", "\n  ", "\n\n", "\n  # c\n", "\r\n"])
    explicit["_CONT"] = st.sampled_from(["\n  |", "\n\n   |", "\n # c\n |"])
    # ignored tokens: a comment in mid-line would swallow the rest of the statement
    explicit["COMMENT"] = st.just(" ")
    explicit["__IGNORE_0"] = st.sampled_from([" ", "\t"])
    return explicit


@_functools.lru_cache(maxsize=None)
def _from_lark(start: str) -> st.SearchStrategy[str]:
    from hypothesis.extra.lark import from_lark

    grammar = _ts_lark()
    terminals, rules, ignore = grammar.grammar.compile([start], ())
    names = {t.name for t in terminals} | set(ignore)
    for r in rules:
        names |= {s.name for s in r.expansion if s.is_term}
    explicit = {k: v for k, v in _explicit_terminals().items() if k in names}
    return from_lark(grammar, start=start, explicit=explicit)


@st.composite
def _assembled_specs(draw) -> str:
    lines = [draw(_from_lark("system_header"))]
    for _ in range(draw(st.integers(0, 5))):
        lines.append(draw(_from_lark(draw(st.sampled_from(statement_rules())))))
    return "\n".join(lines) + "\n"


def spec_texts() -> st.SearchStrategy[str]:
    """Spec texts derived from grammars/ts.lark with ``hypothesis.extra.lark.from_lark``.

    Either a whole ``start`` derivation, or a header plus up to 5 statements each
    derived from its own rule (so most texts parse and reach the checker).  A sample::

         system  LEFT-ARC  "x"
          capacity   K  *  2
          REDUCE  :  ( σ  |  s  ,  β )  =>  ( σ  ,  β )   if  not  has_head ( s )

    Terminals are drawn from a small vocabulary of meaningful names and small
    numbers (mixed with the terminal's own regex) and padded with blanks, since
    from_lark only sometimes puts whitespace between tokens.
    """
    return st.one_of(_from_lark("start"), _assembled_specs())


_TOKEN_RE = _re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|\w+(?:-\w+)*|->\*?|=>|<-|:=|[=!<>]=|.', _re.S)


@_functools.lru_cache(maxsize=1)
def _system_tokens() -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    for path in sorted(_SYSTEMS.glob("*.ts")):
        out.append((path.name, tuple(_TOKEN_RE.findall(path.read_text(encoding="utf-8")))))
    return tuple(out)


@st.composite
def mutated_specs(draw, *, max_mutations: int = 4) -> str:
    """A real ``systems/*.ts`` file with a few tokens deleted, duplicated, inserted or
    replaced (by a token from any system, a newline or a stray character; a word by
    another word, which usually still parses).  A sample::

        system arc_eager "Arc-eager (Nivre 2003)"
          ...
          LEFT-ARC  : (σ|s, b|β) => (σ, b|β)     arc b -> -> s
          RIGHT-ARC : (σ|s, b|β) => (σ|s|b  arc s -> b

    Whitespace and comments are tokens too, so lines get merged or split.
    """
    systems = _system_tokens()
    _name, tokens = draw(st.sampled_from(systems))
    toks = list(tokens)
    pool = sorted({t for _n, ts in systems for t in ts if not t.isspace() and not t.startswith("#")})
    words = [t for t in pool if t[0].isalnum() or t[0] == "_"]
    replacement = st.sampled_from(pool) | st.sampled_from(["\n", " ", "(", ")", "[", "]", "|", "{", "}", '"', "=>"])
    for _ in range(draw(st.integers(1, max_mutations))):
        if not toks:
            break
        k = draw(st.integers(0, len(toks) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "insert", "swap"]))
        if op == "delete":
            del toks[k]
        elif op == "duplicate":
            toks.insert(k, toks[k])
        elif op == "replace":
            toks[k] = draw(replacement)
        elif op == "swap":  # a word for another word: usually still parses
            toks[k] = draw(st.sampled_from(words)) if toks[k][:1].isalnum() or toks[k][:1] == "_" else toks[k]
        else:
            toks.insert(k, draw(replacement) + " ")
    return "".join(toks)


SPEC_TOKENS = (
    "system", "cite", "produces", "covers", "root", "extends", "param", "capacity", "distance", "start",
    "periphery", "multihead", "flag", "lists", "initial", "terminal", "finally", "drop", "if", "arc",
    "then", "class", "and", "or", "not", "true", "false", "inf", "∞", "1..n", "=", ":", ":=", "=>", "⇒",
    "->", "→", "<-", "←", "->*", "−", "+", "-", "*", "★", "|", "·", ",", "(", ")", "[", "]", "{", "}",
    "==", ">=", "<", '"x"', '"', "#", "0", "1", "2", "\n", "\n  |", "σ", "β", "s", "b", "x", "K", "N",
    "B", "P", "S", "has_head", "len", "empty", "path", "left", "right", "none", "token", "SHIFT", "A",
)


def spec_token_soup() -> st.SearchStrategy[str]:
    """Random sequences of spec tokens and newlines, usually after a header.  A sample::

        system x
        capacity ( → ] if 1..n
        SHIFT : σ | b ⇒ "x" has_head
    """
    soup = st.lists(st.sampled_from(SPEC_TOKENS), max_size=40).map(" ".join)
    return st.tuples(st.sampled_from(["", "system x\n", "system x \"t\"\n"]), soup).map("".join)


# ---------------------------------------------------------------------------------
# labelled trees and broken head vectors (tsdsl.treebank.projectivize, tsdsl.treebank.repair)
# ---------------------------------------------------------------------------------


@st.composite
def labelled_trees(draw, *, min_n: int = 1, max_n: int = 12, projective: bool | None = None,
                   labels: tuple[str, ...] | None = None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """A random tree with one label per word, e.g. ``((3, 0, 2), ("b", "a", "b"))``.

    ``projective`` as in :func:`trees`; ``labels`` is the alphabet labels are drawn from,
    None gives every word its own label (``l1``..``ln`` in random order).
    """
    heads = draw(trees(min_n=min_n, max_n=max_n, projective=projective))
    n = len(heads)
    if labels is None:
        names = draw(st.permutations([f"l{k}" for k in range(1, n + 1)]))
    else:
        names = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    return heads, tuple(names)


@st.composite
def broken_heads(draw, *, min_n: int = 0, max_n: int = 12) -> tuple[tuple[int | None, ...], tuple[str | None, ...]]:
    """A head vector that need not be a tree, with labels, e.g. ``((0, None, 2, -1), ("root", "", None, "obj"))``.

    Heads are drawn from ``None``, -1 and 0..n: either each one freely (usually cycles and
    several roots) or a random tree with a few heads overwritten (near-trees, as a parser
    that went wrong late would leave).
    """
    n = draw(st.integers(min_value=min_n, max_value=max_n))
    head = st.none() | st.sampled_from([-1] + list(range(n + 1)))
    if n and draw(st.booleans()):
        heads = list(draw(trees(min_n=n, max_n=n)))
        for _ in range(draw(st.integers(0, 3))):
            heads[draw(st.integers(0, n - 1))] = draw(head)
    else:
        heads = draw(st.lists(head, min_size=n, max_size=n))
    names = draw(st.lists(st.sampled_from([None, "", "root", "dep", "nsubj", "obj"]), min_size=n, max_size=n))
    return tuple(heads), tuple(names)


# ---------------------------------------------------------------------------------
# CoNLL-U text (tsdsl.draw): word forms with XML's special characters
# ---------------------------------------------------------------------------------

#: characters a word form may hold: letters, XML specials, quotes, non-ASCII (no whitespace)
FORM_CHARS = "abcXYZ<>&\"';]]>éαβ漢字-–…"


def word_forms() -> st.SearchStrategy[str]:
    """A CoNLL-U FORM, e.g. ``"a<&b"`` or ``"]]>"``: one or more characters of FORM_CHARS."""
    return st.text(alphabet=FORM_CHARS, min_size=1, max_size=6)


def conllu_block(forms, heads, labels, *, sent_id: str | None = None, upos: str = "X") -> str:
    """One CoNLL-U sentence block (ending in a blank line) from forms, heads and labels."""
    lines = [f"# sent_id = {sent_id}\n"] if sent_id is not None else []
    for k, (form, head, label) in enumerate(zip(forms, heads, labels), start=1):
        lines.append(f"{k}\t{form}\t_\t{upos}\t_\t_\t{head}\t{label}\t_\t_\n")
    return "".join(lines) + "\n"


@st.composite
def sparse_weight_tables(draw, *, hash_bits: int = 14, max_weights: int = 200):
    """A sparse perceptron table (:class:`tsdsl.learn.weights.SparseWeights`) of ``2**hash_bits``
    rows: a few up to a few hundred outputs (past 256 sometimes, where columns need 16 bits),
    weights at distinct ascending indices, finite and non-zero, of magnitudes from 1e-3 to 1e3
    (as averaged perceptron weights are), clustered in a few rows or spread out."""
    import numpy as np

    from tsdsl.learn.weights import SparseWeights

    C = draw(st.sampled_from([1, 2, 7, 146, 300]))
    total = (1 << hash_bits) * C
    if draw(st.booleans()):
        rows = draw(st.lists(st.integers(0, (1 << hash_bits) - 1), min_size=1, max_size=4))
        cells = st.tuples(st.sampled_from(rows), st.integers(0, C - 1)).map(lambda rc: rc[0] * C + rc[1])
    else:
        cells = st.integers(0, total - 1)
    index = sorted(draw(st.sets(cells, max_size=max_weights)))
    magnitude = st.floats(-3, 3).map(lambda e: 10.0 ** e)
    values = [draw(magnitude) * draw(st.sampled_from([-1, 1])) for _ in index]
    return SparseWeights(np.asarray(index, dtype=np.int64), np.asarray(values, dtype=np.float32), C)


def random_stored_weights(seed: int, C: int, density: float, full_rows: float, magnitudes=(-2, 2), *,
                          hash_bits: int):
    """Random float16 weights (:class:`tsdsl.learn.weights.StoredWeights`, ``2**hash_bits``
    rows): each row empty, sparse (about ``density`` of its outputs) or, with probability
    ``full_rows``, full; values of mixed signs and magnitudes (powers of ten in
    ``magnitudes``).  Hypothesis draws the seed."""
    import numpy as np

    from tsdsl.learn import weights as wt

    rng = np.random.default_rng(seed)
    rows = 1 << hash_bits
    mask = rng.random((rows, C)) < density
    mask[rng.random(rows) < full_rows] = True
    table = np.where(mask, rng.standard_normal((rows, C)) * 10.0 ** rng.integers(*magnitudes, (rows, C)), 0)
    return wt.store(wt.SparseWeights.from_dense(table.astype(np.float32)), "float16")


def tagged_sentences(words, *, max_len: int = 30, max_sentences: int = 6):
    """Batches of 1..max_sentences random sentences, each 1..max_len (form, UPOS) pairs drawn
    from ``words`` (e.g. those of a toy treebank), to parse with a model trained on it."""
    return st.lists(st.lists(st.sampled_from(words), min_size=1, max_size=max_len), min_size=1,
                    max_size=max_sentences)


def columns_of_tagged(sentences) -> list[dict]:
    """The column dicts a parser reads (form, upos; the rest ``_``) of :func:`tagged_sentences`."""
    return [{"form": [w for w, _ in s], "upos": [p for _, p in s], "lemma": ["_"] * len(s), "xpos": ["_"] * len(s),
             "feats": ["_"] * len(s)} for s in sentences]


def gold_training_batch(system, kernel, features, path):
    """The gold trees of the CoNLL-U file ``path`` as a training batch for ``system``
    (lifted where it builds projective trees only) with its compiled ``kernel`` and
    ``features``: (outputs, batch), the outputs labelled with the file's labels."""
    from tsdsl.learn.data import columns_of, make_batch
    from tsdsl.learn.outputs import build_outputs, unit_names
    from tsdsl.learn.train import prepare_gold
    from tsdsl.treebank.conllu import read_conllu

    sents = read_conllu(path, allow_multiple_roots=True)
    trees, keep, _, _ = prepare_gold(system, sents, "lift")
    labels = sorted({lab for _, ls in trees for lab in ls})
    outputs = build_outputs(system, unit_names(kernel), labels)
    batch = make_batch([columns_of(sents[k]) for k in keep], features.token_attrs, trees,
                       {lab: k for k, lab in enumerate(labels)})
    return outputs, batch
