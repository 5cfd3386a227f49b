"""The catalogue of spec error codes: one record per code, named where it is raised.

A code is a ``str`` (``"TS210"``), so diagnostics and their rendering stay plain text,
with a ``title`` saying in a few words what it is about.  Codes are stable: a code is
never reused for another mistake, and none is raised anywhere but through these names.
``docs/errors.md`` describes each one with an example; ``tests/test_error_codes.py``
triggers every one of them.
"""

from __future__ import annotations


class Code(str):
    """An error code (``"TS210"``) with its catalogue title."""

    title: str

    def __new__(cls, code: str, title: str) -> "Code":
        self = super().__new__(cls, code)
        self.title = title
        return self

    def __getnewargs__(self):  # pickling keeps the title
        return (str.__str__(self), self.title)

    @property
    def code(self) -> str:
        return str.__str__(self)


CODES: dict[str, Code] = {}


def _code(code: str, title: str) -> Code:
    if code in CODES:
        raise ValueError(f"error code {code} declared twice")
    CODES[code] = Code(code, title)
    return CODES[code]


# ---- reading the file (TS0xx) and syntax (TS1xx): tsdsl.lang.parse ---------------------
UNREADABLE = _code("TS001", "the spec file does not exist or cannot be read")
NOT_UTF8 = _code("TS002", "the spec file is not valid UTF-8")
SYNTAX = _code("TS100", "syntax error, including a bad escape in a string")
TOO_DEEP = _code("TS101", "an expression or guard nested too deeply")

# ---- meaning (TS2xx): tsdsl.lang lowering ------------------------------------------------
TWICE = _code("TS200", "declared or bound twice")
UNKNOWN_PARAMETER = _code("TS201", "unknown parameter in an expression")
BAD_CAPACITY = _code("TS202", "capacity below 1 or above 64, or start below 0")
BAD_DISTANCE = _code("TS203", "distance below 1")
SHIFT_PARAMETER = _code("TS204", "a control parameter given to a shift")
UNKNOWN_CONTROL = _code("TS205", "unknown control-parameter base operation or key")
BAD_VALUE = _code("TS206", "bad value of B, S or P; subtracting inf; a length compared with inf")
FLAG = _code("TS207", "undeclared or misused flag")
NEVER_APPLIES = _code("TS208", "a transition or case can never apply")
LIST_SHAPE = _code("TS209", "wrong number of lists, or a list in the wrong place")
UNBOUND = _code("TS210", "a token variable used but not bound on the left-hand side")
MOVING_TOKENS = _code("TS211", "tokens lost, duplicated or taken from an exact pattern")
FUNCTION = _code("TS212", "unknown guard or term function, or wrong arguments")
BAD_SETTING = _code("TS213", "bad root position, tree class or periphery reading")
MIXED_STYLES = _code("TS214", "control-parameter and rewrite-rule constructs mixed")
NO_TRANSITIONS = _code("TS215", "no transitions, or a rewrite system without terminal")
EXTENDS = _code("TS216", "extends: file not found, or a cycle")
DROP = _code("TS217", "drop of a transition or oracle that does not exist")
ARC_OPTION = _code("TS218", "unknown arc option")
REDUCE_PARAMETER = _code("TS219", "B or S given to a reduce")
TWO_CLASSES = _code("TS221", "one transition given two different classes")
INITIAL = _code("TS222", "a bad initial configuration")
FINALLY = _code("TS223", "a finally rule other than `finally attach headless to root`")
EXTENDS_TWICE = _code("TS224", "extends given more than once")

# ---- oracle blocks (TS23x) ---------------------------------------------------------------
ORACLE_RULE_OUTSIDE = _code("TS230", "an oracle rule before any `oracle NAME` line")
GOLD_HEAD_OUTSIDE = _code("TS231", "gold_head outside an oracle rule")
BAD_LOSS = _code("TS232", "a loss with an unknown term or bound")
PENALTY_ACTION = _code("TS233", "a penalty for an action that does not exist")
ORACLE_WITHOUT_REACH = _code("TS234", "an oracle without a reachable or unreachable rule")
