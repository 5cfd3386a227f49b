"""Malformed specs and the exact diagnostics they produce.

Each row of :data:`ROWS` is one mistake: the spec text, the error code, the exact
``file:line:col`` the diagnostic points at and a regex its message must match.
Rows whose spec spans several files (``extends``, unreadable files) give a dict of
files instead of a text; their locations are relative to the test's tmp_path.

Most rows append one line to a small valid spec, so the offending line is
line 7 of ``RW`` (rewrite rules) or line 5 of ``CP`` (control parameters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

import pytest

from tsdsl.lang import load_system, load_system_text
from tsdsl.cli import parse_overrides
from tsdsl.errors import SpecError, SpecSemanticError, SpecSyntaxError, UsageError
from tsdsl.lang.codes import CODES

# A valid rewrite-rule spec of 6 lines: an appended statement is on line 7.
RW = """system rw
lists σ, β
root left
initial ([root], [1..n])
terminal (σ, [])
SHIFT : (σ, b|β) => (σ|b, β)
"""

# A valid control-parameter spec of 4 lines: an appended statement is on line 5.
CP = """system cp
root right
capacity 2
SHIFT = +
"""


@dataclass(frozen=True)
class Row:
    id: str
    spec: Union[str, dict]  # spec text (file "bad.ts"), or {file name: text or bytes}, loading "bad.ts"
    code: str
    where: str  # "file:line:col"; for file rows the file is relative to tmp_path
    message: str  # regex, re.search'ed in the message
    count: int = 1  # how many diagnostics the spec produces in all
    overrides: Optional[dict] = field(default=None)


ROWS = [
    # ---- syntax ----------------------------------------------------------------------
    Row("syntax/missing-rule-arrow", RW + "A : (σ|s, β) (σ, β)\n", "TS100", "bad.ts:7:14",
        r"^missing `=>` between the two sides of a rewrite rule \(unexpected '\('\)$"),
    Row("syntax/unclosed-paren", RW + "A : (σ|s, β => (σ, β)\n", "TS100", "bad.ts:7:13",
        r"^unclosed parenthesis in a configuration \(unexpected '='\)"),
    Row("syntax/unclosed-paren-rhs", RW + "A : (σ|s, β) => (σ, β\n", "TS100", "bad.ts:7:22",
        r"^unclosed parenthesis in a configuration \(unexpected end of line\)"),
    Row("syntax/missing-system-header", "lists σ, β\nterminal (σ, [])\n", "TS100", "bad.ts:1:1",
        r"^a spec must start with `system NAME` \(unexpected 'lists'\)"),
    Row("syntax/unterminated-string", "system x\ncite \"Nivre 2003\nSHIFT = +\n", "TS100", "bad.ts:2:6",
        r"^a string must be in double quotes and end on the same line \(unexpected character '\"'\)"),
    Row("syntax/unquoted-string", "system x\ncite Nivre\nSHIFT = +\n", "TS100", "bad.ts:2:6",
        r"^a string must be in double quotes"),
    Row("syntax/cp-braces-missing-colon", CP + "L = ← {B false}\n", "TS100", "bad.ts:5:10",
        r"^control parameters are written \{KEY: VALUE, \.\.\.\} \(unexpected 'false'\)"),
    Row("syntax/cp-braces-unclosed", CP + "L = ← {B: false\n", "TS100", "bad.ts:5:16",
        r"^control parameters are written \{KEY: VALUE, \.\.\.\} \(unexpected end of line\)"),
    Row("syntax/cp-missing-base", CP + "L = {B: false}\n", "TS100", "bad.ts:5:5",
        r"^a control-parameter transition needs a base operation after `=`"),
    Row("syntax/empty-guard", RW + "A : (σ|s, β) => (σ, β) if\n", "TS100", "bad.ts:7:26",
        r"^a guard after `if` is missing or incomplete \(unexpected end of line\)"),
    Row("syntax/dangling-and", RW + "A : (σ|s, β) => (σ, β) if has_head(s) and\n", "TS100", "bad.ts:7:42",
        r"^a guard after `if` is missing or incomplete"),
    Row("syntax/arc-without-arrow", RW + "A : (σ|s, b|β) => (σ, b|β) arc b s\n", "TS100", "bad.ts:7:34",
        r"^an arc is written `arc HEAD -> DEPENDENT` \(unexpected 's'\)"),
    Row("syntax/config-without-parens", RW + "A : σ|s, β => (σ, β)\n", "TS100", "bad.ts:7:5",
        r"^a configuration must be written in parentheses"),
    Row("syntax/missing-expression", "system x\ncapacity\n", "TS100", "bad.ts:2:9",
        r"^a number or parameter expression is expected \(unexpected end of line\)"),
    Row("syntax/stray-character", CP + "L = ← @\n", "TS100", "bad.ts:5:7", r"^unexpected character '@'$"),
    Row("syntax/keyword-typo", RW + "produce projective\n", "TS100", "bad.ts:7:9",
        r"unexpected 'projective'; did you mean the keyword `produces`\?$"),
    Row("syntax/no-hint-for-a-name", RW + "REDUCE projective\n", "TS100", "bad.ts:7:8",
        r"^unexpected 'projective'$"),
    # a statement ends at the end of its line: a transition continued on the next one gets a hint
    Row("syntax/guard-on-the-next-line", RW + "    if has_head(b)\n", "TS100", "bad.ts:7:8",
        r"^unexpected 'has_head'; a transition must fit on one line, and a guard cannot continue line 6$"),
    Row("syntax/arc-on-the-next-line", RW.replace("SHIFT : (σ, b|β) => (σ|b, β)", "A : (σ|s, b|β) => (σ, b|β)")
        + "\n  # the arc\n  arc b -> s\n", "TS100", "bad.ts:9:7",
        r"^unexpected 'b'; a transition must fit on one line, and an `arc` clause cannot continue line 6$"),
    Row("syntax/case-without-bar", RW + "  (σ|s, β) => (σ, β)\n", "TS100", "bad.ts:7:3",
        r"^unexpected '\('; a transition must fit on one line, and another case of the rule on line 6 goes on a new "
        r"line that starts with `\|`$"),
    Row("syntax/no-continuation-hint-after-a-setting", "system x\nparam N = 2\nif has_head(b)\n", "TS100",
        "bad.ts:3:4", r"^unexpected 'has_head'$"),
    Row("syntax/no-continuation-hint-elsewhere-on-the-line", RW + "A = ← {B: x} y\n", "TS100", "bad.ts:7:14",
        r"^unexpected 'y'$"),
    Row("syntax/bad-escape", "system x\ncite \"Nivre\\x4 2003\"\nSHIFT = +\n", "TS100", "bad.ts:2:12",
        r"^bad escape `\\x` in a string"),
    Row("syntax/nested-too-deeply", "system x\nparam N = " + "(" * 60 + "1" + ")" * 60 + "\nSHIFT = +\n",
        "TS101", "bad.ts:2:60", r"^expression or guard nested too deeply"),
    Row("syntax/not-utf8", {"bad.ts": "system x\ncite \"caf\xe9\"\n".encode("latin-1")}, "TS002", "bad.ts:2:10",
        r"^spec is not valid UTF-8 \(invalid continuation byte at byte 18\)$"),
    Row("syntax/missing-file", {}, "TS001", "bad.ts", r"^no such spec file$"),
    # ---- parameters and settings (TS201-TS206) -----------------------------------------
    Row("param/unknown-in-expression", CP.replace("capacity 2", "capacity N + 1"), "TS201", "bad.ts:3:10",
        r"^unknown parameter 'N'; no parameters are declared$"),
    Row("param/unknown-in-guard", RW + "A : (σ|s, β) => (σ, β) if len(σ) > M\n", "TS201", "bad.ts:7:36",
        r"^unknown parameter 'M'"),
    Row("param/unknown-lists-known", "system x\nparam N = 2\ncapacity N + M\nSHIFT = +\n", "TS201", "bad.ts:3:14",
        r"^unknown parameter 'M'; known: N$"),
    Row("cp/periphery-on-shift", CP.replace("SHIFT = +", "SHIFT = + {P: left}"), "TS204", "bad.ts:4:12",
        r"^periphery \(P\) does not apply to a shift$"),
    Row("cp/bottom-up-on-shift", CP.replace("SHIFT = +", "SHIFT = + {B: true}"), "TS204", "bad.ts:4:12",
        r"^bottom-up \(B\) does not apply to a shift$"),
    Row("cp/capacity-zero", CP.replace("capacity 2", "capacity 0") + "L = ←\n", "TS202", "bad.ts:3:1",
        r"^capacity K must be at least 1, not 0$"),
    Row("cp/capacity-too-large", CP.replace("capacity 2", "capacity 100000"), "TS202", "bad.ts:3:1",
        r"^capacity K must be at most 64, not 100000"),
    Row("cp/start-negative", CP + "start 0 - 1\n", "TS202", "bad.ts:5:1", r"^start must be at least 0, not -1$"),
    Row("cp/distance-zero", CP + "distance 0\n", "TS203", "bad.ts:5:1", r"^distance D must be at least 1, not 0$"),
    Row("cp/subtract-inf", CP.replace("capacity 2", "capacity 3 - inf"), "TS206", "bad.ts:3:10",
        r"^cannot subtract inf$"),
    # ---- flags (TS207) -------------------------------------------------------------------
    Row("flag/undeclared-global-in-guard", RW + "A : (σ|s, β) => (σ, β) if done\n", "TS207", "bad.ts:7:27",
        r"^undeclared flag 'done' \(declare it with `flag done`\)$"),
    Row("flag/undeclared-near-miss", RW + "flag done\nA : (σ|s, β) => (σ, β) if dne\n", "TS207", "bad.ts:8:27",
        r"^undeclared flag 'dne' \(did you mean `done`\?\) \(declare it with `flag dne`\)$"),
    Row("flag/undeclared-token-in-guard", RW + "A : (σ|s, β) => (σ, β) if not seen[s]\n", "TS207", "bad.ts:7:31",
        r"^undeclared flag 'seen' \(declare it with `flag seen\[token\]`\)$"),
    Row("flag/undeclared-global-in-then", RW + "A : (σ|s, β) => (σ, β) then done := true\n", "TS207",
        "bad.ts:7:29", r"^undeclared flag 'done' \(declare it with `flag done`\)$"),
    Row("flag/undeclared-token-in-then", RW + "A : (σ|s, β) => (σ, β) then seen[s] := true\n", "TS207",
        "bad.ts:7:29", r"^undeclared flag 'seen' \(declare it with `flag seen\[token\]`\)$"),
    Row("flag/global-used-per-token", RW + "flag done\nA : (σ|s, β) => (σ, β) if done[s]\n", "TS207",
        "bad.ts:8:27", r"^'done' is a global flag; write it without \[token\]$"),
    Row("flag/per-token-used-global", RW + "flag seen[token]\nA : (σ|s, β) => (σ, β) then seen := true\n",
        "TS207", "bad.ts:8:29", r"^'seen' is a per-token flag; write seen\[x\]$"),
    Row("flag/bad-index", RW + "flag seen[word]\n", "TS207", "bad.ts:7:1",
        r"^a per-token flag is declared as seen\[token\], not \[word\]$"),
    # ---- transitions that can never apply (TS208) ------------------------------------------
    Row("never/contradictory-guard", RW + "A : (σ|s, β) => (σ, β) if has_head(s) and not has_head(s)\n",
        "TS208", "bad.ts:7:5",
        r"^transition 'A' can never apply: it requires both has_head\(s\) and not has_head\(s\)$"),
    Row("never/cp-no-index-pair", CP.replace("capacity 2", "capacity 1") + "L = ←\n", "TS208", "bad.ts:5:1",
        r"^transition 'L' can never apply: no index pair fits K=1, D=1, P=na$"),
    Row("never/guard-vs-pattern-length", RW + "A : (σ|s, β) => (σ, β) if len(σ) == 0\n", "TS208", "bad.ts:7:5",
        r"^transition 'A' can never apply: list sigma cannot have the length the pattern and guard require$"),
    Row("never/exact-pattern-vs-guard", RW + "A : ([s], β) => ([s], β) if len(σ) >= 2\n", "TS208", "bad.ts:7:5",
        r"can never apply: list sigma cannot have the length"),
    Row("never/false-guard", RW + "A : (σ|s, β) => (σ|s, β) if false\n", "TS208", "bad.ts:7:5",
        r"can never apply: its guard is false$"),
    Row("never/is-root-without-root", RW.replace("root left", "root none").replace("[root]", "[]")
        + "A : (σ|s, β) => (σ|s, β) if is_root(s)\n", "TS208", "bad.ts:7:5",
        r"can never apply: it requires is_root\(s\) but the system has no root$"),
    # ---- names used twice (TS200, TS224) -----------------------------------------------------
    Row("twice/transition", RW + "SHIFT : (σ, b|β) => (σ|b, β)\n", "TS200", "bad.ts:7:1",
        r"^transition 'SHIFT' is declared twice in this file \(first at line 6\)$"),
    Row("twice/param", CP + "param N = 1\nparam N = 2\n", "TS200", "bad.ts:6:1",
        r"^parameter 'N' is declared twice in this file \(first at line 5\)$"),
    Row("twice/flag", RW + "flag f\nflag f[token]\n", "TS200", "bad.ts:8:1",
        r"^flag 'f' is declared twice in this file \(first at line 7\)$"),
    Row("twice/root", RW + "root left\n", "TS200", "bad.ts:7:6",
        r"^root is declared twice in this file \(first at line 3\)$"),
    Row("twice/capacity", CP + "capacity 3\n", "TS200", "bad.ts:5:1",
        r"^capacity is declared twice in this file \(first at line 3\)$"),
    Row("twice/list-name", "system x\nlists a, b, a\nterminal (a, b, [])\nS : (a, b, x|a) => (a|x, b, a)\n",
        "TS200", "bad.ts:2:13", r"^list 'a' is declared twice$", count=2),
    Row("twice/token-variable", RW + "A : (σ|s, s|β) => (σ|s, β)\n", "TS200", "bad.ts:7:11",
        r"^token variable 's' is bound twice$"),
    Row("twice/extends", {"base.ts": CP, "bad.ts": "system x\nextends \"base.ts\"\nextends \"base.ts\"\n"},
        "TS224", "bad.ts:3:1", r"^`extends` given more than once$"),
    Row("twice/class", RW + "A : (σ|s, β) => (σ|s, β) class X\n  | (σ, b|β) => (σ, b|β) class Y\n", "TS221",
        "bad.ts:8:32", r"^transition 'A' is given two classes: X, Y$"),
    # ---- control parameters (TS205, TS206, TS214, TS219) ---------------------------------------
    Row("cp/unknown-key", CP + "L = ← {Q: true}\n", "TS205", "bad.ts:5:8",
        r"^unknown control parameter 'Q'; use B \(bottom-up\), S \(arc-shift\) or P \(periphery\)$"),
    Row("cp/bad-B", CP + "L = ← {B: maybe}\n", "TS206", "bad.ts:5:8", r"^B takes true or false, not 'maybe'$"),
    Row("cp/bad-S", CP + "L = ← {S: 2}\n", "TS206", "bad.ts:5:8", r"^S takes true or false, not '2'$"),
    Row("cp/bad-P", CP + "L = ← {B: false, P: up}\n", "TS206", "bad.ts:5:18",
        r"^P takes left, right or na, not 'up'$"),
    Row("cp/B-on-reduce", CP + "R = − {B: true}\n", "TS219", "bad.ts:5:8",
        r"^B does not apply to a reduce \(only P does\)$"),
    Row("cp/unknown-base", CP + "L = swap\n", "TS205", "bad.ts:5:1",
        r"^unknown base operation 'swap'; use ←, →, −, \+"),
    Row("cp/mixed-with-rewrite", CP + "A : (σ|s, β) => (σ, β)\n", "TS214", "bad.ts:5:1",
        r"^transition 'A' is a rewrite rule \(NAME : \.\.\.\), but this system uses control-parameter transitions "
        r"\(NAME = \.\.\.\); the two styles cannot be mixed in one system$"),
    Row("cp/mixed-tie-first-style-wins", "system x\nroot left\nSHIFT = +\nA : (σ|s, β) => (σ, β)\n", "TS214",
        "bad.ts:4:1", r"^transition 'A' is a rewrite rule"),
    # one control-parameter line among rewrite rules: that line is the error, not `lists` or the rules
    Row("rw/mixed-with-control", RW + "RIGHT-ARC : (σ|s, b|β) => (σ|s|b, β) arc s -> b\nFOO = ← {B: false}\n",
        "TS214", "bad.ts:8:1", r"^transition 'FOO' is written in control parameters \(NAME = \.\.\.\), but this "
        r"system uses rewrite rules \(NAME : \.\.\.\); the two styles cannot be mixed in one system$"),
    Row("cp/lists-in-cp-system", CP + "lists σ, β\n", "TS214", "bad.ts:5:1",
        r"^`lists` is for rewrite-rule systems; control-parameter systems use O and U$"),
    Row("rw/capacity-in-rewrite-system", RW + "capacity 2\n", "TS214", "bad.ts:7:1",
        r"^`capacity` is a control parameter; it has no meaning in a rewrite-rule system$"),
    # ---- rewrite rules (TS209-TS212, TS218) -------------------------------------------------------
    Row("rw/rhs-wrong-list-count", RW + "A : (σ|s, β) => (σ, β, s)\n", "TS209", "bad.ts:7:17",
        r"^the right-hand side has 3 lists but the system has 2 \(sigma, beta\)$"),
    Row("rw/lhs-wrong-list-count", RW + "A : (σ|s, β, x) => (σ, β)\n", "TS209", "bad.ts:7:5",
        r"^this configuration has 3 lists but the system has 2 \(sigma, beta\)$"),
    Row("rw/list-in-wrong-pattern", RW + "A : (σ|s, σ) => (σ|s, β)\n", "TS209", "bad.ts:7:11",
        r"^'sigma' cannot appear in the pattern of list beta$", count=2),
    Row("rw/open-pattern-without-list", RW + "A : (s, β) => (σ|s, β)\n", "TS209", "bad.ts:7:6",
        r"^the pattern of list sigma must mention sigma", count=2),
    # a misspelt list name where the list should be: named as such, and no knock-on TS211
    Row("rw/misspelt-list-in-pattern", RW + "A : (stack|t|s, b|β) => (σ, b|β) arc b -> t\n", "TS209", "bad.ts:7:6",
        r"^unknown list 'stack' in the pattern; the lists are sigma, beta \(did you mean sigma\?\)$"),
    Row("rw/misspelt-list-at-the-end", RW + "A : (σ|s, b|buffer) => (σ, b|β) arc b -> s\n", "TS209", "bad.ts:7:13",
        r"^unknown list 'buffer' in the pattern; the lists are sigma, beta \(did you mean beta\?\)$"),
    Row("rw/misspelt-list-in-terminal", RW.replace("terminal (σ, [])", "terminal (stack, [])"), "TS209",
        "bad.ts:5:11", r"^unknown list 'stack' in the pattern; the lists are sigma, beta \(did you mean sigma\?\)$"),
    Row("rw/unknown-list-in-len", RW + "A : (σ|s, β) => (σ|s, β) if len(δ) > 1\n", "TS209", "bad.ts:7:33",
        r"^unknown list 'delta'; the lists are sigma, beta$"),
    Row("rw/unbound-in-rhs", RW + "A : (σ|s, β) => (σ|s|t, β)\n", "TS210", "bad.ts:7:22",
        r"^token variable 't' is not bound on the left-hand side$"),
    # an unbound variable is pointed at itself, not at the clause or expression it is in
    Row("rw/unbound-head-in-arc", RW + "A : (σ|s, β) => (σ, β) arc t -> s\n", "TS210", "bad.ts:7:28",
        r"^token variable 't' in the arc is not bound on the left-hand side$"),
    Row("rw/unbound-dependent-in-arc", RW + "A : (σ|s, β) => (σ, β) arc s -> t\n", "TS210", "bad.ts:7:33",
        r"^token variable 't' in the arc is not bound on the left-hand side$"),
    Row("rw/unbound-dependent-in-left-arc", RW + "A : (σ|s, β) => (σ, β) arc t <- s\n", "TS210", "bad.ts:7:28",
        r"^token variable 't' in the arc is not bound on the left-hand side$"),
    Row("rw/unbound-descendant-in-path-guard", RW + "A : (σ|s, β) => (σ|s, β) if s ->* t\n", "TS210",
        "bad.ts:7:35", r"^token variable 't' is not bound by the pattern$"),
    Row("rw/unbound-dependent-in-arc-guard", RW + "A : (σ|s, β) => (σ|s, β) if s -> t\n", "TS210",
        "bad.ts:7:34", r"^token variable 't' is not bound by the pattern$"),
    Row("rw/unbound-index-of-token-flag", RW + "flag seen[token]\nA : (σ|s, β) => (σ|s, β) if seen[t]\n",
        "TS210", "bad.ts:8:34", r"^token variable 't' is not bound by the pattern$"),
    Row("rw/unbound-in-guard", RW + "A : (σ|s, β) => (σ|s, β) if has_head(t)\n", "TS210", "bad.ts:7:38",
        r"^token variable 't' is not bound by the pattern$"),
    Row("rw/unbound-flag-index", RW + "flag seen[token]\nA : (σ|s, β) => (σ|s, β) then seen[t] := true\n",
        "TS210", "bad.ts:8:36", r"^token variable 't' is not bound on the left-hand side$"),
    Row("rw/rest-lost", RW + "A : (σ|s, β) => ([s], β)\n", "TS211", "bad.ts:7:17",
        r"^the rest of sigma disappears on the right-hand side \(tokens would be lost\)$"),
    Row("rw/rest-used-twice", RW + "A : (σ|s, β) => (σ|s|σ, β)\n", "TS211", "bad.ts:7:22",
        r"^the rest of sigma is used twice$"),
    Row("rw/token-in-two-places", RW + "A : (σ|s, β) => (σ|s, s|β)\n", "TS211", "bad.ts:7:23",
        r"^token 's' would be in two places at once$"),
    Row("rw/rest-of-exact-list", RW + "A : ([s], β) => (σ|s, β)\n", "TS211", "bad.ts:7:18",
        r"^sigma has no rest here: its left-hand pattern is exact$"),
    Row("rw/unknown-guard-function", RW + "A : (σ|s, β) => (σ|s, β) if headless(s)\n", "TS212", "bad.ts:7:29",
        r"^unknown guard function 'headless'; known: has_head\(x\), is_root\(x\)"),
    Row("rw/guard-function-did-you-mean", RW + "A : (σ|s, β) => (σ|s, β) if has_hed(s)\n", "TS212", "bad.ts:7:29",
        r"^unknown guard function 'has_hed' \(did you mean `has_head`\?\); known: has_head\(x\)"),
    Row("rw/term-function-did-you-mean", RW + "A : (σ|s, β) => (σ|s, β) if frist(σ) == s\n", "TS212", "bad.ts:7:29",
        r"^unknown term function 'frist' \(did you mean `first`\?\); known: first, front"),
    Row("rw/len-not-compared", RW + "A : (σ|s, β) => (σ|s, β) if len(σ)\n", "TS212", "bad.ts:7:29",
        r"^unknown guard function 'len' \(compare it: len\(σ\) == 1\)"),
    Row("rw/wrong-arity", RW + "A : (σ|s, b|β) => (σ|s, b|β) if path(s)\n", "TS212", "bad.ts:7:33",
        r"^path takes 2 argument\(s\), not 1$"),
    Row("rw/unknown-arc-option", RW + "A : (σ|s, b|β) => (σ, b|β) arc b -> s quickly\n", "TS218",
        "bad.ts:7:39", r"^unknown arc option 'quickly'; use overwrite, break_cycle or unlabeled$"),
    # ---- statement values (TS213, TS215, TS222, TS223) ----------------------------------------------
    Row("value/bad-root", RW.replace("root left", "root top").replace("[root]", "[]"), "TS213", "bad.ts:3:6",
        r"^root must be left, right or none, not 'top'$"),
    Row("value/bad-produces", CP + "produces forest\n", "TS213", "bad.ts:5:1",
        r"^unknown tree class 'forest'; use one of: any, dag, "),
    Row("value/bad-covers", CP + "produces projective covers forests\n", "TS213", "bad.ts:5:1",
        r"^unknown tree class 'forests'"),
    Row("value/bad-periphery", CP + "periphery outer\n", "TS213", "bad.ts:5:11",
        r"^periphery reading must be active or capacity, not 'outer'$"),
    Row("value/missing-terminal", RW.replace("terminal (σ, [])\n", ""), "TS215", "bad.ts:1:1",
        r"^a rewrite-rule system needs a `terminal` line, e.g. `terminal \(σ, \[\]\)`$"),
    Row("value/no-transitions", "system empty\nroot left\n", "TS215", "bad.ts:1:1",
        r"^the system has no transitions$"),
    Row("value/initial-bad-item", RW.replace("[1..n])", "[1..n|x])"), "TS222", "bad.ts:4:24",
        r"^an initial list holds only `root` and `1\.\.n` \(the words\), not 'x'$"),
    Row("value/initial-without-words", RW.replace("[1..n]", "[]"), "TS222", "bad.ts:4:9",
        r"^the initial configuration must place the words \(1\.\.n\)$"),
    Row("value/initial-root-but-root-none", RW.replace("root left", "root none"), "TS222", "bad.ts:4:11",
        r"^`root` in the initial configuration, but the system says `root none`$"),
    Row("value/initial-root-missing", RW.replace("[root]", "[]"), "TS222", "bad.ts:4:9",
        r"^`root left` but the initial configuration does not place `root`$"),
    Row("value/initial-wrong-list-count", RW.replace("([root], [1..n])", "([root], [1..n], [])"), "TS209",
        "bad.ts:4:9", r"^`initial` gives 3 lists but the system has 2 \(sigma, beta\)$"),
    Row("value/bad-finally", RW + "finally attach orphans to root\n", "TS223", "bad.ts:7:1",
        r"^the only `finally` rule is `finally attach headless to root`$"),
    # ---- extends and drop (TS216, TS217) ---------------------------------------------------------------
    Row("extends/missing-file", {"bad.ts": "system x\nextends \"no-such-parent.ts\"\nSHIFT = +\n"}, "TS216", "bad.ts:2:1",
        r"^cannot find the extended spec 'no-such-parent\.ts'$"),
    Row("extends/missing-file-alone", {"bad.ts": "system x\nextends \"arc-eagr.ts\"\n"}, "TS216", "bad.ts:2:1",
        r"^cannot find the extended spec 'arc-eagr\.ts'; did you mean `arc-eager`\?$"),  # not "no transitions" too
    Row("extends/cycle", {"a.ts": CP + "extends \"bad.ts\"\n", "bad.ts": "system x\nextends \"a.ts\"\n"},
        "TS216", "bad.ts:2:1", r"^`extends` cycle through 'a\.ts'$"),
    Row("extends/self", {"bad.ts": CP + "extends \"bad.ts\"\n"}, "TS216", "bad.ts:5:1",
        r"^`extends` cycle through 'bad\.ts'$"),
    Row("extends/error-in-parent", {"base.ts": CP + "L = ← {Q: 1}\n", "bad.ts": "system x\nextends \"base\"\n"},
        "TS205", "base.ts:5:8", r"^unknown control parameter 'Q'"),
    Row("drop/unknown-transition", CP + "drop REDUCE\n", "TS217", "bad.ts:5:1",
        r"^cannot drop 'REDUCE': no such transition or oracle; the transitions and oracles are SHIFT$"),
    Row("drop/near-miss", {"base.ts": CP + "LEFT-ARC = ← {P: right}\n", "bad.ts": "system x\nextends \"base.ts\"\n"
                           "drop LEFT-ARK\n"}, "TS217", "bad.ts:3:1",
        r"^cannot drop 'LEFT-ARK': no such transition or oracle \(did you mean `LEFT-ARC`\?\)$"),
    Row("drop/unknown-in-child", {"base.ts": CP, "bad.ts": "system x\nextends \"base.ts\"\ndrop LEFT\n"},
        "TS217", "bad.ts:3:1", r"^cannot drop 'LEFT': no such transition or oracle; the transitions and oracles are "
        r"SHIFT$"),
    # ---- oracle blocks -------------------------------------------------------------------------------
    Row("oracle/rule-before-oracle-line", CP + "reachable h -> d if h in O\n", "TS230", "bad.ts:5:1",
        r"^oracle rules must follow an `oracle NAME` line$"),
    Row("oracle/gold-head-in-guard", RW + "A : (σ|s, β) => (σ, β) if gold_head(s) == 0\n", "TS231", "bad.ts:7:27",
        r"^gold_head is only known to oracle rules$"),
    Row("oracle/unknown-loss-term", CP + "oracle o\nreachable h -> d if h in O\nloss = cyclez\n", "TS232",
        "bad.ts:7:8", r"^unknown loss term 'cyclez' \(did you mean `cycles`\?\); known: unreachable, cycles, "
        r"problematic_cycles$"),
    Row("oracle/unknown-second-loss-term", CP + "oracle o\nreachable h -> d if h in O\nloss = unreachable + bogus\n",
        "TS232", "bad.ts:7:22", r"^unknown loss term 'bogus'; known: "),
    Row("oracle/unknown-bound", CP + "oracle o\nreachable h -> d if h in O\nloss = unreachable bound middle\n",
        "TS232", "bad.ts:7:1", r"^a loss is `bound lower` or `bound upper` \(or exact\), not 'middle'$"),
    Row("oracle/penalty-unknown-action", CP + "oracle o\nreachable h -> d if h in O\npenalty SHIFTT if true\n",
        "TS233", "bad.ts:7:1", r"^penalty for unknown action 'SHIFTT' \(did you mean `SHIFT`\?\); the actions are "
        r"SHIFT$"),
    Row("oracle/penalty-unknown-instance", CP.replace("capacity 2", "capacity 3\ndistance 2") + "LEFT-ARC = ← {P: right}\n"
        "oracle o\nreachable h -> d if h in O\npenalty LEFT-ARC(4,1) if true\n", "TS233", "bad.ts:9:1",
        r"^penalty for unknown action 'LEFT-ARC\(4,1\)' \(did you mean `LEFT-ARC\(3,1\)` or `LEFT-ARC\(2,1\)` or "
        r"`LEFT-ARC`\?\); the actions are LEFT-ARC, SHIFT"),
    Row("oracle/penalty-family-variable-not-in-every-instance",
        CP.replace("capacity 2", "capacity 3\ndistance 2") + "LEFT-ARC = ← {P: right}\noracle o\n"
        "reachable h -> d if h in O\npenalty LEFT-ARC if has_head(o2)\n", "TS210", "bad.ts:9:30",
        r"^token variable 'o2' is not bound by the pattern$"),
    Row("oracle/no-reachability-rule", CP + "oracle o\nloss = unreachable\n", "TS234", "bad.ts:5:1",
        r"^oracle 'o' needs a `reachable h -> d if \.\.\.` or `unreachable h -> d if \.\.\.` rule$"),
    # ---- overrides (--set) reaching the spec ------------------------------------------------------------
]


def _load(row: Row, tmp_path: Path):
    if isinstance(row.spec, str):
        return load_system_text(row.spec, "bad.ts", overrides=row.overrides)
    for name, content in row.spec.items():
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        (tmp_path / name).write_bytes(data)
    return load_system(tmp_path / "bad.ts", overrides=row.overrides)


def _where(row: Row, tmp_path: Path) -> str:
    return row.where if isinstance(row.spec, str) else f"{tmp_path}/{row.where}"


def test_table_is_big_and_ids_are_unique():
    assert len(ROWS) >= 30
    assert len({r.id for r in ROWS}) == len(ROWS)


def test_every_catalogued_code_is_triggered_by_a_row():
    """Each code of the catalogue has at least one malformed spec here that raises it, and
    no row expects a code the catalogue does not know."""
    assert {r.code for r in ROWS} == set(CODES)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_malformed_spec(row: Row, tmp_path: Path):
    with pytest.raises(SpecError) as info:
        _load(row, tmp_path)
    exc = info.value
    expected_cls = SpecSyntaxError if row.code < "TS200" else SpecSemanticError
    assert isinstance(exc, expected_cls), exc
    where = _where(row, tmp_path)
    hits = [d for d in exc.diagnostics if d.code == row.code and str(d.span) == where]
    assert hits, f"no {row.code} at {where}; got:\n{exc}"
    assert any(re.search(row.message, d.message) for d in hits), f"message does not match {row.message!r}:\n{exc}"
    assert len(exc.diagnostics) == row.count, f"expected {row.count} diagnostic(s):\n{exc}"
    # the rendered text starts with this diagnostic's gcc-style head line when it is the first
    assert f"{exc.first.span}: error[{exc.first.code}]: {exc.first.message}" == str(exc).splitlines()[0]


# ---- usage errors: overrides naming nothing, malformed --set values ----------------------------------


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"Q": 3}, r"^--set: unknown parameter 'Q' for cp; known: D, K, start$"),
        ({"N": 1, "capacity": 3}, r"^--set: unknown parameter 'N'"),
    ],
)
def test_unknown_override_is_a_usage_error(overrides, message):
    with pytest.raises(UsageError, match=message) as info:
        load_system_text(CP, "bad.ts", overrides=overrides)
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"K": 0}, r"^--set K=0: capacity K must be at least 1, not 0$"),
        ({"capacity": 100000}, r"^--set capacity=100000: capacity K must be at most 64"),
        ({"D": 0}, r"^--set D=0: distance D must be at least 1, not 0$"),
        ({"start": -1}, r"^--set start=-1: start must be at least 0, not -1$"),
    ],
)
def test_an_override_out_of_range_is_the_options_mistake(overrides, message):
    """Not the spec's: the message names the --set item, not the spec's `capacity 2` line."""
    with pytest.raises(UsageError, match=message):
        load_system_text(CP + "L = ←\n", "bad.ts", overrides=overrides)


def test_override_of_a_declared_param_is_accepted():
    system = load_system_text("system x\nparam N = 2\ncapacity N + 1\nSHIFT = +\nL = ←\n", "ok.ts", overrides={"N": 3})
    assert dict(system.params)["N"] == 3


@pytest.mark.parametrize(
    "item, message",
    [("K", r"--set expects NAME=VALUE, got 'K'"), ("=3", r"--set expects NAME=VALUE"),
     ("K=two", r"--set K: expected an integer or inf, got 'two'")],
)
def test_malformed_set_item_is_a_usage_error(item, message):
    with pytest.raises(UsageError, match=message):
        parse_overrides([item])


# ---- several problems at once ------------------------------------------------------------------------

MANY = """system many
lists σ, β
root left
initial ([root], [1..n])
terminal (σ, [])
SHIFT : (σ, b|β) => (σ|b, β)
LEFT : (σ|s, b|β) => (σ, b|β) arc b -> t if done
RIGHT : (σ|s, b|β) => (σ|s|b, β) arc s -> b sideways
SHIFT : (σ, b|β) => (σ|b, β)
POP : (σ|s, β) => (σ, β) if frob(s)
"""


def test_all_semantic_errors_are_reported_at_once():
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(MANY, "many.ts")
    got = [(d.code, str(d.span)) for d in info.value.diagnostics]
    assert got == [
        ("TS210", "many.ts:7:40"),  # arc to unbound `t` (points at `t`)
        ("TS207", "many.ts:7:45"),  # undeclared flag `done`, same line
        ("TS218", "many.ts:8:45"),  # unknown arc option
        ("TS200", "many.ts:9:1"),  # SHIFT twice
        ("TS212", "many.ts:10:29"),  # unknown guard function
    ]
    text = str(info.value)
    assert text.count("error[TS") == 5
    assert text.splitlines()[-1] == "5 errors"


def test_an_arc_with_both_ends_unbound_points_at_each():
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(RW + "A : (σ|s, β) => (σ, β) arc q -> r\n", "bad.ts")
    got = [(d.code, str(d.span), d.message.split("'")[1]) for d in info.value.diagnostics]
    assert got == [("TS210", "bad.ts:7:28", "q"), ("TS210", "bad.ts:7:33", "r")]
    lines = str(info.value).splitlines()
    assert [_caret_column(lines[k + 2], lines[k + 1]) for k in (0, 3)] == [28, 33]
    assert lines[1][4 + 27] == "q" and lines[4][4 + 32] == "r"


_HEAD = "system d\nlists σ, β\nterminal (σ, [])\nSHIFT : (σ, b|β) => (σ|b, β)\n"


@pytest.mark.parametrize("body, expected", [
    # trial 32 (bad/e3.ts): the second `oracle o` replaced the first block, whose h -> h error
    # went unreported until the duplicate was removed
    ("LA : (σ|s, b|β) => (σ, b|β) arc b -> s\noracle o\nreachable h -> h if true\noracle o\n"
     "reachable h -> d if len(σ) > 1\nloss = unreachable bound sideways\n",
     [("TS200", "d.ts:7:1"), ("TS200", "d.ts:8:1"), ("TS232", "d.ts:10:1")]),
    # the same for transitions: the second LA replaced the first, whose unbound q went unreported
    ("LA : (σ|s, b|β) => (σ, b|β) arc b -> s if has_head(q)\nLA : (σ|s, b|β) => (σ, b|β) arc b -> s\n",
     [("TS200", "d.ts:6:1"), ("TS210", "d.ts:5:52")]),
], ids=["oracle", "transition"])
def test_a_duplicate_name_does_not_hide_the_errors_of_the_first_declaration(body, expected):
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(_HEAD + body, "d.ts")
    assert sorted((d.code, str(d.span)) for d in info.value.diagnostics) == expected
    assert "declared twice" in str(info.value)


def test_errors_in_parent_and_child_are_reported_together(tmp_path: Path):
    (tmp_path / "base.ts").write_text(CP + "L = ← {Q: 1}\n", encoding="utf-8")
    (tmp_path / "child.ts").write_text("system child\nextends \"base.ts\"\nR = → {P: up}\n", encoding="utf-8")
    with pytest.raises(SpecSemanticError) as info:
        load_system(tmp_path / "child.ts")
    got = sorted((d.code, str(d.span)) for d in info.value.diagnostics)
    assert got == [("TS205", f"{tmp_path}/base.ts:5:8"), ("TS206", f"{tmp_path}/child.ts:3:8")]
    # each diagnostic shows the source line of its own file
    assert "    L = ← {Q: 1}" in str(info.value) and "    R = → {P: up}" in str(info.value)


# ---- rendering -----------------------------------------------------------------------------------------


def _caret_column(caret_line: str, source_line: str) -> int:
    """1-based column under the caret (a tab in the prefix counts as one column, as in the source)."""
    assert caret_line.startswith("    ") and source_line.startswith("    ")
    return len(caret_line[4:].rstrip("^")) + 1


def test_semantic_error_rendering():
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(RW + "A : (σ|s, β) => (σ, β) if done\n", "bad.ts")
    lines = str(info.value).splitlines()
    assert lines[0] == "bad.ts:7:27: error[TS207]: undeclared flag 'done' (declare it with `flag done`)"
    assert lines[1] == "    A : (σ|s, β) => (σ, β) if done"
    assert lines[2] == "    " + " " * 26 + "^"
    assert _caret_column(lines[2], lines[1]) == 27
    assert lines[1][4 + 26:].startswith("done")
    assert len(lines) == 3  # a semantic error lists no expected tokens


def test_syntax_error_rendering_lists_expected_tokens():
    with pytest.raises(SpecSyntaxError) as info:
        load_system_text(RW + "A : (σ|s, β) (σ, β)\n", "bad.ts")
    lines = str(info.value).splitlines()
    assert lines[0] == ("bad.ts:7:14: error[TS100]: missing `=>` between the two sides of a rewrite rule "
                        "(unexpected '(')")
    assert lines[1] == "    A : (σ|s, β) (σ, β)"
    assert lines[2] == "    " + " " * 13 + "^"
    assert lines[1][4 + 13] == "("
    assert lines[3].startswith("    expected one of: ")
    assert "'=>'" in lines[3]


def test_caret_keeps_tabs_in_the_prefix():
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(RW + "\tA : (σ|s, β) => (σ, β) if done\n", "bad.ts")
    d = info.value.first
    assert str(d.span) == "bad.ts:7:28"
    lines = str(info.value).splitlines()
    assert lines[1] == "    \tA : (σ|s, β) => (σ, β) if done"
    assert lines[2] == "    \t" + " " * 26 + "^"


def test_error_in_file_without_line_has_no_source_excerpt(tmp_path: Path):
    with pytest.raises(SpecSyntaxError) as info:
        load_system(tmp_path / "missing.ts")
    assert str(info.value) == f"{tmp_path}/missing.ts: error[TS001]: no such spec file"


def test_a_leading_byte_order_mark_is_not_part_of_the_spec(tmp_path: Path):
    """Windows editors save UTF-8 with a BOM: the spec loads, and an error on line 1 keeps
    its column and source line (the BOM is not counted)."""
    path = tmp_path / "bom.ts"
    path.write_bytes(b"\xef\xbb\xbf" + CP.encode("utf-8"))
    assert load_system(path).name == "cp"
    path.write_bytes(b"\xef\xbb\xbfsystem x y z\n")
    with pytest.raises(SpecSyntaxError) as info:
        load_system(path)
    lines = str(info.value).splitlines()
    assert lines[0] == f"{path}:1:10: error[TS100]: unexpected 'y'"
    assert lines[1:3] == ["    system x y z", "    " + " " * 9 + "^"]
    assert load_system_text("\ufeff" + CP, "bad.ts").name == "cp"


def test_not_utf8_shows_the_line_with_a_replacement_character(tmp_path: Path):
    path = tmp_path / "latin.ts"
    path.write_bytes("system x\ncite \"Fernández\"\n".encode("latin-1"))
    with pytest.raises(SpecSyntaxError) as info:
        load_system(path)
    lines = str(info.value).splitlines()
    assert lines[0].startswith(f"{path}:2:11: error[TS002]: spec is not valid UTF-8")
    assert lines[1] == "    cite \"Fern\ufffdndez\""
    assert lines[2] == "    " + " " * 10 + "^"


@pytest.mark.parametrize("content", [
    b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8,            # a binary file passed as a spec
    b"system x\n  lists: \x1b[31m oops " + b"y" * 400 + b"\n",     # an escape sequence, a long line
], ids=["binary", "escape-sequence"])
def test_the_shown_source_line_is_safe_for_a_terminal(content: bytes, tmp_path: Path):
    """A diagnostic's copy of the source line holds no character a terminal would act on (they
    show as U+FFFD) and at most a window of SHOWN_WIDTH characters around the column (marked
    with …), the caret inside it."""
    from tsdsl.errors import SHOWN_WIDTH

    spec = tmp_path / "x.ts"
    spec.write_bytes(content)
    with pytest.raises(SpecError) as info:
        load_system(spec)
    shown, caret = str(info.value).splitlines()[1:3]
    assert all(ch.isprintable() for ch in shown)
    assert len(shown) <= 4 + 1 + SHOWN_WIDTH + 1
    assert caret.strip() == "^" and caret.index("^") < len(shown)


def test_a_spec_without_transitions_is_not_taken_for_the_other_style():
    # trial 31: a rewrite-rule spec whose transitions were all missing also got three TS214s
    # ("`lists` is for rewrite-rule systems; control-parameter systems use O and U ...")
    text = "system x\n  root left\n  lists σ, β\n  initial ([root], [1..n])\n  terminal (σ, [])\n"
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(text, "x.ts")
    assert [d.code for d in info.value.diagnostics] == ["TS215"]


def test_an_unknown_list_in_a_membership_test_is_pointed_at_itself():
    # trial 31: the caret of `d in δ` stood under d, not under the unknown list
    text = ("system m\n  root left\n  lists σ, β\n  initial ([root], [1..n])\n  terminal (σ, [])\n"
            "  SHIFT : (σ, b|β) => (σ|b, β)\n  LA : (σ|s, b|β) => (σ, b|β) arc b -> s if s in δ\n")
    with pytest.raises(SpecSemanticError) as info:
        load_system_text(text, "m.ts")
    (d,) = [d for d in info.value.diagnostics if d.code == "TS209"]
    assert text.splitlines()[d.span.line - 1][d.span.col - 1] == "δ"
