"""Feature files: the packaged default sets, the compiled codes and the error positions.

The compiled codes are what the C extractor reads, so a few hand-written templates
pin them exactly.  Every user mistake in :data:`ERRORS` must give a
:class:`FeatureError` at an exact ``file:line:col``.  Hypothesis checks that
random valid templates survive a round trip through their canonical names, that
the tables keep their invariants, that the caret lands on the mistake and that
no input at all escapes as anything but a :class:`FeatureError`.  (The strategies
live here rather than in ``tests/strategies.py`` because they only serve this file.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, strategies as st

from tsdsl.lang import load_system, load_system_text
from tsdsl.errors import UsageError
from tsdsl.learn.features import (
    ATOM_DIST, ATOM_LABEL, ATOM_SL, ATOM_TOK, ATOM_VL, BASE_CL, BASE_CR, BASE_LIST, MAX_ATOMS, MAX_STEPS,
    STEP_H, STEP_LC1, STEP_LCC, STEP_NEXT, STEP_RCC, STEPS, FeatureError, FeatureSet, default_features,
    load_features,
)

REPO = Path(__file__).resolve().parent.parent
SYSTEM_FILES = sorted((REPO / "systems").glob("*.ts")) + sorted((REPO / "systems" / "readings").glob("*.ts"))

ARC_EAGER = load_system(REPO / "systems" / "arc-eager.ts")  # sigma R, beta L
COVINGTON = load_system(REPO / "systems" / "covington.ts")  # lambda1 R, lambda2 R, beta L
BUFFER_ONLY = load_system_text("system q\nlists β\nroot none\ninitial ([1..n])\nterminal ([])\n"
                               "DROP : (b|β) => (β)\n")
EASY_FIRST = load_system(REPO / "systems" / "easy-first.ts")  # capacity inf: O R, U L
BOUNDED_EF = load_system(REPO / "systems" / "easy-first-bounded.ts")
STACK_ONLY = load_system_text("system q\nlists σ\nroot none\ninitial ([1..n])\nterminal ([])\n"
                              "DROP : (σ|s) => (σ)\n")

CORE_GROUPS = {
    "zhang-nivre-2011": ("single-words", "word-pairs", "three-words", "distance", "valency", "unigrams",
                         "third-order", "label-set"),
}


def compile_templates(templates, system=ARC_EAGER) -> FeatureSet:
    text = "templates:\n" + "".join(f"  - {json.dumps(t, ensure_ascii=False)}\n" for t in templates)
    return load_features("<test>", system, text=text)


def rows_of(fs: FeatureSet) -> tuple:
    return (fs.token_attrs, fs.addresses.tolist(), fs.atoms.tolist(), fs.templates.tolist())


# ---------------------------------------------------------------------------------
# the packaged default sets
# ---------------------------------------------------------------------------------


def _bounded_systems():
    out = []
    for path in SYSTEM_FILES:
        system = load_system(path)
        if not (system.unbounded or system.multihead):
            out.append(pytest.param(path, id=path.stem))
    return out


@pytest.mark.parametrize("path", _bounded_systems())
def test_default_set_loads_for_every_system(path):
    system = load_system(path)
    fs = load_features(default_features(system), system)
    assert len(fs.template_names) == fs.templates.shape[0] > 72
    assert len(set(fs.template_names)) == len(fs.template_names)
    assert fs.text == default_features(system).read_text(encoding="utf-8")


@pytest.mark.parametrize("spec, expected", [
    ("arc-eager.ts", "zhang-nivre-2011.yaml"),
    ("arc-standard-slp.ts", "stack-arcs.yaml"),    # arcs between the two top words of the stack
    ("arc-standard-swap.ts", "stack-arcs.yaml"),
    ("arc-eager-nm-2013.ts", "zhang-nivre-2011.yaml"),  # its one stack-internal arc is unlabeled
    ("easy-first-bounded.ts", "control-parameters.yaml"),  # O: the pending window, its end attached too
    ("arc-hybrid.ts", "control-parameters-b0.yaml"),       # O = [.. s1, s0, b0]: S0 is O[1]
    ("arc-eager-cp.ts", "control-parameters-b0.yaml"),     # O = [.. s0, b0]
    ("arc-standard.ts", "control-parameters.yaml"),        # O = the stack: RIGHT-ARC reduces O[0]
    ("attardi.ts", "control-parameters.yaml"),
    ("covington-nm.ts", "covington-2017.yaml"),
    ("covington.ts", "covington-2017.yaml"),
    ("easy-first.ts", "easy-first-2010.yaml"),          # capacity inf: templates per family instance
    ("easy-first-nonproj.ts", "easy-first-nonproj.yaml"),   # D = 2: told whether the pair is adjacent
])
def test_default_features_picks_the_family(spec, expected):
    path = default_features(load_system(REPO / "systems" / spec))
    assert path.name == expected and path.is_file()


def test_non_projective_easy_first_templates_are_easy_firsts_told_adjacency():
    # easy-first-2010-nonproj: the easy-first templates each joined with dist(O[i-1],O[j]),
    # 0 exactly for an adjacent pair; D = 1 is easy-first's own file
    spec = REPO / "systems" / "easy-first-nonproj.ts"
    assert default_features(load_system(spec, {"D": 1})).name == "easy-first-2010.yaml"
    plain = [t for ts in _groups(default_features(load_system(REPO / "systems" / "easy-first.ts"))).values() for t in ts]
    told = default_features(load_system(spec)).with_name("easy-first-2010-nonproj.yaml")
    nonproj = [t for ts in _groups(told).values() for t in ts]
    gap = "dist(O[i-1],O[j])"
    assert gap in nonproj
    for t in plain:
        atoms = t.count(" + ") + 1
        assert (f"{t} + {gap}" in nonproj) if atoms < 4 else (t in nonproj), t
    assert load_features(told, load_system(spec)).instance_local


def test_non_projective_easy_first_default_drops_the_second_word_out():
    # D > 1 (and D = inf) gets easy-first-2010-nonproj without exactly the templates that read
    # O[i+2] or O[j-2]: a narrower window of pending words, so fewer instances to score again
    spec = REPO / "systems" / "easy-first-nonproj.ts"
    for d in (2, 3, float("inf")):
        assert default_features(load_system(spec, {"D": d})).name == "easy-first-nonproj.yaml"
    path = default_features(load_system(spec))
    told = [t for ts in _groups(path.with_name("easy-first-2010-nonproj.yaml")).values() for t in ts]
    narrow = [t for ts in _groups(path).values() for t in ts]
    assert narrow == [t for t in told if "O[i+2]" not in t and "O[j-2]" not in t]
    assert len(narrow) == 46 and len(told) == 50
    fs = load_features(path, load_system(spec))
    assert fs.instance_local       # O[i-1] is an instance base: the score cache stays exact
    assert sorted(tuple(int(x) for x in r[:3]) for r in fs.instance_bases) == [
        (3, 0, -1), (3, 0, 0), (3, 0, 1), (4, 0, -1), (4, 0, 0)]   # O[i-1], O[i], O[i+1], O[j-1], O[j]


def _groups(path: Path) -> dict[str, list[str]]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["templates"]


def test_zhang_nivre_core_is_the_72_templates_of_table_1():
    groups = _groups(default_features(ARC_EAGER))
    assert [len(groups[g]) for g in CORE_GROUPS["zhang-nivre-2011"]] == [12, 8, 6, 6, 6, 12, 16, 6]
    assert sum(len(groups[g]) for g in CORE_GROUPS["zhang-nivre-2011"]) == 72
    fs = load_features(default_features(ARC_EAGER), ARC_EAGER)
    core = [n for n, g in zip(fs.template_names, fs.template_groups) if g in CORE_GROUPS["zhang-nivre-2011"]]
    assert len(core) == 72
    assert {"s0.w+s0.p+b0.w+b0.p", "s0.p+s0.h.p+s0.h2.p", "b0.p+b0.sl", "s0.w+b0.w+dist(s0,b0)"} <= set(core)


def test_control_parameter_core_matches_zhang_nivre():
    """The first eight groups are Zhang & Nivre's with S0 -> O[0] and N_i -> U[i]."""
    cp_system = load_system(REPO / "systems" / "arc-standard.ts")  # control-parameters.yaml (arc-hybrid: -b0)
    zn = load_features(default_features(ARC_EAGER), ARC_EAGER)
    cp = load_features(default_features(cp_system), cp_system)
    core = CORE_GROUPS["zhang-nivre-2011"]
    assert [n for n, g in zip(cp.template_names, cp.template_groups) if g in core] == \
        [n for n, g in zip(zn.template_names, zn.template_groups) if g in core]


def test_covington_set_is_table_2():
    groups = _groups(default_features(COVINGTON))
    assert (len(groups["unigrams"]), len(groups["pairs"]), len(groups["triples"])) == (67, 10, 10)
    fs = load_features(default_features(COVINGTON), COVINGTON)
    assert {"CL.w+CL.p", "CR.p", "s0.p+s0.lcc.p+s0.lc1.p", "b0.lcc.l", "s0.rcc.w", "s1.w+s1.p"} <= \
        set(fs.template_names)


# ---------------------------------------------------------------------------------
# compiled codes
# ---------------------------------------------------------------------------------


def test_codes_of_hand_written_templates():
    fs = compile_templates(["s0.h2.lc1.l", "s0.w + dist(s0,b0)", "b0.feat[Case] + b0.form", "CL.p",
                            "lambda2[1].rcc.sl", "b1.next.lcc.vl"], COVINGTON)
    assert fs.token_attrs == ("form", "feat:Case", "upos")
    assert fs.template_names == ("s0.h2.lc1.l", "s0.w+dist(s0,b0)", "b0.feat[Case]+b0.w", "CL.p",
                                 "lambda2[1].rcc.sl", "b1.next.lcc.vl")
    assert fs.addresses.dtype == np.int32 and fs.addresses.shape[1] == 8
    assert fs.addresses.tolist() == [
        [BASE_LIST, 0, 0, 3, STEP_H, STEP_H, STEP_LC1, 0],  # s0.h2.lc1 (lambda1 is list 0)
        [BASE_LIST, 0, 0, 0, 0, 0, 0, 0],                   # s0
        [BASE_LIST, 2, 0, 0, 0, 0, 0, 0],                   # b0 (beta is list 2)
        [BASE_CL, 1, 2, 0, 0, 0, 0, 0],                     # CL, after its s0 and b0
        [BASE_LIST, 1, 1, 1, STEP_RCC, 0, 0, 0],            # lambda2[1].rcc
        [BASE_LIST, 2, 1, 2, STEP_NEXT, STEP_LCC, 0, 0],    # b1.next.lcc
    ]
    assert fs.atoms.tolist() == [
        [0, ATOM_LABEL, 0],
        [1, ATOM_TOK, 0],         # s0.w: row 0 = form
        [1, ATOM_DIST, 2],        # dist(s0,b0)
        [2, ATOM_TOK, 1],         # b0.feat[Case]
        [2, ATOM_TOK, 0],         # b0.form, shared row with s0.w
        [3, ATOM_TOK, 2],         # CL.p
        [4, ATOM_SL, 0],
        [5, ATOM_VL, 0],
    ]
    assert fs.templates.tolist() == [[1, 0, -1, -1, -1], [2, 1, 2, -1, -1], [2, 3, 4, -1, -1],
                                     [1, 5, -1, -1, -1], [1, 6, -1, -1, -1], [1, 7, -1, -1, -1]]
    assert fs.template_groups == ("",) * 6


def test_aliases_share_ids_and_names():
    fs = compile_templates(["sigma[0].form + σ[1].upos", "b0.label + beta[2].h.h.lower"])
    assert fs.template_names == ("s0.w+s1.p", "b0.l+b2.h2.lower")
    assert fs.atoms[:, 0].max() < len(fs.addresses) == 4


def test_cr_reuses_focus_addresses():
    fs = compile_templates(["b0.w", "CR.h.p", "s0.p + CL.w"], COVINGTON)
    kinds = fs.addresses[:, 0].tolist()
    assert kinds.count(BASE_CR) == 1 and kinds.count(BASE_CL) == 1
    cr = fs.addresses[kinds.index(BASE_CR)]
    assert cr.tolist()[3:5] == [1, STEP_H]
    assert fs.addresses[cr[1]].tolist() == [BASE_LIST, 0, 0, 0, 0, 0, 0, 0]
    assert fs.addresses[cr[2]].tolist() == [BASE_LIST, 2, 0, 0, 0, 0, 0, 0]


def test_feature_set_is_read_only_and_digest_ignores_comments():
    a = load_features("<a>", ARC_EAGER, text="name: a\ntemplates: [s0.w, b0.p]\n")
    b = load_features("<b>", ARC_EAGER, text="# a comment\nname: a\ndescription: d\ntemplates:\n"
                                             "  - sigma[0].form   # S0w\n  - b0.upos\n")
    c = load_features("<c>", ARC_EAGER, text="name: a\ntemplates: [s0.w, b0.w]\n")
    assert a.digest() == b.digest() != c.digest()
    with pytest.raises(ValueError):
        a.addresses[0, 0] = 5


def test_file_text_is_kept_verbatim(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_bytes(b"name: crlf\r\ntemplates:\r\n  - s0.w\r\n")
    fs = load_features(path, ARC_EAGER)
    assert fs.text == "name: crlf\r\ntemplates:\r\n  - s0.w\r\n"
    assert (fs.name, fs.source) == ("crlf", str(path))
    assert load_features(tmp_path / "g.yaml", ARC_EAGER, text="templates: [s0.w]").name == "g"


# ---------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------

T = "templates:\n  - "  # a template after T starts at line 2, column 5

# (id, text, system, line, col, regex on the message)
ERRORS = [
    ("yaml-syntax", "templates:\n  - s0.w\n bad: x\n", ARC_EAGER, 3, 2, r"YAML syntax error"),
    ("yaml-flow-bracket", "templates: [O[0].w]\n", ARC_EAGER, 1, 14, r"YAML syntax error.*quote templates"),
    ("empty-file", "", ARC_EAGER, 1, 1, r"empty"),
    ("top-not-mapping", "- s0.w\n", ARC_EAGER, 1, 1, r"top level .* mapping"),
    ("unknown-top-key", "name: x\ntempaltes:\n  - s0.w\n", ARC_EAGER, 2, 1,
     r"unknown top-level key `tempaltes`; did you mean `templates`"),
    ("duplicate-top-key", "name: x\nname: y\ntemplates: [s0.w]\n", ARC_EAGER, 2, 1, r"given twice \(first at line 1\)"),
    ("missing-templates", "name: x\n", ARC_EAGER, 1, 1, r"missing `templates:`"),
    ("name-not-string", "name: [a]\ntemplates: [s0.w]\n", ARC_EAGER, 1, 7, r"`name` must be a string"),
    ("templates-empty-list", "templates: []\n", ARC_EAGER, 1, 12, r"`templates` is empty"),
    ("templates-empty-map", "templates: {}\n", ARC_EAGER, 1, 12, r"`templates` is empty"),
    ("templates-scalar", "templates: s0.w\n", ARC_EAGER, 1, 12, r"must be a list of templates or a mapping"),
    ("group-not-list", "templates:\n  core: s0.w\n", ARC_EAGER, 2, 9, r"group `core` must be a list"),
    ("group-empty", "templates:\n  core: []\n", ARC_EAGER, 2, 9, r"group `core` is empty"),
    ("group-twice", "templates:\n  a: [s0.w]\n  a: [s0.p]\n", ARC_EAGER, 3, 3, r"group `a` is given twice"),
    ("template-not-string", T + "[s0.w]\n", ARC_EAGER, 2, 5, r"must be a string"),
    ("template-null", T + "\n", ARC_EAGER, 2, 4, r"empty template"),
    ("unknown-attribute", T + "s0.w + b0.pos\n", ARC_EAGER, 2, 15, r"unknown attribute `pos`; did you mean `xpos`"),
    ("unknown-base", T + "s0.w + x1.p\n", ARC_EAGER, 2, 12, r"unknown address `x1`"),
    ("unknown-list", T + "stack[0].w\n", ARC_EAGER, 2, 5, r"unknown list `stack`.*has sigma, beta"),
    ("unknown-step", T + "s0.lc3.w\n", ARC_EAGER, 2, 8, r"unknown step `lc3`; did you mean"),
    ("attribute-as-step", T + "s0.w.p\n", ARC_EAGER, 2, 8, r"`w` is an attribute and must come last"),
    ("step-as-attribute", T + "s0.h\n", ARC_EAGER, 2, 8, r"ends with the step `h`"),
    ("no-attribute", T + "b0 + s0\n", ARC_EAGER, 2, 7, r"`b0` is an address; add an attribute"),
    ("alias-position", T + "s0.w + b12.p\n", ARC_EAGER, 2, 13, r"position 12 is out of range 0..9"),
    ("list-position", T + "beta[10].p\n", ARC_EAGER, 2, 10, r"position 10 is out of range"),
    ("s-without-stack", T + "b0.w + s0.w\n", BUFFER_ONLY, 2, 12, r"`s0` needs a stack-like list"),
    ("b-without-buffer", T + "b0.w\n", STACK_ONLY, 2, 5, r"`b0` needs a buffer-like list"),
    ("cl-without-buffer", T + "s0.w + CL.p\n", STACK_ONLY, 2, 12, r"CL is defined by s0 and b0"),
    ("cr-without-stack", T + "CR.p\n", BUFFER_ONLY, 2, 5, r"CR is defined by s0 and b0"),
    ("too-many-atoms", T + "s0.w+s0.p+b0.w+b0.p+b1.w\n", ARC_EAGER, 2, 25, r"at most 4 atoms"),
    ("too-many-steps", T + "s0.h2.h2.lc1.w\n", ARC_EAGER, 2, 14, r"at most 4 steps"),
    ("empty-atom-end", T + "s0.w + \n", ARC_EAGER, 2, 10, r"empty atom after `\+`"),
    ("empty-atom-quoted", T + "'s0.w + '\n", ARC_EAGER, 2, 11, r"empty atom after `\+`"),
    ("empty-atom-start", T + "'+ s0.w'\n", ARC_EAGER, 2, 6, r"empty atom before `\+`"),
    ("empty-atom-middle", T + "s0.w +  + b0.w\n", ARC_EAGER, 2, 10, r"empty atom after `\+`"),
    ("missing-attribute", T + "s0.w + b0.\n", ARC_EAGER, 2, 15, r"missing attribute"),
    ("bad-feat", T + "s0.feat[]\n", ARC_EAGER, 2, 8, r"feat\[NAME\]"),
    ("repeated-atom", T + "s0.w + s0.form\n", ARC_EAGER, 2, 12, r"already in the template"),
    ("unknown-function", T + "len(s0)\n", ARC_EAGER, 2, 5, r"unknown function `len`"),
    ("dist-arity", T + "dist(s0)\n", ARC_EAGER, 2, 5, r"two addresses"),
    ("dist-attribute", T + "dist(s0.w,b0)\n", ARC_EAGER, 2, 13, r"not attributes: drop `.w`"),
    ("unclosed-paren-flow", "templates: [s0.w + dist(s0,b0)]\n", ARC_EAGER, 1, 24,
     r"`\(` is never closed.*flow list"),
    ("stray-comma", T + "s0.w, b0.w\n", ARC_EAGER, 2, 9, r"unexpected `,`$"),
    ("duplicate", "templates:\n  a:\n    - s0.w\n  b:\n    - s0.form\n", ARC_EAGER, 5, 7,
     r"duplicate template: the same template as at line 3, column 7"),
    ("duplicate-reordered", T + "s0.w + b0.p\n  - b0.p + s0.w\n", ARC_EAGER, 3, 5,
     r"same atoms in another order as at line 2, column 5"),
    ("multi-line-scalar", T + "s0.w +\n    b0.foo\n", ARC_EAGER, 2, 5, r"unknown attribute `foo`"),
    ("escaped-quoted-scalar", T + '"s0.w + b0.\\x66oo"\n', ARC_EAGER, 2, 5, r"unknown attribute `foo`"),
    ("crlf", "templates:\r\n  - s0.w\r\n  - s0.x\r\n", ARC_EAGER, 3, 8, r"unknown attribute `x`"),
    ("instance-in-bounded", T + "s0.w + O[i].w\n", BOUNDED_EF, 2, 12, r"`O\[i\.\.\.\]` addresses the tokens of "
     r"an action family instance; .* fixed set of actions"),
    ("instance-offset-range", T + "O[j-12].w\n", EASY_FIRST, 2, 9, r"offset -12 is out of range -9..9"),
    ("instance-unknown-list", T + "Q[i].w\n", EASY_FIRST, 2, 5, r"unknown list `Q`"),
    ("unbounded-without-instance", "templates:\n  - O[0].w\n  - U[0].p\n", EASY_FIRST, 2, 3,
     r"capacity inf: .* must address them, e.g. `O\[i\].w`"),
]


@pytest.mark.parametrize("text, system, line, col, regex", [pytest.param(*row[1:], id=row[0]) for row in ERRORS])
def test_error_positions(text, system, line, col, regex):
    with pytest.raises(FeatureError) as info:
        load_features("bad.yaml", system, text=text)
    err = info.value
    assert str(err).startswith(f"bad.yaml:{line}:{col}: "), str(err)
    assert (err.line, err.col) == (line, col)
    assert re.search(regex, err.message), err.message
    assert isinstance(err, UsageError)


def test_error_shows_line_and_caret():
    with pytest.raises(FeatureError) as info:
        load_features("f.yaml", ARC_EAGER, text=T + "s0.w + b0.pos\n")
    assert str(info.value).splitlines()[1:] == ["      - s0.w + b0.pos", " " * 18 + "^"]


def test_missing_file(tmp_path):
    with pytest.raises(FeatureError, match=rf"^{re.escape(str(tmp_path / 'nope.yaml'))}: cannot read"):
        load_features(tmp_path / "nope.yaml", ARC_EAGER)


def test_bad_utf8_names_file_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"templates:\n  - s0.w\xc3\xa9\xff\n")  # line 2 is "  - s0.w\u00e9" then the bad byte
    with pytest.raises(FeatureError, match=rf"^{re.escape(str(path))}:2:10: the file is not valid UTF-8"):
        load_features(path, ARC_EAGER)


# ---------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------

ATTRS = ("w", "form", "lower", "lemma", "p", "upos", "xpos", "feats", "l", "label", "vl", "vr", "sl", "sr")


@st.composite
def bases(draw) -> str:
    """A base of the Covington system, in any spelling: ``s3``, ``λ2[0]``, ``beta[1]``, ``CL``."""
    pos = draw(st.integers(0, 9))
    return draw(st.sampled_from([f"s{pos}", f"b{pos}", f"lambda1[{pos}]", f"λ2[{pos}]", f"lambda2[ {pos} ]",
                                 f"beta[{pos}]", "CL", "CR"]))


@st.composite
def addresses(draw) -> str:
    """``s0.h2.lc1``: a base and steps worth at most MAX_STEPS."""
    steps, budget = [], MAX_STEPS
    for step in draw(st.lists(st.sampled_from(sorted(STEPS)), max_size=MAX_STEPS)):
        if len(STEPS[step]) <= budget:
            steps.append(step)
            budget -= len(STEPS[step])
    return ".".join([draw(bases())] + steps)


@st.composite
def atoms(draw) -> str:
    """``b1.rcc.feat[Case]`` or ``dist(s0,CL.h)``."""
    if draw(st.booleans()) and draw(st.booleans()):
        return f"dist({draw(addresses())},{draw(addresses())})"
    attr = draw(st.sampled_from(ATTRS + ("feat[Case]", "feat[PronType]")))
    return f"{draw(addresses())}.{attr}"


@st.composite
def templates(draw) -> str:
    """``s0.w + dist(s0,b0)``: 1..4 distinct atoms joined with ``+`` and random blanks."""
    parts = draw(st.lists(atoms(), min_size=1, max_size=MAX_ATOMS, unique=True))
    seps = draw(st.lists(st.sampled_from(["+", " + ", "  +", "+ "]), min_size=len(parts), max_size=len(parts)))
    return "".join(sep + p for sep, p in zip([""] + seps, parts))


def _compile_or_skip_repeats(template: str, system=COVINGTON):
    """Compile one template; two spellings of one atom (s0.w + s0.form) are a legitimate error."""
    try:
        return compile_templates([template], system)
    except FeatureError as e:
        assert "already in the template" in e.message, str(e)
        return None


@given(templates())
def test_canonical_names_round_trip(template):
    fs = _compile_or_skip_repeats(template)
    if fs is None:
        return
    (name,) = fs.template_names
    again = compile_templates([name], COVINGTON)
    assert again.template_names == (name,)
    assert rows_of(again) == rows_of(fs)


@given(st.lists(templates(), min_size=1, max_size=8))
def test_tables_keep_their_invariants(tpls):
    names, seen = [], set()
    for t in tpls:
        fs = _compile_or_skip_repeats(t)
        if fs is not None and frozenset(fs.template_names[0].split("+")) not in seen:
            seen.add(frozenset(fs.template_names[0].split("+")))
            names.append(fs.template_names[0])
    if not names:
        return
    fs = compile_templates(names, COVINGTON)
    assert fs.template_names == tuple(names)
    addr = fs.addresses
    assert len({tuple(r) for r in addr.tolist()}) == len(addr)  # deduplicated
    assert len({tuple(r) for r in fs.atoms.tolist()}) == len(fs.atoms)
    for k, (kind, a0, a1, n, *steps) in enumerate(addr.tolist()):
        if kind in (BASE_CL, BASE_CR):
            assert a0 < k and a1 < k and addr[a0].tolist() == [BASE_LIST, 0, 0, 0, 0, 0, 0, 0]
        else:
            assert kind == BASE_LIST and 0 <= a0 < len(COVINGTON.lists) and 0 <= a1 <= 9
        assert all(s > 0 for s in steps[:n]) and all(s == 0 for s in steps[n:])
    for a, kind, arg in fs.atoms.tolist():
        assert 0 <= a < len(addr)
        if kind == ATOM_TOK:
            assert 0 <= arg < len(fs.token_attrs)
        elif kind == ATOM_DIST:
            assert 0 <= arg < len(addr)
        else:
            assert arg == 0
    for n, *ids in fs.templates.tolist():
        assert 1 <= n <= MAX_ATOMS and all(0 <= i < len(fs.atoms) for i in ids[:n])
        assert ids[n:] == [-1] * (MAX_ATOMS - n)


@given(templates(), st.data())
def test_caret_points_at_the_bad_attribute(template, data):
    """Break one atom's attribute; the error column must land on it, quoted or not."""
    atoms_ = template.split("+")
    k = data.draw(st.integers(0, len(atoms_) - 1))
    if atoms_[k].strip().startswith("dist("):
        return
    head, _, _ = atoms_[k].rpartition(".")
    atoms_[k] = head + ".zzz"
    broken = "+".join(atoms_)
    quoted = data.draw(st.booleans())
    scalar = json.dumps(broken, ensure_ascii=False) if quoted else broken
    with pytest.raises(FeatureError) as info:
        load_features("f.yaml", COVINGTON, text=T + scalar + "\n")
    err = info.value
    assert (err.line, err.col) == (2, 5 + int(quoted) + broken.index("zzz")), str(err)


@given(st.lists(st.sampled_from(list("sb019.+()[],: -\n'\"#{}hlcpwCLR\tλé\x00") + ["dist", "templates:\n  - "]),
                max_size=40).map("".join))
def test_any_text_gives_a_feature_set_or_a_feature_error(text):
    for variant in (text, T + text, "templates: [" + text + "]"):
        try:
            load_features("<fuzz>", COVINGTON, text=variant)
        except FeatureError as e:
            assert str(e).startswith("<fuzz>:")


# ---------------------------------------------------------------------------------
# capacity inf: addresses relative to a family instance (O[i+k], O[j-k])
# ---------------------------------------------------------------------------------


def test_instance_addresses_compile_to_kinds_3_and_4():
    from tsdsl.learn.features import BASE_INST_I, BASE_INST_J

    fs = compile_templates(["O[i].w + O[j].p", "O[i+2].p + O[j-1].lc1.l", "dist(O[i],O[j])", "O[ i - 1 ].w"],
                           EASY_FIRST)
    assert fs.template_names == ("O[i].w+O[j].p", "O[i+2].p+O[j-1].lc1.l", "dist(O[i],O[j])", "O[i-1].w")
    o = [d.name for d in EASY_FIRST.lists].index("O")
    heads = {tuple(r[:3]) for r in fs.addresses.tolist()}
    assert heads == {(BASE_INST_I, o, 0), (BASE_INST_J, o, 0), (BASE_INST_I, o, 2), (BASE_INST_J, o, -1),
                     (BASE_INST_I, o, -1)}
    # the bases, and whether a feature reads arcs from them (O[j-1].lc1: a child step)
    assert [tuple(r) for r in fs.instance_bases.tolist()] == sorted((*h, int(h == (BASE_INST_J, o, -1))) for h in heads)
    assert fs.instance_local  # children steps only
    # a label, a valency or a label set at the base itself reads arcs too; a distance does not
    for reads, template in ((1, "O[i].l"), (1, "O[i].vl + O[i].p"), (1, "O[i].sr"), (0, "dist(O[i],O[j]) + O[i].w")):
        bases = {tuple(r[:3]): r[3] for r in compile_templates([template], EASY_FIRST).instance_bases.tolist()}
        assert bases[(BASE_INST_I, o, 0)] == reads, template
    # a head step, a sentence neighbour or an absolute position makes scores depend on more
    for extra in ("O[i].h.p", "O[j].next.w", "O[0].w"):
        assert not compile_templates(["O[i].w", extra], EASY_FIRST).instance_local, extra


@given(st.lists(st.tuples(st.sampled_from("ij"), st.integers(-9, 9),
                          st.sampled_from(["", ".lc1", ".rc2.h", ".prev"]), st.sampled_from(["w", "p", "l", "vr"])),
                min_size=1, max_size=4, unique_by=lambda t: t[:3]))
def test_instance_templates_round_trip(parts):
    text = " + ".join(f"O[{v}{k:+d}]{steps}.{attr}" for v, k, steps, attr in parts)
    fs = compile_templates([text], EASY_FIRST)
    (name,) = fs.template_names
    assert rows_of(compile_templates([name], EASY_FIRST)) == rows_of(fs)


@pytest.mark.parametrize("spec", ["easy-first.ts", "easy-first-nonproj.ts"])
def test_default_set_of_capacity_inf_systems(spec):
    system = load_system(REPO / "systems" / spec)
    fs = load_features(default_features(system), system)
    assert len(set(fs.template_names)) == len(fs.template_names) > 40
    assert fs.instance_local
    # every template reads at least one of the instance's two tokens or their neighbours
    assert all("[i" in n or "[j" in n for n in fs.template_names)


def test_the_b0_set_is_the_control_parameter_set_one_place_further_into_o():
    """control-parameters-b0.yaml is control-parameters.yaml with every address moved one
    place (O[k] -> O[k+1], U[0] -> O[0], U[k] -> U[k-1]): the same templates, for systems
    whose O ends with the buffer front (a new user found arc-hybrid's S0 templates reading b0,
    2 LAS lost).  A change to one file must be made to the other."""
    sets = REPO / "tsdsl" / "learn" / "featuresets"

    def templates(name):
        doc = yaml.safe_load((sets / name).read_text(encoding="utf-8"))
        return {group: list(items) for group, items in doc["templates"].items()}

    def moved(text):
        return re.sub(r"([OU])\[(\d+)\]", lambda m: (f"O[{int(m.group(2)) + 1}]" if m.group(1) == "O" else
                                                     "O[0]" if m.group(2) == "0" else f"U[{int(m.group(2)) - 1}]"),
                      text)

    std, b0 = templates("control-parameters.yaml"), templates("control-parameters-b0.yaml")
    assert {g: [moved(t) for t in ts] for g, ts in std.items()} == b0
    assert sum(map(len, b0.values())) == 104
