"""Pictures: ``tsdsl draw`` (trees as SVG/HTML) and ``tsdsl trace --html``.

The SVG must be well-formed XML whatever the words hold, with exactly one arc element per
attached word; crossing arcs, wrong heads and wrong labels are marked exactly where a
reference computed here (from the head vectors, not from the picture) says; an HTML page
holds the same SVG, self-contained; bad input gets a located error and no file.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from strategies import conllu_block, labelled_trees, trees, word_forms
from tsdsl import load_system
from tsdsl.cli import main
from tsdsl.draw import draw_sentences, parse_ranges, render_html, render_svg
from tsdsl.draw.svg import esc
from tsdsl.errors import UsageError
from tsdsl.treebank.conllu import parse_conllu

NS = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "docs" / "examples" / "sample.conllu"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def classes(el) -> set[str]:
    return set((el.get("class") or "").split())


def arcs_of(root) -> list:
    """The arc elements (class ``arc``) of a parsed SVG, in document order."""
    return [el for el in root.iter(NS + "g") if "arc" in classes(el) and el.get("data-dep") is not None]


def sentences_svg(svg_text: str) -> list:
    """Each sentence group of a stacked SVG."""
    root = ET.fromstring(svg_text.split("?>", 1)[1] if svg_text.startswith("<?xml") else svg_text)
    return [g for g in root.iter(NS + "g") if "sentence" in classes(g)]


def crossing_words(heads) -> set[int]:
    """Reference: dependents of arcs that cross another (root at 0, shared ends never cross)."""
    spans = {d: (min(h, d), max(h, d)) for d, h in enumerate(heads, start=1)}
    out = set()
    for d1, (a, b) in spans.items():
        for d2, (c, e) in spans.items():
            if a < c < b < e or c < a < e < b:
                out |= {d1, d2}
    return out


def one_sentence(forms, heads, labels, **kw):
    return parse_conllu(conllu_block(forms, heads, labels, **kw), "t.conllu")


@st.composite
def forms_and_tree(draw, max_n=10):
    heads, labels = draw(labelled_trees(max_n=max_n))
    forms = draw(st.lists(word_forms(), min_size=len(heads), max_size=len(heads)))
    return forms, heads, labels


# ---- the SVG --------------------------------------------------------------------------

@given(forms_and_tree())
def test_svg_is_xml_with_one_arc_per_word_and_the_words_as_written(case):
    forms, heads, labels = case
    drawn, _ = draw_sentences(one_sentence(forms, heads, labels, sent_id="a&b <c>"))
    svg = render_svg(drawn, with_gold=False)
    (group,) = sentences_svg(svg)
    arcs = arcs_of(group)
    assert sorted(int(a.get("data-dep")) for a in arcs) == list(range(1, len(heads) + 1))
    assert {int(a.get("data-dep")): int(a.get("data-head")) for a in arcs} == dict(enumerate(heads, start=1))
    words = [t.text for t in group.iter(NS + "text") if "word" in classes(t)]
    assert words == list(forms)
    labels_drawn = {int(a.get("data-dep")): a.find(NS + "text").text for a in arcs}
    assert labels_drawn == dict(enumerate(labels, start=1))
    roots = [a for a in arcs if "root" in classes(a)]
    assert [int(a.get("data-dep")) for a in roots] == [d for d, h in enumerate(heads, start=1) if h == 0]


@given(labelled_trees(max_n=10))
def test_exactly_the_crossing_arcs_are_marked(tree):
    heads, labels = tree
    drawn, _ = draw_sentences(one_sentence(["w"] * len(heads), heads, labels))
    (group,) = sentences_svg(render_svg(drawn, with_gold=False))
    marked = {int(a.get("data-dep")) for a in arcs_of(group) if "crossing" in classes(a)}
    assert marked == crossing_words(heads)
    assert drawn[0].crossing == len(marked)


@given(st.integers(1, 9).flatmap(lambda n: st.tuples(labelled_trees(min_n=n, max_n=n, labels=("a", "b")),
                                                      labelled_trees(min_n=n, max_n=n, labels=("a", "b")))))
def test_wrong_heads_and_labels_are_marked_against_gold(pair):
    (ph, pl), (gh, gl) = pair
    pred = one_sentence(["w"] * len(ph), ph, pl)
    gold = one_sentence(["w"] * len(gh), gh, gl)
    drawn, _ = draw_sentences(pred, gold)
    (group,) = sentences_svg(render_svg(drawn, with_gold=True))
    by_dep = {int(a.get("data-dep")): classes(a) for a in arcs_of(group)}
    for d in range(1, len(ph) + 1):
        wrong_head = ph[d - 1] != gh[d - 1]
        wrong_label = not wrong_head and pl[d - 1] != gl[d - 1]
        assert ("wrong-head" in by_dep[d]) == wrong_head, d
        assert ("wrong-label" in by_dep[d]) == wrong_label, d
    gold_arcs = [g for g in group.iter(NS + "g") if "gold" in classes(g)]
    assert sorted((int(g.get("data-head")), int(g.get("data-dep"))) for g in gold_arcs) == \
        sorted((gh[d - 1], d) for d in range(1, len(ph) + 1) if ph[d - 1] != gh[d - 1])
    assert drawn[0].wrong_heads == len(gold_arcs)


def test_escaping_of_markup_in_words_ids_and_text():
    text = conllu_block(["<b>", "&amp;", "]]>", "\"'"], [0, 1, 1, 1], ["root", "a<b", "c&d", "e"],
                        sent_id="<script>alert(1)</script>")
    sentences = parse_conllu("# text = x < y & z\n" + text, "t.conllu")
    drawn, _ = draw_sentences(sentences)
    svg = render_svg(drawn, with_gold=False)
    html = render_html(drawn, title="<title> & co", with_gold=False)
    for page in (svg, html):
        assert "<script>" not in page and "<b>" not in page
    (group,) = sentences_svg(svg)
    assert [t.text for t in group.iter(NS + "text") if "word" in classes(t)] == ["<b>", "&amp;", "]]>", "\"'"]
    assert esc("a\x01b") == "a\ufffdb"  # characters XML 1.0 forbids are replaced


def test_html_is_one_self_contained_page_holding_the_svg(tmp_path, capsys):
    out = tmp_path / "page.html"
    code, stdout, _ = run(capsys, "draw", str(SAMPLE), "-o", str(out))
    assert code == 0 and str(out) in stdout
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"<(link|script|img)\b|\bsrc=|url\((?!#)", page)  # nothing loaded from elsewhere
    svgs = [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", page, re.S)]
    sentences = parse_conllu(SAMPLE.read_text(encoding="utf-8"), str(SAMPLE))
    counted = [len(arcs_of(s)) for s in svgs if arcs_of(s)]
    assert counted == [s.n for s in sentences]
    for s in sentences:
        assert s.sent_id in page and s.text in page


def test_svg_output_stacks_every_sentence(tmp_path, capsys):
    out = tmp_path / "trees.svg"
    assert run(capsys, "draw", str(SAMPLE), "-o", str(out))[0] == 0
    groups = sentences_svg(out.read_text(encoding="utf-8"))
    assert [len(arcs_of(g)) for g in groups] == [5, 8]


def test_gold_file_on_the_command_line(tmp_path, capsys):
    pred = tmp_path / "pred.conllu"
    text = SAMPLE.read_text(encoding="utf-8").replace("5\tHouston\tHouston\tPROPN\t_\t_\t3\tnmod",
                                                       "5\tHouston\tHouston\tPROPN\t_\t_\t1\tnmod")
    text = text.replace("2\tthe\tthe\tDET\t_\t_\t3\tdet", "2\tthe\tthe\tDET\t_\t_\t3\tamod")
    pred.write_text(text, encoding="utf-8")
    code, stdout, _ = run(capsys, "draw", str(pred), str(SAMPLE), "-o", str(tmp_path / "p.svg"))
    assert code == 0 and "1 wrong head, 1 wrong label" in stdout
    (first, _) = sentences_svg((tmp_path / "p.svg").read_text(encoding="utf-8"))
    marks = {int(a.get("data-dep")): classes(a) & {"wrong-head", "wrong-label"} for a in arcs_of(first)}
    assert marks == {1: set(), 2: {"wrong-label"}, 3: set(), 4: set(), 5: {"wrong-head"}}


def test_sentence_ranges_and_limit(tmp_path, capsys):
    out = tmp_path / "x.svg"
    assert run(capsys, "draw", str(SAMPLE), "-o", str(out), "--sentences", "2")[0] == 0
    assert [len(arcs_of(g)) for g in sentences_svg(out.read_text(encoding="utf-8"))] == [8]
    code, _, err = run(capsys, "draw", str(SAMPLE), "-o", str(out), "--limit", "1")
    assert code == 0 and "first 1 of 2" in err
    assert [len(arcs_of(g)) for g in sentences_svg(out.read_text(encoding="utf-8"))] == [5]
    assert parse_ranges("1-3, 7,9-") == [(1, 3), (7, 7), (9, None)]
    for bad in ("x", "3-1", "0", "1-x"):
        with pytest.raises(UsageError):
            parse_ranges(bad)


# ---- errors ---------------------------------------------------------------------------

def test_missing_file_is_an_error_without_traceback(tmp_path, capsys):
    out = tmp_path / "x.html"
    code, _, err = run(capsys, "draw", str(tmp_path / "nope.conllu"), "-o", str(out))
    assert code == 1 and "nope.conllu" in err and "Traceback" not in err
    assert not out.exists()


def test_bad_conllu_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tA\t_\tX\t_\t_\t0\troot\t_\t_\n2\tB\t_\tX\t_\t_\tseven\tdep\t_\t_\n\n", encoding="utf-8")
    out = tmp_path / "x.html"
    code, _, err = run(capsys, "draw", str(bad), "-o", str(out))
    assert code == 1 and f"{bad}:2:" in err and not out.exists()
    code, _, err = run(capsys, "draw", str(SAMPLE), str(bad), "-o", str(out))
    assert code == 1 and f"{bad}:2:" in err and not out.exists()


def test_a_broken_parse_is_drawn_and_said_to_be_broken(tmp_path, capsys):
    """A parser's output with a cycle, a self-loop or a head outside the sentence is drawn as
    it is (that is when a picture helps most), each such sentence named on stderr with its
    line and marked on the page; a gold file must still hold trees."""
    word = "{}\t{}\t_\tX\t_\t_\t{}\tdep\t_\t_\n"
    broken = tmp_path / "broken.conllu"
    broken.write_text(word.format(1, "a", 2) + word.format(2, "b", 1) + "\n"      # a cycle, no root
                      + word.format(1, "a", 1) + word.format(2, "b", 0) + "\n"    # a self-loop
                      + word.format(1, "a", 7) + word.format(2, "b", 0) + "\n"    # a head outside
                      + word.format(1, "a", 2) + word.format(2, "b", 0) + "\n",   # a tree
                      encoding="utf-8")
    for suffix in (".html", ".svg"):
        out = tmp_path / f"x{suffix}"
        code, stdout, err = run(capsys, "draw", str(broken), "-o", str(out))
        assert code == 0 and "4 sentences" in stdout and "3 not trees" in stdout
        assert f"{broken}:1: sentence 1 is not a tree (a cycle through word 1; no word is attached to the root)" in err
        assert f"{broken}:4: sentence 2 is not a tree (word 1 is its own head)" in err
        assert f"{broken}:7: sentence 3 is not a tree (word 1's head 7 is outside the sentence" in err
        assert "sentence 4" not in err
        page = out.read_text(encoding="utf-8")
        assert page.count("not a tree: ") == 3
    code, _, err = run(capsys, "draw", str(SAMPLE), str(broken), "-o", str(tmp_path / "g.html"))
    assert code == 1 and f"{broken}:1:" in err


def test_gold_of_another_shape_is_refused(tmp_path, capsys):
    short = tmp_path / "short.conllu"
    blocks = SAMPLE.read_text(encoding="utf-8").split("\n\n")
    short.write_text(blocks[0] + "\n\n", encoding="utf-8")
    out = tmp_path / "x.svg"
    code, _, err = run(capsys, "draw", str(SAMPLE), str(short), "-o", str(out))
    assert code == 1 and f"2 sentences, but 1 in the gold file ({short})" in err and not out.exists()
    other = tmp_path / "other.conllu"
    other.write_text(conllu_block(["Book", "the"], [0, 1], ["root", "x"]) + blocks[1] + "\n\n", encoding="utf-8")
    code, _, err = run(capsys, "draw", str(SAMPLE), str(other), "-o", str(out))
    assert code == 1 and "sentence 1 has 5 words, but 2 in the gold file" in err and not out.exists()


def test_gold_with_another_word_is_refused_as_eval_refuses_it(tmp_path, capsys):
    """A FORM that differs was drawn as `0 wrong heads`, where `tsdsl eval` refuses the pair."""
    gold = tmp_path / "gold.conllu"
    gold.write_text(SAMPLE.read_text(encoding="utf-8").replace("\tHouston\t", "\tDallas\t", 1), encoding="utf-8")
    out = tmp_path / "x.svg"
    code, stdout, err = run(capsys, "draw", str(SAMPLE), str(gold), "-o", str(out))
    assert (code, stdout) == (1, "") and not out.exists()
    assert "word 5 of sentence 1 is 'Houston', but 'Dallas' in the gold file" in err
    assert run(capsys, "eval", str(gold), str(SAMPLE)) == (1, "", err)  # the same check, the same words


def test_output_suffix_must_say_the_format(tmp_path, capsys):
    code, _, err = run(capsys, "draw", str(SAMPLE), "-o", str(tmp_path / "x.png"))
    assert code == 2 and ".html or .svg" in err and not (tmp_path / "x.png").exists()


# ---- --deps: enhanced graphs ----------------------------------------------------------

# "Sue left and Bob too": Sue has two heads (left, and the elided 3.1), 3.1 an empty node
GRAPH = """# sent_id = g1
# text = Sue left and Bob too
1\tSue\tSue\tPROPN\t_\t_\t2\tnsubj\t2:nsubj|3.1:nsubj\t_
2\tleft\tleave\tVERB\t_\t_\t0\troot\t0:root\t_
3\tand\tand\tCCONJ\t_\t_\t4\tcc\t3.1:cc\t_
3.1\tleft\tleave\tVERB\t_\t_\t_\t_\t2:conj\t_
4\tBob\tBob\tPROPN\t_\t_\t2\tconj\t3.1:nsubj\t_
5\ttoo\ttoo\tADV\t_\t_\t4\tadvmod\t4:advmod\t_

"""
# token positions: ROOT 0, Sue 1, left 2, and 3, 3.1 at 4, Bob 5, too 6
GRAPH_ARCS = {(2, 1, "nsubj"), (4, 1, "nsubj"), (0, 2, "root"), (4, 3, "cc"), (2, 4, "conj"), (4, 5, "nsubj"),
              (5, 6, "advmod")}


def arc_triples(group) -> set[tuple[int, int, str]]:
    out = set()
    for a in arcs_of(group):
        (label,) = [t.text for t in a.iter(NS + "text")]
        out.add((int(a.get("data-head")), int(a.get("data-dep")), label))
    return out


def test_deps_draws_every_head_and_the_empty_node(tmp_path, capsys):
    src = tmp_path / "g.conllu"
    src.write_text(GRAPH, encoding="utf-8")
    out = tmp_path / "g.svg"
    code, stdout, _ = run(capsys, "draw", str(src), "-o", str(out), "--deps")
    assert code == 0 and "7 arcs" in stdout
    svg = out.read_text(encoding="utf-8")
    (group,) = sentences_svg(svg)
    assert len(list(group.iter(NS + "path"))) == 7  # one path per DEPS item, nothing below without gold
    assert arc_triples(group) == GRAPH_ARCS
    assert [int(a.get("data-dep")) for a in arcs_of(group)].count(1) == 2  # Sue: two heads
    assert "root" in classes(next(a for a in arcs_of(group) if a.get("data-head") == "0"))
    words = [(t.text, classes(t)) for t in group.iter(NS + "text") if "word" in classes(t)]
    assert [w for w, _ in words] == ["Sue", "left", "and", "left", "Bob", "too"]
    assert ["empty-node" in c for _, c in words] == [False, False, False, True, False, False]
    assert ".empty-node" in svg
    # without --deps: the basic tree, as before (one arc per word, no empty node)
    assert run(capsys, "draw", str(src), "-o", str(out))[0] == 0
    (group,) = sentences_svg(out.read_text(encoding="utf-8"))
    assert len(arcs_of(group)) == 5 and "empty-node" not in out.read_text(encoding="utf-8").split("</style>")[1]


def test_deps_against_gold_marks_wrong_and_missing_arcs(tmp_path, capsys):
    gold = tmp_path / "gold.conllu"
    gold.write_text(GRAPH, encoding="utf-8")
    pred = tmp_path / "pred.conllu"
    # Sue loses her second head (3.1:nsubj missing), too gets another head (2:advmod, not in gold),
    # and gets a wrong label on its nsubj arc from 2 (2:obj)
    pred.write_text(GRAPH.replace("2:nsubj|3.1:nsubj", "2:obj").replace("\t4:advmod\t", "\t2:advmod\t"),
                    encoding="utf-8")
    out = tmp_path / "p.svg"
    code, stdout, _ = run(capsys, "draw", str(pred), str(gold), "-o", str(out), "--deps")
    assert code == 0 and "1 not in gold, 1 wrong label, 2 missing" in stdout
    (group,) = sentences_svg(out.read_text(encoding="utf-8"))
    marks = {(int(a.get("data-head")), int(a.get("data-dep"))): classes(a) & {"wrong-head", "wrong-label"}
             for a in arcs_of(group)}
    assert marks[(2, 6)] == {"wrong-head"} and marks[(2, 1)] == {"wrong-label"}
    assert all(not m for k, m in marks.items() if k not in ((2, 6), (2, 1)))
    below = {(int(g.get("data-head")), int(g.get("data-dep"))) for g in group.iter(NS + "g") if "gold" in classes(g)}
    assert below == {(4, 1), (5, 6)}  # the gold arcs the file lacks, under the words
    assert run(capsys, "draw", str(gold), str(gold), "-o", str(out), "--deps")[1].endswith(
        "0 not in gold, 0 wrong labels, 0 missing\n")


def test_deps_on_a_sentence_without_deps_is_a_usage_error(tmp_path, capsys):
    src = tmp_path / "two.conllu"
    src.write_text(GRAPH + conllu_block(["A", "B"], [0, 1], ["root", "dep"], sent_id="plain"), encoding="utf-8")
    out = tmp_path / "x.svg"
    code, stdout, err = run(capsys, "draw", str(src), "-o", str(out), "--deps")
    line = GRAPH.count("\n") + 1  # the second block's first line (its sent_id comment)
    assert code == 2 and stdout == "" and f"{src}:{line}: sentence 2 has no enhanced dependencies" in err
    assert "Traceback" not in err and not out.exists()
    assert run(capsys, "draw", str(src), "-o", str(out))[0] == 0  # the trees draw as before


# ---- trace --html ---------------------------------------------------------------------

SLP3 = "RIGHT-ARC SHIFT LEFT-ARC RIGHT-ARC SHIFT LEFT-ARC RIGHT-ARC REDUCE REDUCE REDUCE"


def panels(page: str) -> list[tuple[str, ET.Element]]:
    """(action, parsed SVG) of each step panel."""
    out = []
    for m in re.finditer(r'<section class="panel".*?<span class="action">(.*?)</span>.*?(<svg\b.*?</svg>)', page, re.S):
        out.append((m.group(1), ET.fromstring(m.group(2))))
    return out


def test_trace_html_draws_each_step_with_the_specs_lists(tmp_path, capsys):
    out = tmp_path / "t.html"
    code, stdout, _ = run(capsys, "trace", "arc-eager-slp", "--words", "Book the flight through Houston",
                          "--actions", SLP3, "--html", str(out))
    assert code == 0
    got = panels(out.read_text(encoding="utf-8"))
    assert [a for a, _ in got] == SLP3.split() + ["(terminal)"]
    names = [d.name for d in load_system("arc-eager-slp").lists]
    for k, (action, svg) in enumerate(got):
        shown = [t.text for t in svg.iter(NS + "text") if "listname" in classes(t)]
        assert shown == names
        arcs = arcs_of(svg)
        added = [a for a in arcs if "added" in classes(a)]
        assert len(added) == (1 if "ARC" in action else 0)
        built_before = sum("ARC" in a for a in SLP3.split()[:k])
        assert len(arcs) == built_before + len(added)  # the arcs so far, and the one this step adds
    final = arcs_of(got[-1][1])  # positions: the root is token 0 on the left, word k at k
    assert sorted((int(a.get("data-head")), int(a.get("data-dep"))) for a in final) == \
        sorted([(0, 1), (3, 2), (1, 3), (5, 4), (3, 5)])


@given(st.sampled_from(["attardi", "covington", "arc-hybrid"]), trees(min_n=1, max_n=5))
def test_trace_html_follows_the_oracle_for_any_lists(tmp_path_factory, name, heads):
    d = tmp_path_factory.mktemp("trace")
    gold = d / "g.conllu"
    gold.write_text(conllu_block([f"w{k}" for k in range(1, len(heads) + 1)], heads, ["x"] * len(heads)),
                    encoding="utf-8")
    out = d / "t.html"
    assert main(["trace", name, "--gold", str(gold), "--html", str(out)]) == 0
    got = panels(out.read_text(encoding="utf-8"))
    names = [x.name for x in load_system(name).lists]
    assert got and got[-1][0] == "(terminal)"
    for _, svg in got:
        assert [t.text for t in svg.iter(NS + "text") if "listname" in classes(t)] == names
    assert len(arcs_of(got[-1][1])) <= len(heads)


def test_trace_html_needs_an_html_name(tmp_path, capsys):
    code, _, err = run(capsys, "trace", "arc-eager", "--n", "2", "--actions", "SHIFT", "--html", str(tmp_path / "t.svg"))
    assert code == 2 and ".html" in err


def test_trace_html_marks_the_arc_an_overwrite_removes(tmp_path, capsys):
    out = tmp_path / "t.html"
    code, stdout, _ = run(capsys, "trace", "arc-eager-nm-2013", "--words", "a b c", "--actions",
                          "SHIFT RIGHT-ARC LEFT-ARC", "--html", str(out))
    assert code == 0 and "(removed a -> b)" in stdout
    got = panels(out.read_text(encoding="utf-8"))
    assert [a for a, _ in got] == ["SHIFT", "RIGHT-ARC", "LEFT-ARC", "(end)"]
    marks = [{(int(a.get("data-head")), int(a.get("data-dep"))): classes(a) - {"arc"} for a in arcs_of(svg)}
             for _, svg in got]
    assert marks[1] == {(1, 2): {"added"}}
    assert marks[2] == {(1, 2): {"removed"}, (3, 2): {"added"}}
    assert marks[3] == {(3, 2): set()}


def test_the_page_gets_the_mode_open_would_give(tmp_path, capsys):
    import os

    mask = os.umask(0o022)
    try:
        out = tmp_path / "page.html"
        assert run(capsys, "draw", str(SAMPLE), "-o", str(out))[0] == 0
        assert out.stat().st_mode & 0o777 == 0o644  # not mkstemp's private 0600
    finally:
        os.umask(mask)


def test_a_long_caption_widens_the_svg_for_its_bold_font(tmp_path, capsys):
    """trial 31: "1 · en_gum-GUM_academic_art-sentence-number-0001: Yes." was cut off, the SVG
    sized for regular text while captions are bold (DejaVu Sans Bold runs about 10-15% wider)."""
    from tsdsl.draw.svg import text_width

    short = tmp_path / "short.conllu"
    short.write_text("# sent_id = en_gum-GUM_academic_art-sentence-number-0001\n# text = Yes.\n"
                     "1\tYes\t_\tINTJ\t_\t_\t0\troot\t_\t_\n2\t.\t_\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n", encoding="utf-8")
    out = tmp_path / "short.svg"
    assert run(capsys, "draw", str(short), "-o", str(out))[0] == 0
    width = float(ET.parse(out).getroot().get("width"))
    caption = "1 · en_gum-GUM_academic_art-sentence-number-0001: Yes."
    assert width >= 1.12 * text_width(caption, 13.0) + 16


# ---- right-to-left scripts ----------------------------------------------------------------

HEBREW = ["הילד", "אכל", "תפוח", "אדום", "."]  # the boy ate a red apple .
ARABIC_WITH_LATIN = ["قرأ", "Ahmed", "كتاب", "2024", "الجديد"]


def token_xs(group) -> dict[int, float]:
    """Each token's x (position 0 is ROOT), read from the picture."""
    out = {}
    for g in group.iter(NS + "g"):
        if "token" in classes(g):
            out[int(g.get("data-position"))] = float(g.find(NS + "text").get("x"))
    return out


def path_xs(arc) -> list[float]:
    """The x coordinates an arc's path visits (absolute commands M, H, Q and V keep x)."""
    d = arc.find(NS + "path").get("d")
    xs, cur = [], 0.0
    for cmd, args in re.findall(r"([MVHQ])([^MVHQ]*)", d):
        nums = [float(v) for v in re.findall(r"-?[\d.]+", args)]
        if cmd == "M" or cmd == "Q":
            xs.extend(nums[0::2])
            cur = nums[-2]
        elif cmd == "H":
            xs.append(nums[0])
            cur = nums[0]
        else:
            xs.append(cur)
    return xs


def test_direction_is_guessed_from_the_script():
    from tsdsl.draw.svg import right_to_left

    assert right_to_left(HEBREW) and right_to_left(ARABIC_WITH_LATIN)
    assert not right_to_left(["The", "boy", "ate", "תפוח"])  # one Hebrew word in English
    assert not right_to_left(["3", ",", "."])  # no letters at all: left to right
    assert right_to_left(["The"], "rtl") and not right_to_left(HEBREW, "ltr")
    with pytest.raises(ValueError):
        right_to_left(HEBREW, "up")


def test_a_hebrew_sentence_is_drawn_from_the_right(tmp_path, capsys):
    """ROOT on the right, then the words leftwards in order; every arc ends at its dependent;
    the sentence text of the HTML page is marked right to left; --direction ltr overrides."""
    heads, labels = [2, 0, 2, 3, 2], ["nsubj", "root", "obj", "amod", "punct"]
    f = tmp_path / "he.conllu"
    f.write_text("# text = " + " ".join(HEBREW) + "\n" + conllu_block(HEBREW, heads, labels), encoding="utf-8")
    code, _, err = run(capsys, "draw", str(f), "-o", str(tmp_path / "he.svg"))
    assert code == 0, err
    (group,) = sentences_svg((tmp_path / "he.svg").read_text(encoding="utf-8"))
    xs = token_xs(group)
    assert [xs[k] for k in range(len(HEBREW) + 1)] == sorted(xs.values(), reverse=True)
    for arc in arcs_of(group):
        assert abs(path_xs(arc)[-1] - xs[int(arc.get("data-dep"))]) < 0.11
    assert run(capsys, "draw", str(f), "-o", str(tmp_path / "he.html"))[0] == 0
    assert 'class="text" dir="rtl"' in (tmp_path / "he.html").read_text(encoding="utf-8")
    assert run(capsys, "draw", str(f), "-o", str(tmp_path / "ltr.svg"), "--direction", "ltr")[0] == 0
    (group,) = sentences_svg((tmp_path / "ltr.svg").read_text(encoding="utf-8"))
    xs = token_xs(group)
    assert [xs[k] for k in range(len(HEBREW) + 1)] == sorted(xs.values())


@given(forms_and_tree(max_n=8))
def test_right_to_left_is_the_mirror_of_left_to_right(case):
    """Any tree: the right-to-left picture is the left-to-right one mirrored, token by token
    and arc by arc, within the same width."""
    forms, heads, labels = case
    sentence = one_sentence(forms, heads, labels)
    ltr, _ = draw_sentences(sentence, direction="ltr")
    rtl, _ = draw_sentences(sentence, direction="rtl")
    assert (ltr[0].width, ltr[0].height) == (rtl[0].width, rtl[0].height) and rtl[0].rtl and not ltr[0].rtl
    width = ltr[0].width
    (g_ltr,) = sentences_svg(render_svg(ltr, with_gold=False))
    (g_rtl,) = sentences_svg(render_svg(rtl, with_gold=False))
    a, b = token_xs(g_ltr), token_xs(g_rtl)
    assert a.keys() == b.keys() and all(abs(b[k] - (width - a[k])) < 0.11 for k in a)
    arcs_l = {(x.get("data-head"), x.get("data-dep")): path_xs(x) for x in arcs_of(g_ltr)}
    arcs_r = {(x.get("data-head"), x.get("data-dep")): path_xs(x) for x in arcs_of(g_rtl)}
    assert arcs_l.keys() == arcs_r.keys()
    for key, xs in arcs_l.items():
        assert all(abs(r - (width - l)) < 0.21 for l, r in zip(xs, arcs_r[key])), key
