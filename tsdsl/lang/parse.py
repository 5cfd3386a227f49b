"""Parse spec text into the AST (the only module that imports lark).

Syntax errors become :class:`SpecSyntaxError` with ``file:line:col``, the
source line, a caret, the expected tokens by their user-facing names and, where
one of the known mistakes in :data:`SPEC_ERRORS` matches, a plain-words label.
The parse goes on past a syntax error (:func:`parse_spec_recovering`): the statement
that holds it is skipped (:mod:`.recover`), so each bad statement is reported.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import codes
from . import syntax as S
from .hints import continuation_hint, keyword_hint
from .recover import Skipped, blank_lines, classify, statement_lines
from ..errors import Diagnostic, Span, SpecSyntaxError, source_line

# Known mistakes: a label and malformed snippets that produce it.  The parser
# maps a failure to the label whose example fails in the same parser state
# (lark's match_examples); tests loop over this table so the two cannot drift.
SPEC_ERRORS: dict[str, list[str]] = {
    "a spec must start with `system NAME`": [
        "cite \"x\"\n",
        "capacity 2\n",
    ],
    "missing `=>` between the two sides of a rewrite rule": [
        "system x\nA : (σ, β) (σ, β)\n",
        "system x\nA : (σ, β)\n",
    ],
    "a configuration must be written in parentheses, e.g. (σ|s, b|β)": [
        "system x\nA : σ|s, β => (σ, β)\n",
        "system x\nA : (σ, β) => σ, β\n",
        "system x\nterminal σ, []\n",
    ],
    "unclosed parenthesis in a configuration": [
        "system x\nA : (σ, β => (σ, β)\n",
        "system x\nA : (σ, β) => (σ, β\n",
    ],
    "an arc is written `arc HEAD -> DEPENDENT`": [
        "system x\nA : (σ|s, b|β) => (σ, b|β) arc b s\n",
        "system x\nA : (σ|s, b|β) => (σ, b|β) arc -> s\n",
    ],
    "a control-parameter transition needs a base operation after `=` (←, →, −, + or left_arc, right_arc, reduce, shift)": [
        "system x\nA =\n",
        "system x\nA = {B: false}\n",
    ],
    "control parameters are written {KEY: VALUE, ...}": [
        "system x\nA = ← {B false}\n",
        "system x\nA = ← {B: }\n",
        "system x\nA = ← {B: false\n",
    ],
    "a guard after `if` is missing or incomplete": [
        "system x\nA : (σ, β) => (σ, β) if\n",
        "system x\nA : (σ, β) => (σ, β) if not\n",
        "system x\nA : (σ, β) => (σ, β) if has_head(s) and\n",
    ],
    "a string must be in double quotes and end on the same line": [
        "system x\ncite \"abc\n",
        "system x\ncite abc\n",
    ],
    "a number or parameter expression is expected": [
        "system x\ncapacity\n",
        "system x\ncapacity 2 +\n",
        "system x\nparam N =\n",
    ],
}

_FRIENDLY = {
    "NAME": "a name", "ACTION_NAME": "a name", "STRING": "a quoted string", "INT": "a number", "_NL": "end of line",
    "$END": "end of file", "BOOL": "true/false", "INF": "inf", "WORDS": "1..n",
    "RARROW": "'->'", "LARROW": "'<-'", "PATH": "'->*'", "_RULE_ARROW": "'=>'",
    "CMP": "a comparison (==, >=, ...)", "ADDOP": "'+' or '-'", "MULOP": "'*'",
    "MINUS": "'−'", "STAR": "'★'", "SEP": "'|'", "_CONT": "'|' (another case)",
}


def grammar_path() -> Path:
    """The grammar next to this module: ``tsdsl/grammars`` when installed, else the source
    tree's ``grammars/``.  Only then the ``tsdsl.grammars`` resource, which an editable
    install maps to *its* checkout: another checkout run with PYTHONPATH must not parse
    with that one's grammar."""
    package = Path(__file__).resolve().parents[1]
    for cand in (package / "grammars" / "ts.lark", package.parent / "grammars" / "ts.lark"):
        if cand.is_file():
            return cand
    from importlib.resources import files

    return Path(str(files("tsdsl.grammars").joinpath("ts.lark")))


@functools.lru_cache(maxsize=1)
def _grammar_text() -> str:
    return grammar_path().read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(_grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


def parse_spec(text: str, file: str = "<spec>") -> S.Spec:
    """Parse spec ``text`` (from ``file``) into an AST.

    Raises:
        SpecSyntaxError: the text does not follow the grammar (every statement with a syntax
            error is reported, as :func:`parse_spec_recovering` finds them).
    """
    result = parse_spec_recovering(text, file)
    if result.errors:
        raise SpecSyntaxError(result.errors)
    return result.spec


MAX_SYNTAX_ERRORS = 20
"""The most syntax errors one parse reports (as many as a report shows) before it stops."""


@dataclass(frozen=True)
class ParseResult:
    """A parse that went on past its syntax errors: the AST of the statements without one
    (``None`` when the parse could not go on: an error in the ``system`` line, or more than
    :data:`MAX_SYNTAX_ERRORS`), the syntax errors, and each skipped statement."""

    spec: Optional[S.Spec]
    errors: tuple[Diagnostic, ...]
    skipped: tuple[Skipped, ...]


def parse_spec_recovering(text: str, file: str = "<spec>") -> ParseResult:
    """Parse spec ``text``, reporting each statement with a syntax error and parsing the
    rest without it: the statement's lines are blanked (every other line and column stays
    where it was) and the text parsed again, until it parses.  The AST keeps the text as
    written, so later diagnostics show its lines."""
    # Windows editors save UTF-8 with a byte-order mark: it is not part of the spec, and it
    # precedes line 1 column 1, so dropping it keeps every line and column right
    text = text.removeprefix("\ufeff")
    if not text.endswith("\n"):
        text += "\n"
    work, errors, skipped = text, [], []
    while True:
        try:
            return ParseResult(_parse_whole(work, text, file), tuple(errors), tuple(skipped))
        except UnexpectedInput as exc:
            errors.append(_syntax_diagnostic(exc, work, file))
        except SpecSyntaxError as exc:  # too deep, or a bad escape: located in one statement
            errors.extend(exc.diagnostics)
        lines = statement_lines(work, errors[-1].span.line)
        if lines is None or len(errors) >= MAX_SYNTAX_ERRORS:
            return ParseResult(None, tuple(errors), tuple(skipped))
        skipped.append(classify(work, lines[0]))
        work = blank_lines(work, *lines)


def _parse_whole(work: str, text: str, file: str) -> S.Spec:
    """The AST of ``work`` (``text`` with skipped statements blanked), keeping ``text``.

    Raises:
        UnexpectedInput: a syntax error.
        SpecSyntaxError: nesting too deep, or a bad escape in a string.
    """
    tree = _parser().parse(work)
    _check_nesting(tree, text, file)
    try:
        return _ToAST(file, text).transform(tree)
    except VisitError as exc:  # a located SpecSyntaxError raised by a transformer method
        if isinstance(exc.orig_exc, SpecSyntaxError):
            raise exc.orig_exc from None
        raise


# Deeper nesting (parentheses, `not not ...`, or long `a + b + ...` chains, which
# become nested operations) would exhaust Python's recursion limit in the
# transformer and the checker; no real spec comes near it.
MAX_NESTING = 100


def _check_nesting(tree: Tree, text: str, file: str) -> None:
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        depth += max(1, len(node.children) // 2) if node.data in ("sum_", "product_") else 1
        if depth > MAX_NESTING:
            meta = node.meta
            line, col = (0, 0) if getattr(meta, "empty", True) else (meta.line, meta.column)
            raise SpecSyntaxError([Diagnostic(
                codes.TOO_DEEP, "expression or guard nested too deeply (too many parentheses, `not`s or chained "
                "operators); simplify it",
                Span(file, line, col), (), source_line(text, line))])
        stack.extend((child, depth) for child in node.children)


def parse_file(path: str | Path) -> S.Spec:
    """Read and parse a spec file; an unreadable file is a SpecSyntaxError too."""
    return parse_spec(read_spec_text(path), str(Path(path)))


def read_spec_text(path: str | Path) -> str:
    """The text of a spec file.

    Raises:
        SpecSyntaxError: the file is missing, unreadable (TS001) or not UTF-8 (TS002).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecSyntaxError([Diagnostic(codes.UNREADABLE, "no such spec file", Span(str(p), 0, 0))]) from None
    except UnicodeDecodeError as exc:
        # point at the bad byte: its line, and its column among the characters before it
        before = exc.object[: exc.start]
        line = before.count(b"\n") + 1
        start = before.rfind(b"\n") + 1
        col = len(before[start:].decode("utf-8", errors="replace")) + 1
        shown = exc.object[start:].split(b"\n", 1)[0].decode("utf-8", errors="replace")
        raise SpecSyntaxError(
            [Diagnostic(codes.NOT_UTF8, f"spec is not valid UTF-8 ({exc.reason} at byte {exc.start})",
                        Span(str(p), line, col), (), shown)]
        ) from None
    except OSError as exc:
        raise SpecSyntaxError([Diagnostic(codes.UNREADABLE, f"cannot read spec: {exc.strerror}", Span(str(p), 0, 0))]) from None
    return text


def _syntax_diagnostic(exc: UnexpectedInput, text: str, file: str) -> Diagnostic:
    line = getattr(exc, "line", 0) or 0
    col = getattr(exc, "column", 0) or 0
    if isinstance(exc, UnexpectedEOF) or line <= 0:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
    label = _match_label(exc, text)
    if isinstance(exc, UnexpectedCharacters):
        found = f"unexpected character {text[exc.pos_in_stream]!r}"
        expected = _friendly(exc.allowed or ())
    elif isinstance(exc, UnexpectedToken):
        tok = exc.token
        found = "unexpected end of line" if tok.type == "_NL" else (
            "unexpected end of file" if tok.type == "$END" else f"unexpected {tok.value!r}")
        expected = _friendly(exc.accepts or exc.expected or ())
    else:
        found = "unexpected end of file"
        expected = _friendly(getattr(exc, "expected", ()) or ())
    message = f"{label} ({found})" if label else found
    if isinstance(exc, UnexpectedToken):
        message += keyword_hint(source_line(text, line)) or continuation_hint(text, line, col, expected)
    return Diagnostic(codes.SYNTAX, message, Span(file, line, col), expected, source_line(text, line))


def _match_label(exc: UnexpectedInput, text: str) -> Optional[str]:
    # Like lark's match_examples, but comparing only the LALR state (and the tokens it
    # accepts): lark also compares the depth of the parser stack, which differs between
    # the first statement of a spec and later ones, so most labels would never match.
    try:
        key = _failure_key(exc)
        if key is None:
            return None
        fallback = None
        for label, state, token in _example_failures():
            if state == key[0]:
                if token == key[1]:
                    return label
                fallback = fallback or label
        return fallback
    except Exception:  # a label is a courtesy; never let it hide the real error
        return None


def _failure_key(exc: UnexpectedInput):
    state = getattr(exc, "state", None)
    position = getattr(state, "position", state)
    if position is None:
        return None
    accepts = frozenset(getattr(exc, "accepts", None) or ()) if isinstance(exc, UnexpectedToken) else None
    token = getattr(exc, "token", None)
    return (type(exc) is UnexpectedCharacters, position, accepts), (token.type, str(token)) if token else None


@functools.lru_cache(maxsize=1)
def _example_failures() -> tuple:
    out = []
    for label, examples in SPEC_ERRORS.items():
        for example in examples:
            try:
                _parser().parse(example)
            except UnexpectedInput as ut:
                key = _failure_key(ut)
                if key is not None:
                    out.append((label, key[0], key[1]))
    return tuple(out)


def _friendly(names) -> tuple[str, ...]:
    out = []
    parser = _parser()
    for name in sorted(set(names)):
        if name in _FRIENDLY:
            out.append(_FRIENDLY[name])
            continue
        try:
            term = parser.get_terminal(name)
            value = term.pattern.value
            out.append(repr(value) if term.pattern.type == "str" else name)
        except KeyError:
            out.append(name)
    return tuple(sorted(set(out)))


_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


class _BadEscape(ValueError):
    def __init__(self, escape: str, offset: int):
        super().__init__(escape)
        self.escape, self.offset = escape, offset


def _unquote(s: str) -> str:
    """The text of a quoted STRING token; escapes: \\" \\\\ \\n \\t \\r \\xHH \\uHHHH \\UHHHHHHHH
    (any other backslash stays as written, as in Python).

    Raises:
        _BadEscape: \\x, \\u or \\U without enough hex digits, or naming no character.
    """

    def one(m: re.Match) -> str:
        esc = m.group(0)
        if esc[1] in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[esc[1]]
        if esc[1] not in "xuU":
            return esc
        code = int(esc[2:], 16) if len(esc) > 2 else -1
        if 0 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
            return chr(code)
        raise _BadEscape(esc, m.start() + 1)  # +1: the opening quote

    return _ESCAPE.sub(one, s[1:-1])


@v_args(meta=True)
class _ToAST(Transformer):
    """Lark tree to :mod:`tsdsl.lang.syntax` dataclasses; method names equal rule names."""

    def __init__(self, file: str, text: str):
        super().__init__()
        self.file = file
        self.text = text

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 0, 0)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, tok: Token) -> Span:
        return Span(self.file, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column)

    def _name(self, tok: Token) -> tuple[str, Span]:
        return S.ascii_name(str(tok)), self._tspan(tok)

    def _string(self, tok: Token) -> str:
        try:
            return _unquote(str(tok))
        except _BadEscape as exc:
            col = tok.column + exc.offset
            raise SpecSyntaxError([Diagnostic(
                codes.SYNTAX, f"bad escape `{exc.escape}` in a string (\\xHH, \\uHHHH and \\UHHHHHHHH need hex "
                "digits that name a character; or write the character itself)",
                Span(self.file, tok.line, col), (), source_line(self.text, tok.line))]) from None

    # ---- top level ----
    def start(self, meta, items):
        header = items[0]
        name, title, span = header
        return S.Spec(name, title, self.file, self.text, tuple(items[1:]), span)

    def system_header(self, meta, items):
        name, title = items
        return (S.ascii_name(str(name)), self._string(title) if title is not None else None, self._span(meta))

    def cite(self, meta, items):
        return S.Cite(self._string(items[0]), self._span(meta))

    def claim(self, meta, items):
        return S.Claim(self._string(items[0]), self._span(meta))

    def produces(self, meta, items):
        cls, covers = items
        return S.Produces(str(cls), str(covers) if covers is not None else None, self._span(meta))

    def root(self, meta, items):
        return S.RootPos(str(items[0]), self._tspan(items[0]))

    def extends(self, meta, items):
        return S.Extends(self._string(items[0]), self._span(meta))

    def param(self, meta, items):
        return S.Param(str(items[0]), items[1], self._span(meta))

    def capacity(self, meta, items):
        return S.Setting("capacity", items[0], self._span(meta))

    def distance(self, meta, items):
        return S.Setting("distance", items[0], self._span(meta))

    def start_fill(self, meta, items):
        return S.Setting("start", items[0], self._span(meta))

    def periphery(self, meta, items):
        return S.Periphery(str(items[0]), self._tspan(items[0]))

    def multihead(self, meta, items):
        return S.Multihead(self._span(meta))

    def flag_index(self, meta, items):
        return items[0]

    def flag(self, meta, items):
        name, index, default = items
        return S.FlagDecl(
            S.ascii_name(str(name)),
            S.ascii_name(str(index)) if index is not None else None,
            default is not None and str(default) == "true",
            self._span(meta),
        )

    def lists(self, meta, items):
        return S.ListsDecl(tuple(self._name(t) for t in items), self._span(meta))

    def initial(self, meta, items):
        return S.Initial(items[0], self._span(meta))

    def terminal(self, meta, items):
        config, guard = items
        return S.Terminal(config, guard[1] if guard is not None else None, self._span(meta))

    def finally_(self, meta, items):
        return S.Finally(tuple(str(t) for t in items), self._span(meta))

    def drop(self, meta, items):
        return S.Drop(str(items[0]), self._span(meta))

    # ---- control-parameter transitions ----
    def cp_base(self, meta, items):
        return str(items[0])

    def cp_star(self, meta, items):
        return "*"

    def cp_params(self, meta, items):
        return tuple(i for i in items if i is not None)

    def cp_param(self, meta, items):
        return S.CPParam(str(items[0]), str(items[1]), self._span(meta))

    def class_clause(self, meta, items):
        return ("class", (str(items[0]), self._tspan(items[0])))

    def cp_transition(self, meta, items):
        name, base, _star, params, cls = items
        classes = (cls[1],) if cls is not None else ()
        return S.CPTransition(str(name), base, params or (), classes, self._span(meta))

    # ---- rewrite rules ----
    def rule_transition(self, meta, items):
        return S.RuleTransition(str(items[0]), tuple(items[1:]), self._span(meta))

    def case(self, meta, items):
        lhs, rhs, *clauses = items
        guards, arcs, assigns, classes = [], [], [], []
        for kind, value in clauses:
            {"if": guards, "arc": arcs, "then": assigns, "class": classes}[kind].append(value)
        flat_assigns = tuple(a for group in assigns for a in group)
        return S.RuleCase(lhs, rhs, tuple(guards), tuple(arcs), flat_assigns, tuple(classes), self._span(meta))

    def guard_clause(self, meta, items):
        return ("if", items[0])

    def arc_dir(self, meta, items):
        return "<-" if str(items[0]) in ("<-", "←") else "->"

    def arc_clause(self, meta, items):
        a, direction, b, *opts = items
        head, dep = (a, b) if direction == "->" else (b, a)
        return ("arc", S.ArcClause(S.ascii_name(str(head)), S.ascii_name(str(dep)),
                                   tuple((str(o), self._tspan(o)) for o in opts), self._span(meta),
                                   self._tspan(head), self._tspan(dep)))

    def then_clause(self, meta, items):
        return ("then", tuple(items))

    def assign(self, meta, items):
        name, index, value = items
        return S.AssignClause(S.ascii_name(str(name)), S.ascii_name(str(index)) if index is not None else None,
                              value, self._span(meta), self._tspan(index) if index is not None else None)

    def config(self, meta, items):
        return S.ConfigPat(tuple(items), self._span(meta))

    def empty_list(self, meta, items):
        return S.ListPat("empty", (), self._span(meta))

    def exact_list(self, meta, items):
        return S.ListPat("exact", items[0], self._span(meta))

    def open_list(self, meta, items):
        return S.ListPat("open", items[0], self._span(meta))

    def seq(self, meta, items):
        return tuple(
            S.PatItem("1..n" if t.type == "WORDS" else S.ascii_name(str(t)), self._tspan(t))
            for t in items if t.type != "SEP"
        )

    # ---- guards ----
    def call(self, meta, items):
        name, *args = items
        return S.GCall(str(name), tuple(self._name(a) for a in args if a is not None), self._span(meta))

    def _operand(self, x):
        return x if isinstance(x, S.GCall) else S.ParamRef(S.ascii_name(str(x)), self._tspan(x))

    def compare(self, meta, items):
        left, op, value = items
        return S.GCompare(self._operand(left), "==" if str(op) == "=" else str(op), value, self._span(meta))

    def member(self, meta, items):
        left, lst = items
        where = self._tspan(lst) if isinstance(lst, Token) else None
        return S.GMember(self._operand(left), S.ascii_name(str(lst)), self._span(meta), where)

    # ---- oracle rules ----
    def oracle_decl(self, meta, items):
        name, title = items
        return S.OracleDecl(str(name), self._string(title) if title is not None else None, self._span(meta))

    def reach_rule(self, meta, items):
        kind, head, _arrow, dep, guard = items
        return S.ReachRule(str(kind) == "reachable", S.ascii_name(str(head)), S.ascii_name(str(dep)), guard,
                           self._span(meta))

    def loss_rule(self, meta, items):
        name, *rest = items
        bound = rest.pop() if rest and (rest[-1] is None or rest[-1].type == "NAME") and len(rest) % 2 == 0 else None
        toks = [t for t in rest if t is not None and t.type == "NAME"]
        return S.LossRule(str(name) if name is not None else None, tuple(str(t) for t in toks),
                          str(bound) if bound is not None else None, self._span(meta),
                          tuple(self._tspan(t) for t in toks))

    def penalty_rule(self, meta, items):
        name, index, guard = items
        # `penalty LEFT-ARC(2,1)` names one instance of a family, as `show` names it
        action = str(name) + (f"({','.join(map(str, index))})" if index is not None else "")
        return S.PenaltyRule(action, guard, self._span(meta))

    def penalty_index(self, meta, items):
        return tuple(int(str(t)) for t in items)

    def path(self, meta, items):
        return S.GPath(S.ascii_name(str(items[0])), S.ascii_name(str(items[2])), self._span(meta),
                       self._tspan(items[0]), self._tspan(items[2]))

    def arc_exists(self, meta, items):
        return S.GArc(S.ascii_name(str(items[0])), S.ascii_name(str(items[2])), self._span(meta),
                      self._tspan(items[0]), self._tspan(items[2]))

    def token_flag(self, meta, items):
        return S.GTokenFlag(S.ascii_name(str(items[0])), S.ascii_name(str(items[1])), self._span(meta),
                            self._tspan(items[1]))

    def global_flag(self, meta, items):
        return S.GGlobalFlag(S.ascii_name(str(items[0])), self._span(meta))

    def const(self, meta, items):
        return S.GConst(str(items[0]) == "true", self._span(meta))

    def not_(self, meta, items):
        return S.GNot(items[0], self._span(meta))

    def and_(self, meta, items):
        return items[0] if len(items) == 1 else S.GAnd(tuple(items), self._span(meta))

    def or_(self, meta, items):
        return items[0] if len(items) == 1 else S.GOr(tuple(items), self._span(meta))

    # ---- integer expressions ----
    def int_(self, meta, items):
        return S.IntLit(int(items[0]), self._span(meta))

    def inf_(self, meta, items):
        return S.InfLit(self._span(meta))

    def ref_(self, meta, items):
        return S.ParamRef(str(items[0]), self._span(meta))

    def _fold(self, meta, items):
        node = items[0]
        for i in range(1, len(items), 2):
            node = S.BinOp(str(items[i]), node, items[i + 1], self._span(meta))
        return node

    sum_ = _fold
    product_ = _fold
