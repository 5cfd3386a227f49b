"""The two traces of Jurafsky & Martin, SLP3 ch. 18, pinned step by step.

"Book the flight through Houston" with the arc-standard system (Fig. 18.7) and
the arc-eager system (Fig. 18.9).  Each row is the configuration *before* the
action (stack, buffer), the action, and the arc it adds.  The book writes an
added arc as ``(the ← flight)`` or ``(book → flight)``; tsdsl prints
``head -> dependent``, so both become ``flight -> the`` and ``book -> flight``.
The words are spelt as in the figures (lower case).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tsdsl import load_system
from tsdsl.interp import Interpreter
from tsdsl.trace import TraceError, render_steps, run_trace

SYSTEMS = Path(__file__).resolve().parent.parent / "systems"
WORDS = "book the flight through houston".split()

# SLP3 Fig. 18.7 (arc-standard): step, stack, word list, action, relation added
FIG_18_7 = [
    (0, ["root"], ["book", "the", "flight", "through", "houston"], "SHIFT", []),
    (1, ["root", "book"], ["the", "flight", "through", "houston"], "SHIFT", []),
    (2, ["root", "book", "the"], ["flight", "through", "houston"], "SHIFT", []),
    (3, ["root", "book", "the", "flight"], ["through", "houston"], "LEFT-ARC", ["flight -> the"]),
    (4, ["root", "book", "flight"], ["through", "houston"], "SHIFT", []),
    (5, ["root", "book", "flight", "through"], ["houston"], "SHIFT", []),
    (6, ["root", "book", "flight", "through", "houston"], [], "LEFT-ARC", ["houston -> through"]),
    (7, ["root", "book", "flight", "houston"], [], "RIGHT-ARC", ["flight -> houston"]),
    (8, ["root", "book", "flight"], [], "RIGHT-ARC", ["book -> flight"]),
    (9, ["root", "book"], [], "RIGHT-ARC", ["root -> book"]),
    (10, ["root"], [], None, []),  # Done
]

# SLP3 Fig. 18.9 (arc-eager)
FIG_18_9 = [
    (0, ["root"], ["book", "the", "flight", "through", "houston"], "RIGHT-ARC", ["root -> book"]),
    (1, ["root", "book"], ["the", "flight", "through", "houston"], "SHIFT", []),
    (2, ["root", "book", "the"], ["flight", "through", "houston"], "LEFT-ARC", ["flight -> the"]),
    (3, ["root", "book"], ["flight", "through", "houston"], "RIGHT-ARC", ["book -> flight"]),
    (4, ["root", "book", "flight"], ["through", "houston"], "SHIFT", []),
    (5, ["root", "book", "flight", "through"], ["houston"], "LEFT-ARC", ["houston -> through"]),
    (6, ["root", "book", "flight"], ["houston"], "RIGHT-ARC", ["flight -> houston"]),
    (7, ["root", "book", "flight", "houston"], [], "REDUCE", []),
    (8, ["root", "book", "flight"], [], "REDUCE", []),
    (9, ["root", "book"], [], "REDUCE", []),
    (10, ["root"], [], None, []),  # Done
]

# The tree of example (18.9): root -> book, book -> flight, flight -> the,
# flight -> houston, houston -> through.
GOLD_HEADS = (0, 3, 1, 5, 3)

CASES = [
    pytest.param("arc-standard-slp", FIG_18_7, id="fig-18.7-arc-standard"),
    pytest.param("arc-eager-slp", FIG_18_9, id="fig-18.9-arc-eager"),
]


@pytest.mark.parametrize("stem, figure", CASES)
def test_trace_matches_the_book(stem, figure):
    it = Interpreter(load_system(SYSTEMS / f"{stem}.ts"))
    actions = [row[3] for row in figure if row[3] is not None]
    steps, final = run_trace(it, WORDS, actions)
    assert len(steps) == len(figure)
    for step, (k, stack, buffer, action, added) in zip(steps, figure):
        assert step.index == k
        assert step.lists == (tuple(stack), tuple(buffer)), f"step {k}"
        assert step.action == action, f"step {k}"
        assert list(step.added) == added, f"step {k}"
        assert step.removed == ()
    assert it.is_terminal(final)
    assert it.legal(final) == []
    tree = it.output(final)
    assert tree.heads == GOLD_HEADS
    assert tree.unattached == ()


@pytest.mark.parametrize("stem, figure", CASES)
def test_rendered_table(stem, figure):
    it = Interpreter(load_system(SYSTEMS / f"{stem}.ts"))
    actions = [row[3] for row in figure if row[3] is not None]
    steps, final = run_trace(it, WORDS, actions)
    text = render_steps(steps, ["sigma", "beta"], terminal=it.is_terminal(final))
    lines = text.splitlines()
    assert lines[0].split() == ["step", "sigma", "beta", "action", "arc", "added"]
    assert len(lines) == 1 + len(figure)
    for line, (k, stack, buffer, action, added) in zip(lines[1:], figure):
        assert line.startswith(f"{k} ")
        assert f"[{', '.join(stack)}]" in line
        assert f"[{', '.join(buffer)}]" in line
        assert (action or "(terminal)") in line
        for arc in added:
            assert line.endswith(arc)


def test_arc_standard_cannot_attach_book_flight_at_step_4():
    # SLP3 p. 401: at step 4 RIGHT-ARC (book -> flight) is tempting, and legal in
    # the system (the oracle, not the system, forbids it); taking it makes
    # "flight -> houston" impossible because flight has left the stack.
    it = Interpreter(load_system(SYSTEMS / "arc-standard-slp.ts"))
    steps, c = run_trace(it, WORDS, ["SHIFT", "SHIFT", "SHIFT", "LEFT-ARC", "RIGHT-ARC"])
    assert steps[-2].added == ("book -> flight",)
    assert steps[-1].lists == (("root", "book"), ("through", "houston"))


def test_illegal_step_reports_the_rows_done():
    it = Interpreter(load_system(SYSTEMS / "arc-eager-slp.ts"))
    with pytest.raises(TraceError, match=r"step 1: REDUCE is not legal \(legal here: SHIFT, LEFT-ARC, RIGHT-ARC\)"):
        run_trace(it, WORDS, ["SHIFT", "REDUCE"])
    try:
        run_trace(it, WORDS, ["SHIFT", "REDUCE"])
    except TraceError as exc:
        assert [s.action for s in exc.steps] == ["SHIFT", None]
        assert exc.steps[-1].lists == (("root", "book"), ("the", "flight", "through", "houston"))
        assert exc.list_names == ("sigma", "beta")


# ---------------------------------------------------------------------------------
# trace --costs: refused without --gold; a dead end's inf explained
# ---------------------------------------------------------------------------------


def test_trace_costs_without_gold_is_a_usage_error(capsys):
    """--costs used to be ignored silently without --gold: a cost needs a gold tree."""
    from tsdsl.cli import main

    code = main(["trace", "arc-eager", "--words", "Book the flight", "--actions", "SHIFT LEFT-ARC", "--costs"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "--costs needs --gold" in err and "Traceback" not in err


def test_trace_costs_explains_inf_in_a_legend_line(capsys, tmp_path):
    """arc-eager-slp's SHIFT at step 5 of the SLP3 sentence is a dead end (cost inf): a legend
    line under the table says what inf means; a table without inf has none."""
    from tsdsl.cli import main

    book = Path(__file__).resolve().parent.parent / "docs" / "examples" / "sample.conllu"
    assert main(["trace", "arc-eager-slp", "--gold", str(book), "--costs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "SHIFT=inf" in lines[6]
    assert lines[-2] == ("cost inf: no terminal configuration can be reached after that action "
                         "(a dead end: no tree can be finished)")
    assert lines[-1].startswith("oracle: canonical derivation (static, by search); costs: exact loss search")
    assert main(["trace", "arc-eager", "--gold", str(book), "--costs"]) == 0
    out = capsys.readouterr().out
    assert "inf" not in out and "cost inf" not in out


@pytest.mark.parametrize("argv, message", [
    (["--words", "Book the flight", "--actions", "SHIFT", "--sentence", "2"], "--sentence needs --gold"),
    (["--n", "2", "--actions", "SHIFT", "--budget", "10"], "--budget needs --gold"),
    (["--n", "2", "--sentence", "1", "--budget", "10"], "--sentence and --budget need --gold"),
    (["--gold", "GOLD", "--actions", "SHIFT"], "--actions cannot be combined with --gold"),
    (["--gold", "GOLD", "--words", "a b", "--n", "2"], "--words, --n cannot be combined with --gold"),
])
def test_trace_options_of_the_other_mode_are_refused(capsys, argv, message):
    """--sentence and --budget without --gold, and the given-actions options with it, were
    ignored silently (a user's trial): each is now a usage error naming the options."""
    from tsdsl.cli import main

    book = Path(__file__).resolve().parent.parent / "docs" / "examples" / "sample.conllu"
    code = main(["trace", "arc-eager"] + [str(book) if a == "GOLD" else a for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_trace_html_explains_inf_too(capsys, tmp_path):
    """The HTML page of a trace whose costs hold an inf carries the legend in its footer."""
    from tsdsl.cli import main

    book = Path(__file__).resolve().parent.parent / "docs" / "examples" / "sample.conllu"
    page = tmp_path / "t.html"
    assert main(["trace", "arc-eager-slp", "--gold", str(book), "--costs", "--html", str(page)]) == 0
    assert "cost inf: no terminal configuration can be reached" in page.read_text(encoding="utf-8")
    assert main(["trace", "arc-eager", "--gold", str(book), "--costs", "--html", str(page)]) == 0
    assert "cost inf" not in page.read_text(encoding="utf-8")


def test_an_action_the_spec_does_not_have_is_unknown_not_illegal():
    it = Interpreter(load_system(SYSTEMS / "arc-eager-slp.ts"))
    with pytest.raises(TraceError, match=r"^step 1: unknown action 'REDUCE-ARC' \(the actions are SHIFT, "
                                         r"LEFT-ARC, RIGHT-ARC, REDUCE; did you mean REDUCE\?\)$") as info:
        run_trace(it, WORDS, ["SHIFT", "REDUCE-ARC"])
    assert [s.action for s in info.value.steps] == ["SHIFT", None]
    with pytest.raises(TraceError, match=r"^step 0: unknown action 'shift' .*; did you mean SHIFT\?\)$"):
        run_trace(it, WORDS, ["shift"])
    # a family named without its indexes is said to need them (trial 31: "did you mean LEFT-ARC(3,2)?")
    ef = Interpreter(load_system(SYSTEMS / "easy-first.ts"))
    with pytest.raises(TraceError, match=r"^step 0: LEFT-ARC needs its indexes: one of LEFT-ARC\(2,1\), "
                                         r"LEFT-ARC\(3,2\) here"):
        run_trace(ef, ["a", "b", "c"], ["LEFT-ARC"])


# ---------------------------------------------------------------------------------
# trace --gold without a declared exact oracle: the canonical derivation
# ---------------------------------------------------------------------------------


def projective_tree(n: int, seed: int) -> list[int]:
    """A random projective tree of ``n`` words (CoNLL-U heads): each span picks its head, whose
    left and right parts become its dependents' spans."""
    import random

    rng = random.Random(seed)
    heads = [0] * n

    def span(lo: int, hi: int, head: int) -> None:  # words lo..hi (1-based), attached to head
        if lo > hi:
            return
        h = rng.randint(lo, hi)
        heads[h - 1] = head
        span(lo, h - 1, h)
        span(h + 1, hi, h)

    span(1, n, 0)
    return heads


def conllu(heads: list[int]) -> str:
    return "".join(f"{d}\tw{d}\t_\t_\t_\t_\t{h}\tdep\t_\t_\n" for d, h in enumerate(heads, 1)) + "\n"


def slp3_static_oracle(heads: list[int]) -> list[str]:
    """SLP3 ch. 18's training oracle for arc-standard: LEFT-ARC whenever it is correct, then
    RIGHT-ARC once the dependent has all its own dependents, else SHIFT."""
    stack, buffer, attached = [0], list(range(1, len(heads) + 1)), set()
    out = []
    while buffer or len(stack) > 1:
        if len(stack) >= 2 and stack[-2] != 0 and heads[stack[-2] - 1] == stack[-1]:
            attached.add(stack.pop(-2))
            out.append("LEFT-ARC")
        elif (len(stack) >= 2 and heads[stack[-1] - 1] == stack[-2]
              and all(d in attached for d in range(1, len(heads) + 1) if heads[d - 1] == stack[-1])):
            attached.add(stack.pop())
            out.append("RIGHT-ARC")
        else:
            stack.append(buffer.pop(0))
            out.append("SHIFT")
    return out


def table_actions(out: str) -> list[str]:
    names = {"SHIFT", "LEFT-ARC", "RIGHT-ARC"}
    return [next(w for w in line.split() if w in names) for line in out.splitlines()[1:]
            if any(w in names for w in line.split())]


@pytest.mark.parametrize("seed", [1, 2])
def test_trace_gold_follows_the_canonical_derivation_of_a_long_sentence(capsys, tmp_path, seed):
    """`trace arc-standard-slp --gold` on an 18-word sentence ran the exact loss search at every
    step and gave up after 30 s (trial 31), and broke ties by spec order, so that every SHIFT
    came before any LEFT-ARC.  It now follows the kernel's canonical derivation: quickly, to
    the gold tree, taking each arc as soon as it is correct, as SLP3's static oracle does."""
    import time

    from tsdsl.cli import main
    from tsdsl.kernels import compile_system

    compile_system(SYSTEMS / "arc-standard-slp.ts", fallback=False)  # a first build is not the trace's time
    heads = projective_tree(22, seed)
    gold = tmp_path / "long.conllu"
    gold.write_text(conllu(heads), encoding="utf-8")
    t0 = time.perf_counter()
    assert main(["trace", "arc-standard-slp", "--gold", str(gold)]) == 0
    assert time.perf_counter() - t0 < 10
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "oracle: canonical derivation (static, by search); 0 of 22 heads differ from gold"
    assert table_actions(out) == slp3_static_oracle(heads)
    for d, h in enumerate(heads, 1):
        assert f"{'root' if h == 0 else f'w{h}'} -> w{d}" in out


def test_trace_gold_follows_the_guided_derivation_of_swap(capsys, tmp_path):
    """arc-standard + SWAP declares no oracle: `trace --gold` follows the derivation training
    uses, guided towards the gold tree's projective order (Nivre's 2009 static oracle), even
    on a tree that the unguided search cannot derive within its budget."""
    from test_guided_search import HARD, nivre_2009
    from tsdsl.cli import main

    heads = HARD[0]
    gold = tmp_path / "hard.conllu"
    gold.write_text(conllu(heads), encoding="utf-8")
    assert main(["trace", str(SYSTEMS / "arc-standard-swap.ts"), "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == (f"oracle: canonical derivation (static, by search); 0 of {len(heads)} heads "
                                    "differ from gold")
    names = {"SHIFT", "LEFT-ARC", "RIGHT-ARC", "SWAP"}
    actions = [next(w for w in line.split() if w in names) for line in out.splitlines()[1:]
               if any(w in names for w in line.split())]
    assert actions == nivre_2009(heads)


def test_trace_gold_costs_over_the_budget_are_shown_unknown(capsys, tmp_path):
    """With --costs the path still follows the derivation, and a step whose exact search runs
    over its budget shows its costs as `?`, with a legend, instead of losing the table.  The
    compiled search may expand DERIVE_FACTOR times --budget configurations, and the legend
    says how many that was."""
    from tsdsl.cli import main
    from tsdsl.cli.gold import DERIVE_FACTOR

    heads = projective_tree(14, 3)
    gold = tmp_path / "g.conllu"
    gold.write_text(conllu(heads), encoding="utf-8")
    assert main(["trace", "arc-standard-slp", "--gold", str(gold), "--costs", "--budget", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.endswith("=?") for line in lines[1:-2])  # a step the search left undecided
    assert any(line.endswith("=0") for line in lines)  # and steps it decided
    assert lines[-2] == (f"cost ?: the exact loss search expanded more than {8 * DERIVE_FACTOR} configurations "
                         "at that step (raise --budget to see it)")
    assert lines[-1] == ("oracle: canonical derivation (static, by search); costs: exact loss search; "
                         "0 of 14 heads differ from gold")


def test_trace_gold_over_the_budget_without_a_derivation_names_the_step(capsys, tmp_path):
    """A non-projective tree has no derivation in arc-standard-slp, so the exact search decides
    each step; over its budget the rows done so far are printed and a `tsdsl:` error names
    the step and says to raise --budget (it said nothing of the step, printed no row and had
    no prefix)."""
    from tsdsl.cli import main

    heads = [3, 4, 0, 3, 3, 4, 5, 6, 7, 8, 9, 10]  # 1 <- 3 and 2 <- 4 cross
    gold = tmp_path / "np.conllu"
    gold.write_text(conllu(heads), encoding="utf-8")
    assert main(["trace", "arc-standard-slp", "--gold", str(gold), "--budget", "200"]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("step  sigma")
    assert err.startswith("tsdsl: step ") and "Traceback" not in err
    assert err.rstrip().endswith("configurations (the gold tree has no derivation in arc_standard_slp, so the "
                                 "search decides each step); raise --budget")


@pytest.mark.parametrize("actions, message", [
    (["SHIFT:det", "RIGHT-ARC"], "step 0: SHIFT builds no arc, so it takes no label ('SHIFT:det')"),
    (["RIGHT-ARC", "REDUCE:foo"], "step 1: REDUCE builds no arc, so it takes no label ('REDUCE:foo')"),
    (["RIGHT-ARC:", "SHIFT"], "step 0: empty label after ':' in 'RIGHT-ARC:' (write RIGHT-ARC alone for no label)"),
    (["RIGHT-ARC: ", "SHIFT"], "step 0: empty label after ':' in 'RIGHT-ARC: '"),
])
def test_a_label_on_an_action_without_an_arc_or_an_empty_one_is_refused(actions, message):
    """`SHIFT:det`, `REDUCE:foo` and `RIGHT-ARC:` were accepted and shown in the table as if
    the label were used (trial 31 M2)."""
    it = Interpreter(load_system(SYSTEMS / "arc-eager.ts"))
    with pytest.raises(TraceError) as info:
        run_trace(it, WORDS, actions)
    assert str(info.value).startswith(message)
    assert info.value.steps[-1].action is None  # the rows done, then the configuration it stopped at
    steps, _ = run_trace(it, WORDS, ["RIGHT-ARC:root", "SHIFT"])
    assert steps[0].added == ("root -root-> book",)


def test_cli_trace_refuses_a_label_on_shift(capsys):
    from tsdsl.cli import main

    code = main(["trace", "arc-eager", "--words", "Book the flight", "--actions", "SHIFT:det RIGHT-ARC"])
    out, err = capsys.readouterr()
    assert code == 2 and out.startswith("step  sigma")
    assert err == "tsdsl: step 0: SHIFT builds no arc, so it takes no label ('SHIFT:det')\n"


@pytest.mark.parametrize("argv, message", [
    ([], "trace needs a sentence (--words \"W1 W2 ...\" or --n N) and the actions to run on it"),
    (["--words", "a b", "--n", "5", "--actions", "SHIFT"], "--words and --n cannot be combined: give one of them"),
    (["--n", "2", "--actions", "SHIFT", "--actions-file", "ACTS"],
     "--actions and --actions-file cannot be combined: give one of them"),
    (["--n", "2", "--actions-file", "missing.txt"], "cannot read the actions file missing.txt: no such file"),
    (["--n", "2", "--actions", "SHIFT", "--html", ""], "--html needs a file name ending in .html"),
])
def test_trace_refuses_what_it_would_ignore(capsys, tmp_path, monkeypatch, argv, message):
    """No sentence, actions or gold printed a 0-word table (exit 0); --n beside --words and
    --actions beside --actions-file were dropped silently; a missing actions file exited 1
    with no `tsdsl:`; `--html ''` was ignored (trial 31 L6).  Each is a usage error now."""
    from tsdsl.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "acts.txt").write_text("SHIFT\n", encoding="utf-8")
    code = main(["trace", "arc-eager"] + ["acts.txt" if a == "ACTS" else a for a in argv])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"tsdsl: {message}") and "Traceback" not in err


def test_trace_html_of_an_illegal_action_shows_the_steps_done_and_why(capsys, tmp_path):
    """`trace --html` wrote no page when the trace stopped on an illegal action (trial 31 L7)."""
    from tsdsl.cli import main

    page = tmp_path / "ill.html"
    assert main(["trace", "arc-eager", "--words", "a b c", "--actions", "SHIFT REDUCE", "--html", str(page)]) == 2
    out, err = capsys.readouterr()
    assert err == "tsdsl: step 1: REDUCE is not legal (legal here: SHIFT, LEFT-ARC, RIGHT-ARC)\n"
    html = page.read_text(encoding="utf-8")
    assert "tsdsl: step 1: REDUCE is not legal (legal here: SHIFT, LEFT-ARC, RIGHT-ARC)" in html
    assert "SHIFT" in html


def test_trace_gold_over_the_budget_still_writes_the_page(capsys, tmp_path):
    from tsdsl.cli import main

    gold = tmp_path / "np.conllu"
    gold.write_text(conllu([3, 4, 0, 3, 3, 4, 5, 6, 7, 8, 9, 10]), encoding="utf-8")
    page = tmp_path / "np.html"
    assert main(["trace", "arc-standard-slp", "--gold", str(gold), "--budget", "200", "--html", str(page)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tsdsl: step ")
    assert err.strip() in page.read_text(encoding="utf-8")


def test_first_free_action_is_the_canonical_one_that_keeps_the_gold_tree():
    """Where a declared oracle has no zero-cost action on a derivable tree, the trace takes the
    first action, in the kernel's canonical order, after which the gold tree is still derivable."""
    from tsdsl.cli.gold import _first_free
    from tsdsl.kernels import compile_system

    kernel = compile_system(SYSTEMS / "arc-eager.ts", fallback=False)
    book = [0, 3, 1, 5, 3]  # SLP3 Fig. 18.9
    assert _first_free(kernel, book, [], 10_000) == "RIGHT-ARC"
    assert _first_free(kernel, book, ["RIGHT-ARC"], 10_000) == "SHIFT"
    assert _first_free(kernel, book, ["RIGHT-ARC", "SHIFT"], 10_000) == "LEFT-ARC"
    assert _first_free(kernel, book, ["SHIFT"], 10_000) is None  # Book can no longer take root's arc
