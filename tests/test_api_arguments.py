"""Wrong arguments to the Python API of a compiled system are refused with a UsageError
naming the argument, never read as C memory or silently reinterpreted (a new user's trial:
``None`` as a state crashed the process or read stray memory, a boolean ``select`` mask
picked sentences 1 and 0, float ids were truncated)."""

from __future__ import annotations

import numpy as np
import pytest

import tsdsl
import tsdsl.kernels
from tsdsl import Interpreter, UsageError, load_system
from tsdsl.kernels import compile_system
from tsdsl.kernels.build import _fallback
from tsdsl.kernels.compiled import OraclePass
from tsdsl.learn.parser import sentence_columns


@pytest.fixture(scope="module")
def hybrid():
    return compile_system("arc-hybrid", fallback=False)


@pytest.fixture(scope="module")
def eager():
    return compile_system("arc-eager", fallback=False)


def test_usage_errors_are_value_errors():
    assert issubclass(UsageError, ValueError)


@pytest.mark.parametrize("call", ["copy", "is_terminal", "legal", "legal_mask", "output", "snapshot", "loss",
                                  "actions_of"])
def test_none_as_a_state_is_refused(hybrid, call):
    with pytest.raises(UsageError, match=r"state: expected a configuration of arc_hybrid .*got NoneType.*in place"):
        getattr(hybrid, call)(None)


def test_none_state_in_apply_run_and_gold(hybrid):
    with pytest.raises(UsageError, match="got NoneType"):
        hybrid.apply(None, 2)
    with pytest.raises(UsageError, match="got NoneType"):
        hybrid.is_legal(None, "SHIFT")
    with pytest.raises(UsageError, match="got NoneType"):
        hybrid.run(None, [2])
    with pytest.raises(UsageError, match="got NoneType"):
        hybrid.attach_gold(None, [0])
    with pytest.raises(UsageError, match="got NoneType"):
        hybrid.costs(None)


def test_a_state_of_another_system_is_refused(hybrid, eager):
    with pytest.raises(UsageError, match="expected a configuration of arc_hybrid"):
        hybrid.legal_mask(eager.initial(2))


def test_the_kernel_itself_refuses_none(hybrid):
    # below the wrapper, the typed Cython arguments refuse None too (no NULL state is read)
    with pytest.raises(TypeError):
        hybrid.module.copy_state(None)
    with pytest.raises(TypeError):
        hybrid.module.view(None)


def test_apply_argument_types(hybrid):
    st = hybrid.initial(2)
    with pytest.raises(UsageError, match="not bool"):
        hybrid.apply(st, True)
    with pytest.raises(UsageError, match="expected an action name or an integer id, got float"):
        hybrid.apply(st, 2.0)
    with pytest.raises(UsageError, match="expected a label name or an integer id, got float"):
        hybrid.apply(st, "SHIFT", 1.5)
    with pytest.raises(UsageError, match=r"no label id 500 \(no label ids are known\)"):
        hybrid.apply(st, 0, 500)
    with pytest.raises(UsageError, match="expected an action name, got int"):
        hybrid.is_legal(st, 2)
    hybrid.apply(st, np.int64(2))  # numpy integers are ids: SHIFT (arc-hybrid starts with word 1 on O)
    assert hybrid.snapshot(st)["lists"]["O"] == (1, 2)


def test_one_state_out_arrays(hybrid):
    st = hybrid.initial(2)
    with pytest.raises(UsageError, match="legal_mask out: expected a numpy array, got list"):
        hybrid.legal_mask(st, out=[0, 0, 0])
    with pytest.raises(UsageError, match=r"legal_mask out: expected shape \(3,\), got \(5,\)"):
        hybrid.legal_mask(st, out=np.zeros(5, dtype=np.uint8))
    with pytest.raises(UsageError, match="expected dtype uint8, got int32"):
        hybrid.legal_mask(st, out=np.zeros(3, dtype=np.int32))
    out = np.zeros(3, dtype=np.uint8)
    assert hybrid.legal_mask(st, out=out) is out and out.tolist() == [0, 0, 1]


def test_run_refuses_floats_and_unknown_labels(hybrid):
    st = hybrid.initial(2)
    with pytest.raises(UsageError, match="run: actions: expected integers, got dtype float64"):
        hybrid.run(st, [2.0, 0.7])
    with pytest.raises(UsageError, match=r"run: label id -5: label ids are 0 or more \(-1: none\)"):
        hybrid.run(st, [2, 0], [-1, -5])
    assert hybrid.snapshot(st)["lists"]["U"][0] == 2  # nothing was applied
    assert hybrid.run(st, [2, 2]) == 2


def test_select_takes_a_boolean_mask(hybrid):
    tb = hybrid.pack([[0], [0, 1], [0, 1, 2]])
    assert hybrid.batch(tb, select=np.array([True, False, True])).lengths.tolist() == [1, 3]
    assert hybrid.batch(tb, select=[2, 0]).lengths.tolist() == [3, 1]
    assert hybrid.batch(tb, select=[]).lengths.tolist() == []
    with pytest.raises(UsageError, match=r"one entry per sentence \(3\), got shape \(2,\)"):
        hybrid.batch(tb, select=np.array([True, False]))
    with pytest.raises(UsageError, match="select: expected integers, got dtype float64"):
        hybrid.batch(tb, select=[0.9, 1.7])


def test_sentence_lengths_must_be_integers(hybrid):
    with pytest.raises(UsageError, match="sentences: expected integers, got dtype float64"):
        hybrid.batch([2.9, 1.2])
    assert hybrid.batch([2, 1]).lengths.tolist() == [2, 1]


def test_batch_messages(hybrid):
    batch = hybrid.batch([2], gold_heads=[[0, 1]], gold_labels=[[0, 1]], n_labels=2)
    with pytest.raises(UsageError, match=r"configuration 0: action id 7 is out of range 0..2"):
        batch.apply([7])
    with pytest.raises(UsageError, match=r"SHIFT \(id 2\) has label id 5, out of range \(0..1; -1: none\)"):
        batch.apply([2], [5])
    # no labels named: any id >= 0 is the caller's (a parser's own label ids), and root_label too
    free = hybrid.batch([1])
    free.apply([2], [1000])
    assert free.labels(finished=True, root_label=7).shape == (1, 2)


def test_batch_list_ends(eager, hybrid):
    assert eager.batch([1]).open_ends == ["R", "L"]
    b = hybrid.batch([1])
    assert b.list_names == ["O", "U"] and b.open_ends == ["R", "L"] and b.n_lists == 2 and b.system is hybrid


def test_oracle_pass_status_per_sentence(hybrid):
    # sentence 1 is non-projective (3 -> 1 crosses 4 -> 2): arc-hybrid cannot reproduce it
    res = hybrid.oracle_pass([[2, 0, 2], [3, 4, 0, 3], [0]])
    assert res.status[0] == OraclePass.REPRODUCED and res.status[2] == OraclePass.REPRODUCED
    assert res.status[1] in (OraclePass.OTHER_TREE, OraclePass.STUCK)
    assert int((res.status == OraclePass.STUCK).sum()) == res.stuck_sentences
    assert int((res.status != OraclePass.REPRODUCED).sum()) == res.mismatched_sentences
    tb = hybrid.pack([[2, 0, 2], [3, 4, 0, 3]])
    again = hybrid.oracle_pass(tb, copy=False)
    assert again.status.tolist() == res.status[:2].tolist()


def test_unlabeled_pass_labels_stay_minus_one(eager):
    # the label log of an unlabeled treebank is filled with -1 once per buffer, not per call:
    # the view copy=False gives out is read-only, so it cannot be changed in between
    tb = eager.pack([[2, 0, 2], [0], [3, 3, 0, 3]])
    first = eager.oracle_pass(tb, copy=False)
    assert first.labels.tolist() == [-1] * first.transitions
    with pytest.raises(ValueError):
        first.labels[0] = 5
    again = eager.oracle_pass(tb, copy=False)
    assert again.labels.tolist() == [-1] * again.transitions
    assert eager.oracle_pass(tb).labels.flags.writeable  # a copy is the caller's


def test_parse_refuses_tabs_and_line_breaks():
    with pytest.raises(UsageError, match=r"word 2 \('c\\td'\) contains a tab or a line break"):
        sentence_columns("parse", ["a", "c\td"])
    with pytest.raises(UsageError, match="upos value 1"):
        sentence_columns("parse", ["a"], upos=["X\n"])
    with pytest.raises(UsageError, match="every lemma value must be a non-empty string"):
        sentence_columns("parse", ["a"], lemmas=[None])
    assert sentence_columns("parse", ["New York", "x"])["form"] == ["New York", "x"]  # spaces are allowed


def test_interpreter_fallback_names_what_is_missing():
    it = _fallback(Interpreter, load_system("arc-eager"), "no C compiler found")
    assert it.legal(it.initial(1)) == ["SHIFT", "RIGHT-ARC"]  # the configuration API works
    with pytest.raises(UsageError, match=r"batch\(\) needs the compiled kernel.*no C compiler found.*fallback=False"):
        it.batch([1])
    with pytest.raises(UsageError, match=r"oracle_pass\(\) needs the compiled kernel"):
        it.oracle_pass([[0]])


def test_exported_names():
    assert tsdsl.kernels.ILLEGAL == -1_000_000_000
    assert tsdsl.kernels.StateBatch.__name__ == "StateBatch"
    assert "load_parser" in dir(tsdsl) and "ILLEGAL" in dir(tsdsl.kernels)


def test_initial_takes_an_integer_length(hybrid):
    for bad, what in ((2.9, "float"), (True, "bool"), ("3", "str")):
        with pytest.raises(UsageError, match=f"initial: the sentence length must be an integer, not {what}"):
            hybrid.initial(bad)
    with pytest.raises(UsageError, match="must be 0 or more"):
        hybrid.initial(-1)
    assert hybrid.initial(np.int64(3)).n == 3


@pytest.mark.parametrize("n", [2 ** 31, 2 ** 32, 2 ** 32 + 3, 2 ** 63, 2 ** 64 + 1, 10 ** 30])
def test_a_length_beyond_the_limit_is_refused_before_any_cast(hybrid, n):
    """A trial: batch([2**32]) made a 0-word configuration (2**32 + 3 three words), batch([2**31])
    said "negative length", initial(2**31) raised a bare OverflowError."""
    from tsdsl.kernels.arguments import MAX_SENTENCE_LENGTH

    limit = f"longest sentence tsdsl takes \\({MAX_SENTENCE_LENGTH:,} words\\)"
    with pytest.raises(UsageError, match=f"sentence 1 has {n} words, more than the {limit}"):
        hybrid.batch([3, n])
    with pytest.raises(UsageError, match=f"initial: the sentence length: {n} words is more than the {limit}"):
        hybrid.initial(n)
    with pytest.raises(UsageError, match=limit):
        hybrid.batch(np.array([n], dtype=np.uint64) if n < 2 ** 64 else [n])
    with pytest.raises(UsageError, match="gold heads: sentence 0 has 10001 words"):
        hybrid.pack([[0] * (MAX_SENTENCE_LENGTH + 1)])


def test_the_longest_sentence_is_taken(hybrid):
    from tsdsl.kernels.arguments import MAX_SENTENCE_LENGTH

    assert hybrid.initial(MAX_SENTENCE_LENGTH).n == MAX_SENTENCE_LENGTH
    assert hybrid.batch([MAX_SENTENCE_LENGTH, 0]).lengths.tolist() == [MAX_SENTENCE_LENGTH, 0]


def test_out_of_memory_says_what_could_not_be_allocated():
    """A trial: batch([10**8]) under a memory limit raised MemoryError with no message."""
    import subprocess
    import sys

    code = """if True:
        import resource, sys
        import numpy as np
        from tsdsl.kernels import compile_system
        ks = compile_system("arc-eager", fallback=False)
        dag = compile_system("dag", fallback=False)
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (size + 200 * 2 ** 20, resource.RLIM_INFINITY))
        for make in (lambda: ks.batch([10000] * 5000), lambda: dag.initial(10000)):
            try:
                make()
            except MemoryError as exc:
                print(exc)
    """
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 2, res.stdout
    assert lines[0].startswith("cannot allocate a batch of 5000 configurations (") and "10000 words" in lines[0]
    assert lines[1].startswith("cannot allocate a configuration of 10000 words (")


def test_oracle_errors_are_value_errors(hybrid):
    """The docs say every API error is a ValueError; a spec without an oracle block and an
    unknown oracle or loss name raised an OracleError that `except ValueError` missed."""
    from tsdsl.errors import OracleError

    assert issubclass(OracleError, ValueError)
    attardi = compile_system("attardi", fallback=False)
    batch = attardi.batch([2], [[0, 1]])
    for call in (batch.costs, batch.loss, lambda: attardi.oracle_pass([[0, 1]])):
        with pytest.raises(ValueError, match="declares no fast oracle"):
            call()
    gold = hybrid.batch([2], [[0, 1]])
    with pytest.raises(ValueError, match="has no oracle loss nope"):
        gold.costs(oracle="nope")
    with pytest.raises(ValueError, match="has no oracle loss"):
        gold.loss(loss="nope")
