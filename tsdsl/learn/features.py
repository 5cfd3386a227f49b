"""Feature templates: a small YAML language compiled to numeric tables.

A feature file lists *templates*; each template joins up to four *atoms* with
``+`` (their conjunction is one feature).  An atom reads one attribute of a
token found by an *address* (``s0.h.w``: the form of the head of the stack top)
or is the distance between two addresses (``dist(s0,b0)``).  Addresses are
positions in the system's lists, so one file serves every system with the same
list shapes.  This module parses the file, validates it against a loaded
:class:`~tsdsl.ir.System` and compiles it to the int32 tables that the C feature
extractor walks (codes below); every mistake becomes a :class:`FeatureError`
that points at ``file:line:col`` of the offending atom.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import yaml

from .. import ir
from ..errors import UsageError, source_line
from ..lang.syntax import ascii_name
from .feature_choice import default_features  # noqa: F401  (re-exported: the API's name)

# ---- codes shared with the C extractor (do not renumber) ---------------------------

BASE_LIST, BASE_CL, BASE_CR, BASE_INST_I, BASE_INST_J = 0, 1, 2, 3, 4
STEP_H, STEP_LC1, STEP_LC2, STEP_RC1, STEP_RC2, STEP_LCC, STEP_RCC, STEP_PREV, STEP_NEXT = range(1, 10)
ATOM_TOK, ATOM_LABEL, ATOM_VL, ATOM_VR, ATOM_SL, ATOM_SR, ATOM_DIST = range(7)

MAX_ATOMS = 4  # atoms per template
MAX_STEPS = 4  # steps per address (h2 counts as two)
MAX_POSITION = 9  # s0..s9, b0..b9, NAME[0]..NAME[9]

#: step spelling -> step codes (h2 is two head steps)
STEPS = {
    "h": (STEP_H,), "h2": (STEP_H, STEP_H), "lc1": (STEP_LC1,), "lc2": (STEP_LC2,),
    "rc1": (STEP_RC1,), "rc2": (STEP_RC2,), "lcc": (STEP_LCC,), "rcc": (STEP_RCC,),
    "prev": (STEP_PREV,), "next": (STEP_NEXT,),
}
_STEP_TEXT = {codes[0]: name for name, codes in STEPS.items() if len(codes) == 1}

#: rows of the per-sentence token table (plus ``feat:NAME`` for one morphological feature)
TOKEN_ATTRS = ("form", "lower", "lemma", "upos", "xpos", "feats")
#: attribute spelling -> token-table row name
_TOKEN_ATTR_ALIASES = {"w": "form", "form": "form", "lower": "lower", "lemma": "lemma",
                       "p": "upos", "upos": "upos", "xpos": "xpos", "feats": "feats"}
#: attribute spelling -> atom kind, for attributes read from the arcs built so far
_ARC_ATTRS = {"l": ATOM_LABEL, "label": ATOM_LABEL, "vl": ATOM_VL, "vr": ATOM_VR, "sl": ATOM_SL, "sr": ATOM_SR}
_ATTR_TEXT = {"form": "w", "upos": "p", ATOM_LABEL: "l", ATOM_VL: "vl", ATOM_VR: "vr", ATOM_SL: "sl", ATOM_SR: "sr"}
_ATTR_NAMES = tuple(_TOKEN_ATTR_ALIASES) + tuple(_ARC_ATTRS) + ("feat[NAME]",)

TOP_KEYS = ("name", "description", "applies-to", "templates")
_FLOW_HINT = ("; inside a YAML flow list [...] quote templates that contain `,`, `[` or `]`,"
              " or write one template per line as `- ...`")

_FEAT_RE = re.compile(r"feat\[([A-Za-z0-9]+)\]")
_ALIAS_RE = re.compile(r"([sb])(-?\d+)")
_LIST_RE = re.compile(r"(\w+)\s*\[\s*(-?\d+)\s*\]")
_INST_RE = re.compile(r"(\w+)\s*\[\s*([ij])\s*(?:([+-])\s*(\d+)\s*)?\]")
_CHILD_STEPS = frozenset((STEP_LC1, STEP_LC2, STEP_RC1, STEP_RC2, STEP_LCC, STEP_RCC))
_STRUCTURAL_ATOMS = frozenset((ATOM_LABEL, ATOM_VL, ATOM_VR, ATOM_SL, ATOM_SR))  # read the arcs built
_FUNC_RE = re.compile(r"(\w+)\s*\(")


class FeatureError(UsageError):
    """A feature file is wrong; ``str()`` is ``file:line:col: message`` plus the line and a caret."""

    def __init__(self, message: str, file: str, line: int = 0, col: int = 0, text: Optional[str] = None):
        self.message, self.file, self.line, self.col = message, file, line, col
        self.source_line = source_line(text, line) if text is not None and line > 0 else None
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line > 0 else self.file
        out = f"{where}: {self.message}"
        if self.source_line is not None:
            shown = self.source_line.rstrip("\r\n")
            caret = "".join("\t" if ch == "\t" else " " for ch in shown[: max(self.col - 1, 0)])
            out += f"\n    {shown}\n    {caret}^"
        return out


@dataclass(frozen=True, eq=False)
class FeatureSet:
    """A compiled feature file: the tables the C extractor reads (see module constants).

    ``addresses`` rows are (base_kind, a0, a1, n_steps, step0..step3); ``atoms`` rows
    (address id, kind, arg); ``templates`` rows (n_atoms, atom0..atom3, -1 when unused).
    Compare two sets with :meth:`digest`, not ``==``.
    """

    name: str
    source: str
    text: str
    token_attrs: tuple[str, ...]
    addresses: np.ndarray
    atoms: np.ndarray
    templates: np.ndarray
    template_names: tuple[str, ...]
    template_groups: tuple[str, ...] = ()  # the group of each template ("" for a plain list)
    description: str = ""

    def __len__(self) -> int:
        return len(self.template_names)

    @property
    def instance_bases(self) -> np.ndarray:
        """The distinct instance-relative bases (``O[i+1]``...) as int32 rows (kind, list,
        shift, arcs): the tokens a family instance's features start from, and whether any
        feature reads the arcs at or below that token (a child step, a label, a valency or a
        label set; 0 when every feature from it reads only the token's own columns, as
        ``O[i-1].p`` does).  The kernel's instance cache then keys a base without arcs by its
        token alone, so a change below that token does not re-score the instance."""
        arcs: dict[tuple[int, int, int], int] = {}
        for k, r in enumerate(self.addresses):
            if r[0] not in (BASE_INST_I, BASE_INST_J):
                continue
            key = tuple(int(x) for x in r[:3])
            arcs[key] = arcs.get(key, 0) | int(self.reads_arcs(k))
        rows = [(*key, arcs[key]) for key in sorted(arcs)]
        return np.asarray(rows, dtype=np.int32).reshape(len(rows), 4)

    def reads_arcs(self, aid: int, atoms: "Optional[Sequence[int]]" = None) -> bool:
        """Whether address ``aid``, as the atoms ``atoms`` (ids; default: every atom of the
        program) read it, reads the arcs at or below its base token: the address steps to a
        head or a child, or one of those atoms reads a label, a valency or a label set at it
        (a distance reads only positions)."""
        if int(self.addresses[aid][3]) > 0:
            return True
        rows = self.atoms if atoms is None else (self.atoms[a] for a in atoms)
        return any(int(a[0]) == aid and int(a[1]) in _STRUCTURAL_ATOMS for a in rows)

    @property
    def instance_local(self) -> bool:
        """Whether every address starts at an instance's token and steps only to children: then
        an instance's features depend only on its base tokens and their subtrees, so the
        kernel may keep its scores until one of those changes (Goldberg & Elhadad 2010)."""
        return len(self.addresses) > 0 and all(
            r[0] in (BASE_INST_I, BASE_INST_J) and all(int(c) in _CHILD_STEPS for c in r[4:4 + r[3]])
            for r in self.addresses)

    def digest(self) -> str:
        """SHA-256 of the compiled content (tables, token rows, template names), not of comments."""
        h = hashlib.sha256(b"tsdsl-features/1\0")
        for part in ("\0".join(self.token_attrs), "\0".join(self.template_names)):
            h.update(part.encode("utf-8") + b"\1")
        for arr in (self.addresses, self.atoms, self.templates):
            h.update(repr(arr.shape).encode("ascii"))
            h.update(np.ascontiguousarray(arr, dtype="<i4").tobytes())
        return h.hexdigest()


# ---------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------


def load_features(source: Union[str, Path], system: ir.System, *, text: Optional[str] = None) -> FeatureSet:
    """Read, validate and compile a feature file for ``system``.

    Args:
        source: the file to read (UTF-8), or with ``text`` the name to show in messages.
        system: the transition system whose lists the addresses refer to.
        text: the YAML text itself, when it is not read from ``source``.

    Returns:
        The compiled :class:`FeatureSet`.

    Raises:
        FeatureError: the file cannot be read, is not valid YAML, or a template is wrong.
    """
    file = str(source)
    if text is None:
        text = _read(file)
    root = _compose(text, file)
    return _Compiler(system, file, text).compile(root)


# ---------------------------------------------------------------------------------
# reading the file
# ---------------------------------------------------------------------------------


def _read(file: str) -> str:
    try:
        data = Path(file).read_bytes()
    except OSError as e:
        raise FeatureError(f"cannot read feature file: {e.strerror or e}", file) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        col = len(data[line_start:e.start].decode("utf-8", "replace")) + 1
        raise FeatureError("the file is not valid UTF-8", file, data.count(b"\n", 0, e.start) + 1, col) from None


def _compose(text: str, file: str) -> Optional[yaml.Node]:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        msg = f"YAML syntax error: {e.problem or e.context}"
        if e.context and e.problem and e.context_mark is not None:
            msg += f" ({e.context} at line {e.context_mark.line + 1})"
        if "flow" in (e.context or "") or "flow" in (e.problem or ""):
            msg += _FLOW_HINT
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise FeatureError(msg, file, line, col, text) from None
    except yaml.reader.ReaderError as e:
        before = text[: e.position]
        line = before.count("\n") + 1
        col = e.position - (before.rfind("\n") + 1) + 1
        raise FeatureError(f"character U+{e.character:04X} is not allowed in YAML", file, line, col, text) from None
    except yaml.YAMLError as e:  # any other PyYAML complaint, without a position
        raise FeatureError(f"YAML error: {e}", file, 1, 1, text) from None
    except RecursionError:
        raise FeatureError("the YAML is nested too deeply", file, 1, 1, text) from None


# ---------------------------------------------------------------------------------
# template syntax (system-independent)
# ---------------------------------------------------------------------------------


class _Problem(Exception):
    """A mistake at ``offset`` characters into a template string."""

    def __init__(self, offset: int, message: str, *, brackets: bool = False):
        super().__init__(message)
        self.offset, self.message = offset, message
        self.brackets = brackets  # caused by `(`, `)`, `,`: YAML flow lists split templates there


@dataclass(frozen=True)
class _Base:
    kind: str  # "s", "b", "list", "inst", "CL", "CR"
    name: str  # the list name for "list" and "inst" (ASCII spelling)
    pos: int   # "inst": 0 for the family's first index i, 1 for the second, j
    offset: int
    shift: int = 0  # "inst": k of O[i+k]


@dataclass(frozen=True)
class _Address:
    base: _Base
    steps: tuple[tuple[str, int], ...]  # (step spelling, offset)


@dataclass(frozen=True)
class _Atom:
    """One parsed atom: ``attr`` is a token row name or an arc kind; ``other`` is set for dist()."""

    offset: int
    address: _Address
    attr: Union[str, int, None] = None
    other: Optional[_Address] = None


def _parse_template(text: str) -> list[_Atom]:
    pieces = _split_plus(text)
    if len(pieces) > MAX_ATOMS:
        raise _Problem(pieces[MAX_ATOMS][1], f"a template joins at most {MAX_ATOMS} atoms with `+` "
                                             f"(this one has {len(pieces)})")
    return [_parse_atom(piece, off) for piece, off in pieces]


def _split_plus(text: str) -> list[tuple[str, int]]:
    """Split at top-level ``+``: (stripped piece, offset) pairs; empty pieces are errors."""
    if not text.strip():
        raise _Problem(0, "empty template")
    opened: list[int] = []
    cuts = [-1]
    square = 0  # inside [...]: `+` is an offset (O[i+1]), not a join
    for i, ch in enumerate(text):
        if ch in "[]":
            square = max(0, square + (1 if ch == "[" else -1))
        elif ch == "(":
            opened.append(i)
        elif ch == ")":
            if not opened:
                raise _Problem(i, "`)` without a matching `(`", brackets=True)
            opened.pop()
        elif ch == "+" and not opened and not square:
            cuts.append(i)
    if opened:
        raise _Problem(opened[-1], "`(` is never closed", brackets=True)
    cuts.append(len(text))
    out = []
    for k in range(len(cuts) - 1):
        piece, off = _strip(text, cuts[k] + 1, cuts[k + 1])
        if not piece:
            plus = cuts[k] if k > 0 else cuts[k + 1]
            side = "after" if k > 0 else "before"
            raise _Problem(plus, f"empty atom {side} `+`")
        out.append((piece, off))
    return out


def _strip(text: str, start: int, end: int) -> tuple[str, int]:
    """``text[start:end]`` without surrounding blanks, and the offset where it begins."""
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    return piece.strip(), start + lead


def _split(text: str, off: int, sep: str) -> list[tuple[str, int]]:
    out, start = [], 0
    for i, ch in enumerate(text + sep):
        if ch == sep:
            piece, at = _strip(text, start, i)
            out.append((piece, off + at))
            start = i + 1
    return out


def _parse_atom(text: str, off: int) -> _Atom:
    m = _FUNC_RE.match(text)
    if m:
        if m.group(1) != "dist":
            raise _Problem(off, f"unknown function `{m.group(1)}`; the only one is dist(ADDRESS,ADDRESS)")
        if not text.endswith(")"):
            raise _Problem(off + text.rindex(")") + 1, "unexpected text after `dist(...)`")
        args = _split(text[m.end():-1], off + m.end(), ",")
        if len(args) != 2:
            raise _Problem(off, f"dist() takes two addresses, as in dist(s0,b0) (got {len(args)})")
        first, second = (_parse_address(a, at, in_dist=True) for a, at in args)
        return _Atom(off, first, None, second)
    for bad in "(),":
        if bad in text:
            raise _Problem(off + text.index(bad), f"unexpected `{bad}`", brackets=True)
    parts = _split(text, off, ".")
    if len(parts) > 1 and not parts[-1][0]:
        raise _Problem(parts[-1][1], "missing attribute after `.`")
    if len(parts) == 1:
        _parse_base(*parts[0])  # a bad base is the better message
        raise _Problem(off + len(text), f"`{text}` is an address; add an attribute, e.g. `{text}.w`")
    address = _parse_address_parts(parts[:-1])
    attr_text, attr_off = parts[-1]
    return _Atom(off, address, _parse_attr(attr_text, attr_off, text))


def _parse_address(text: str, off: int, *, in_dist: bool = False) -> _Address:
    if not text:
        raise _Problem(off, "missing address" + (" in dist()" if in_dist else ""))
    parts = _split(text, off, ".")
    last, at = parts[-1]
    if len(parts) > 1 and last not in STEPS and (last in _TOKEN_ATTR_ALIASES or last in _ARC_ATTRS
                                                 or _FEAT_RE.fullmatch(last)):
        raise _Problem(at, f"dist() takes addresses, not attributes: drop `.{last}`")
    return _parse_address_parts(parts)


def _parse_address_parts(parts: Sequence[tuple[str, int]]) -> _Address:
    base = _parse_base(*parts[0])
    steps, n = [], 0
    for step, at in parts[1:]:
        if step not in STEPS:
            raise _Problem(at, _unknown_step(step))
        n += len(STEPS[step])
        if n > MAX_STEPS:
            raise _Problem(at, f"an address takes at most {MAX_STEPS} steps (h2 counts as two)")
        steps.append((step, at))
    return _Address(base, tuple(steps))


def _parse_base(text: str, off: int) -> _Base:
    if text in ("CL", "CR"):
        return _Base(text, "", 0, off)
    m = _INST_RE.fullmatch(text)
    if m is not None:
        shift = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
        if abs(shift) > MAX_POSITION:
            raise _Problem(off + m.start(4), f"offset {shift} is out of range -{MAX_POSITION}..{MAX_POSITION}")
        return _Base("inst", ascii_name(m.group(1)), "ij".index(m.group(2)), off, shift)
    m = _ALIAS_RE.fullmatch(text) or _LIST_RE.fullmatch(text)
    if m is None:
        if not text:
            raise _Problem(off, "missing address before `.`")
        raise _Problem(off, f"unknown address `{text}`; an address starts with s0..s9, b0..b9, "
                            f"LIST[0..9] (a list of the system), LIST[i+k] / LIST[j-k] (a family instance's tokens), CL or CR")
    pos = int(m.group(2))
    if not 0 <= pos <= MAX_POSITION:
        raise _Problem(off + m.start(2), f"position {pos} is out of range 0..{MAX_POSITION}")
    if m.re is _ALIAS_RE:
        return _Base(m.group(1), "", pos, off)
    return _Base("list", ascii_name(m.group(1)), pos, off)


def _parse_attr(text: str, off: int, atom: str):
    if text in _TOKEN_ATTR_ALIASES:
        return _TOKEN_ATTR_ALIASES[text]
    if text in _ARC_ATTRS:
        return _ARC_ATTRS[text]
    m = _FEAT_RE.fullmatch(text)
    if m:
        return f"feat:{m.group(1)}"
    if text in STEPS:
        raise _Problem(off, f"`{atom}` ends with the step `{text}`; add an attribute, e.g. `{atom}.w`")
    if text.startswith("feat"):
        raise _Problem(off, f"bad morphological feature `{text}`; write feat[NAME] with NAME made of "
                            "letters and digits, e.g. feat[Case]")
    raise _Problem(off, _unknown_message("attribute", text, _ATTR_NAMES))


def _unknown_step(step: str) -> str:
    if not step:
        return "missing step between `.`s"
    if step in _TOKEN_ATTR_ALIASES or step in _ARC_ATTRS or _FEAT_RE.fullmatch(step):
        return f"`{step}` is an attribute and must come last (join atoms with `+`)"
    return _unknown_message("step", step, tuple(STEPS))


def _unknown_message(what: str, name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"unknown {what} `{name}`{hint} (expected one of {', '.join(known)})"


# ---------------------------------------------------------------------------------
# YAML structure and compilation
# ---------------------------------------------------------------------------------


class _Interned:
    """Values numbered in first-use order; an equal value gets the same id."""

    def __init__(self):
        self.items: list = []
        self.ids: dict = {}

    def id(self, value) -> int:
        if value not in self.ids:
            self.ids[value] = len(self.items)
            self.items.append(value)
        return self.ids[value]


class _Compiler:
    """Walks the YAML node tree, validates templates against a system and interns tables."""

    def __init__(self, system: ir.System, file: str, text: str):
        self.system, self.file, self.text = system, file, text
        names = [d.name for d in system.lists]
        self.list_index = {n: k for k, n in enumerate(names)}
        stacks = [k for k, d in enumerate(system.lists) if d.open_end == "R"]
        buffers = [k for k, d in enumerate(system.lists) if d.open_end == "L"]
        self.s_list = stacks[0] if stacks else None
        self.b_list = buffers[-1] if buffers else None
        self.addresses, self.atoms, self.attrs = _Interned(), _Interned(), _Interned()
        self.rows: list[tuple[int, ...]] = []
        self.names: list[str] = []
        self.groups: list[str] = []
        self.seen: dict[tuple[int, ...], tuple[yaml.Node, tuple[int, ...]]] = {}  # sorted atom ids -> (first node, atom ids)

    # ---- errors and positions ----

    def error(self, node: Optional[yaml.Node], message: str, offset: int = 0) -> FeatureError:
        if node is None:
            return FeatureError(message, self.file, 1, 1, self.text)
        line, col = self.position(node, offset)
        return FeatureError(message, self.file, line, col, self.text)

    def position(self, node: yaml.Node, offset: int = 0) -> tuple[int, int]:
        """1-based line and column of ``offset`` characters into a scalar's value."""
        start, end = node.start_mark, node.end_mark
        line, col = start.line + 1, start.column + 1
        if isinstance(node, yaml.ScalarNode) and start.line == end.line:
            raw = self.text[start.index:end.index]
            if node.style is None and raw == node.value:
                return line, col + offset
            if node.style in ("'", '"') and raw[1:-1] == node.value:
                return line, col + 1 + offset
        return line, col

    # ---- structure ----

    def compile(self, root: Optional[yaml.Node]) -> FeatureSet:
        if root is None:
            raise self.error(None, "the feature file is empty; it needs a `templates:` mapping entry")
        if not isinstance(root, yaml.MappingNode):
            raise self.error(root, "the top level of a feature file must be a mapping with "
                                   f"the keys {', '.join(TOP_KEYS)}")
        entries = self.mapping(root, "key")
        for key, (knode, _) in entries.items():
            if key not in TOP_KEYS:
                raise self.error(knode, _unknown_message("top-level key", key, TOP_KEYS))
        if "templates" not in entries:
            raise self.error(root, "missing `templates:` (a list of templates, or groups of them)")
        name = self.string(entries["name"][1], "name") if "name" in entries else self.default_name()
        description = self.string(entries["description"][1], "description") if "description" in entries else ""
        if "applies-to" in entries:
            self.applies_to(entries["applies-to"][1])
        self.templates(entries["templates"][1])
        if self.system.unbounded and not any(r[0] in (BASE_INST_I, BASE_INST_J) for r in self.addresses.items):
            raise self.error(entries["templates"][1], f"system `{self.system.name}` has capacity inf: each instance "
                             "of an action family is scored from its own tokens, so templates must address them, "
                             "e.g. `O[i].w`, `O[j].p`, `O[i+1].p` (none does)")
        return self.result(name, description)

    def default_name(self) -> str:
        return "features" if self.file.startswith("<") else Path(self.file).stem

    def mapping(self, node: yaml.MappingNode, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        """The entries of a mapping by key text; keys must be plain strings, each used once."""
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for knode, vnode in node.value:
            if not isinstance(knode, yaml.ScalarNode):
                raise self.error(knode, f"a {what} must be a plain name")
            if knode.value in out:
                first = out[knode.value][0].start_mark.line + 1
                raise self.error(knode, f"{what} `{knode.value}` is given twice (first at line {first})")
            out[knode.value] = (knode, vnode)
        return out

    def string(self, node: yaml.Node, key: str) -> str:
        if not isinstance(node, yaml.ScalarNode) or node.tag.endswith(":null"):
            raise self.error(node, f"`{key}` must be a string")
        return node.value

    def applies_to(self, node: yaml.Node) -> None:
        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for item in items:
            self.string(item, "applies-to")

    def templates(self, node: yaml.Node) -> None:
        if isinstance(node, yaml.SequenceNode):
            groups = [("", node)]
        elif isinstance(node, yaml.MappingNode):
            groups = [(g, v) for g, (_, v) in self.mapping(node, "group").items()]
        else:
            raise self.error(node, "`templates` must be a list of templates or a mapping from "
                                   "group names to lists of templates")
        if not groups:
            raise self.error(node, "`templates` is empty")
        for group, seq in groups:
            what = f"group `{group}`" if group else "`templates`"
            if not isinstance(seq, yaml.SequenceNode):
                raise self.error(seq, f"{what} must be a list of templates (one `- ...` per line)")
            if not seq.value:
                raise self.error(seq, f"{what} is empty")
            for item in seq.value:
                self.template(item, group, flow=bool(seq.flow_style))

    # ---- one template ----

    def template(self, node: yaml.Node, group: str, flow: bool) -> None:
        if not isinstance(node, yaml.ScalarNode):
            raise self.error(node, "a template must be a string such as `s0.w + b0.p`"
                                   + (_FLOW_HINT if flow else ""))
        value = "" if node.tag.endswith(":null") else node.value
        try:
            parsed = _parse_template(value)
        except _Problem as p:
            raise self.error(node, p.message + (_FLOW_HINT if flow and p.brackets else ""), p.offset) from None
        try:
            ids = tuple(self.atom(a) for a in parsed)
        except _Problem as p:
            raise self.error(node, p.message, p.offset) from None
        for k, atom in enumerate(parsed):
            if ids[k] in ids[:k]:
                raise self.error(node, "this atom is already in the template", atom.offset)
        key = tuple(sorted(ids))
        if key in self.seen:
            first, first_ids = self.seen[key]
            line, col = self.position(first)
            same = "the same template" if first_ids == ids else "the same atoms in another order"
            raise self.error(node, f"duplicate template: {same} as at line {line}, column {col}")
        self.seen[key] = (node, ids)
        self.rows.append((len(ids),) + ids + (-1,) * (MAX_ATOMS - len(ids)))
        self.names.append("+".join(self.atom_text(a) for a in ids))
        self.groups.append(group)

    def atom(self, a: _Atom) -> int:
        addr = self.address(a.address)
        if a.other is not None:
            return self.atoms.id((addr, ATOM_DIST, self.address(a.other)))
        if isinstance(a.attr, str):
            return self.atoms.id((addr, ATOM_TOK, self.attrs.id(a.attr)))
        return self.atoms.id((addr, a.attr, 0))

    def address(self, addr: _Address) -> int:
        b = addr.base
        if b.kind in ("CL", "CR"):
            if self.s_list is None or self.b_list is None:
                raise _Problem(b.offset, f"{b.kind} is defined by s0 and b0, which need a stack-like and a "
                                         f"buffer-like list; {self.lists_text()}")
            s0 = self.intern((BASE_LIST, self.s_list, 0), ())
            b0 = self.intern((BASE_LIST, self.b_list, 0), ())
            head = (BASE_CL if b.kind == "CL" else BASE_CR, s0, b0)
        elif b.kind == "s":
            if self.s_list is None:
                raise _Problem(b.offset, f"`s{b.pos}` needs a stack-like list; {self.lists_text()}")
            head = (BASE_LIST, self.s_list, b.pos)
        elif b.kind == "b":
            if self.b_list is None:
                raise _Problem(b.offset, f"`b{b.pos}` needs a buffer-like list; {self.lists_text()}")
            head = (BASE_LIST, self.b_list, b.pos)
        else:
            if b.name not in self.list_index:
                raise _Problem(b.offset, _unknown_message("list", b.name, tuple(self.list_index)).replace(
                    "expected one of", f"system `{self.system.name}` has"))
            if b.kind == "inst":
                if not self.system.unbounded:
                    raise _Problem(b.offset, f"`{b.name}[{'ij'[b.pos]}...]` addresses the tokens of an action family "
                                             f"instance; system `{self.system.name}` has a fixed set of actions "
                                             "(only capacity-inf systems score family instances)")
                head = (BASE_INST_I + b.pos, self.list_index[b.name], b.shift)
            else:
                head = (BASE_LIST, self.list_index[b.name], b.pos)
        steps = tuple(code for step, _ in addr.steps for code in STEPS[step])
        return self.intern(head, steps)

    def intern(self, head: tuple[int, int, int], steps: tuple[int, ...]) -> int:
        return self.addresses.id(head + (len(steps),) + steps + (0,) * (MAX_STEPS - len(steps)))

    def lists_text(self) -> str:
        shown = ", ".join(f"{d.name} ({'stack' if d.open_end == 'R' else 'buffer'}-like)" for d in self.system.lists)
        return f"system `{self.system.name}` has {shown or 'no lists'}"

    # ---- canonical text ----

    def address_text(self, aid: int) -> str:
        row = self.addresses.items[aid]
        kind, a0, a1, n = row[:4]
        if kind == BASE_CL:
            out = "CL"
        elif kind == BASE_CR:
            out = "CR"
        elif kind in (BASE_INST_I, BASE_INST_J):
            out = f"{self.system.lists[a0].name}[{'ij'[kind - BASE_INST_I]}{f'{a1:+d}' if a1 else ''}]"
        elif a0 == self.s_list:
            out = f"s{a1}"
        elif a0 == self.b_list:
            out = f"b{a1}"
        else:
            out = f"{self.system.lists[a0].name}[{a1}]"
        steps, k = row[4:4 + n], 0
        while k < n:
            if steps[k] == STEP_H and k + 1 < n and steps[k + 1] == STEP_H:
                out, k = out + ".h2", k + 2
            else:
                out, k = out + "." + _STEP_TEXT[steps[k]], k + 1
        return out

    def atom_text(self, atom_id: int) -> str:
        addr, kind, arg = self.atoms.items[atom_id]
        if kind == ATOM_DIST:
            return f"dist({self.address_text(addr)},{self.address_text(arg)})"
        if kind == ATOM_TOK:
            row = self.attrs.items[arg]
            attr = _ATTR_TEXT.get(row) or (f"feat[{row[5:]}]" if row.startswith("feat:") else row)
        else:
            attr = _ATTR_TEXT[kind]
        return f"{self.address_text(addr)}.{attr}"

    def result(self, name: str, description: str) -> FeatureSet:
        def table(rows, width):
            arr = np.array(rows, dtype=np.int32).reshape(len(rows), width)
            arr.setflags(write=False)
            return arr

        return FeatureSet(
            name=name, source=self.file, text=self.text, token_attrs=tuple(self.attrs.items),
            addresses=table(self.addresses.items, 4 + MAX_STEPS), atoms=table(self.atoms.items, 3),
            templates=table(self.rows, 1 + MAX_ATOMS), template_names=tuple(self.names),
            template_groups=tuple(self.groups), description=description,
        )
