"""Ctrl-C stops a long kernel call (trial 32: a wide beam parse ignored SIGINT for minutes).

The kernels' sentence loops run without the GIL, where Python runs no signal handler; they
check for a pending signal once per sentence (``interrupted()`` in ``_learn.pxi``), stop, and
raise KeyboardInterrupt, which the command line turns into exit code 130 with nothing written.
Each test starts a run that would take minutes, interrupts it after a few seconds and expects
it to end within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_learn import SYSTEMS, conllu_text, generate_treebank

REPO = Path(__file__).resolve().parent.parent
GRACE = 20.0  # seconds the process may take to stop after the signal (one sentence, a loaded machine)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    from tsdsl.learn.train import TrainOptions, train

    d = tmp_path_factory.mktemp("interrupt")
    (d / "train.conllu").write_text(conllu_text(generate_treebank(120, seed=5), prefix="t"), encoding="utf-8")
    # long enough that no run below ends on its own within minutes at beam 256
    (d / "long.conllu").write_text(conllu_text(generate_treebank(20_000, seed=6), prefix="l"), encoding="utf-8")
    opts = TrainOptions(epochs=1, tagger=False, parser_tags="gold")
    train(str(SYSTEMS / "arc-eager.ts"), str(d / "train.conllu"), None, str(d / "model"), opts, progress=None)
    return d


def _default_sigint() -> None:
    """In the child before it runs: SIGINT back to its default, so that Python installs its
    KeyboardInterrupt handler even when these tests run in a process that ignores SIGINT (a
    background job of a shell without job control: a child inherits the ignoring)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupted(args: list[str], wait: float) -> tuple[int, float]:
    """Run ``tsdsl ARGS``, send SIGINT after ``wait`` seconds: (exit code, seconds it took to stop)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "tsdsl.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, preexec_fn=_default_sigint)
    time.sleep(wait)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"still running {GRACE} s after Ctrl-C")
    return code, time.monotonic() - t0


def test_ctrl_c_stops_beam_parsing(toy):
    # (greedy parsing of the same file takes about a second: reading and writing dominate)
    out = toy / "out.conllu"
    code, _ = _interrupted(["parse", str(toy / "model"), str(toy / "long.conllu"), "-o", str(out), "--beam", "256",
                            "--quiet"], wait=4.0)
    assert code == 130
    assert not out.exists()


@pytest.mark.parametrize("beam", ["1", "256"])
def test_ctrl_c_stops_a_training_epoch(toy, beam):
    # (greedy training goes through this file at about 500 k words/s, 30 epochs in 11 s: hence 1000)
    out = toy / f"m-{beam}"
    code, _ = _interrupted(["train", str(SYSTEMS / "arc-eager.ts"), "--train", str(toy / "long.conllu"),
                            "--out", str(out), "--epochs", "1000", "--no-tagger", "--parser-tags", "gold",
                            "--beam", beam, "--quiet"], wait=12.0)
    assert code == 130
    assert not out.exists()


@pytest.mark.parametrize("spec", ["easy-first.ts", "dag.ts"])
def test_ctrl_c_stops_instance_and_graph_parsing(toy, tmp_path, spec):
    # capacity inf (parse_instances) and multihead (parse_graphs) have sentence loops of their
    # own; each checks for Ctrl-C once a sentence, like the others
    from tsdsl.learn.parser import load_parser
    from tsdsl.learn.train import TrainOptions, train
    from tsdsl.treebank.conllu import read_conllu

    train_file = toy / "train.conllu"
    if spec == "dag.ts":  # a multihead spec trains on enhanced dependencies (DEPS)
        train_file = tmp_path / "deps.conllu"
        text = (toy / "train.conllu").read_text("utf-8")
        rows = [line.split("\t") for line in text.split("\n")]
        train_file.write_text("\n".join("\t".join(r[:8] + [f"{r[6]}:{r[7]}"] + r[9:]) if len(r) == 10 else r[0]
                                        for r in rows), "utf-8")
    model = tmp_path / "model"
    train(str(SYSTEMS / spec), str(train_file), None, str(model), TrainOptions(epochs=1, tagger=False,
                                                                                parser_tags="gold"), progress=None)
    from tsdsl.learn.data import columns_of, make_batch

    from tsdsl.kernels.graphs import parse_graphs

    parser = load_parser(model)

    def run(b):  # the kernel call parsing does for this kind of spec
        if spec == "dag.ts":
            return parse_graphs(parser.engine.kernel.module, parser.engine.learner, b.offsets, b.tokens, b.words)
        return parser.engine.parse(b)

    columns = [columns_of(s) for s in read_conllu(str(toy / "long.conllu"))] * 40
    batch = make_batch(columns, parser.model.features.token_attrs)  # made first: the kernel call alone is timed
    t0 = time.process_time()
    run(make_batch(columns[:2000], parser.model.features.token_attrs))
    whole = (time.process_time() - t0) * len(columns) / 2000  # the kernel call's time, estimated
    assert whole > 2 * 2.0, "the run is too short to tell a stop from the end"
    assert _interrupt_after(0.5, lambda: run(batch)) < 1.5, "the kernel did not stop within a sentence or so of Ctrl-C"


def _interrupt_after(seconds: float, run) -> float:
    """Call ``run()`` with a KeyboardInterrupt raised in this thread after ``seconds``: how long
    it took to stop after that (the test fails if it ends without being interrupted)."""
    import _thread
    import threading

    # interrupt_main does nothing while SIGINT is ignored (see _default_sigint): Python's
    # handler for the test's duration
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    return time.monotonic() - t0 - seconds


def test_ctrl_c_stops_a_derivation():
    # the search oracle derives every gold tree in one kernel call (training on a whole
    # treebank, coverage): it checks for Ctrl-C once a sentence, like the parsing loops
    from test_learn import generate_treebank

    from tsdsl.kernels import compile_system
    from tsdsl.lang import load_system

    kernel = compile_system(load_system(SYSTEMS / "arc-standard-swap.ts"), fallback=False)
    trees = [[w[3] for w in s] for s in generate_treebank(2000, seed=6)]
    copies = 1500
    small, big = kernel.pack(trees), kernel.pack(trees * copies)  # packed first: the kernel call alone is timed
    t0 = time.process_time()
    kernel.derive(small)
    whole = (time.process_time() - t0) * copies  # the big call's time, estimated
    assert whole > 2 * 2.0, "the run is too short to tell a stop from the end"
    assert _interrupt_after(0.5, lambda: kernel.derive(big)) < 2.0


def test_ctrl_c_stops_an_exhaustive_exploration():
    # `tsdsl verify` explores every configuration of each length in one kernel call; it
    # checks for Ctrl-C every 65,536 configurations (Covington at n = 8: 22 M of them, 30 s)
    from tsdsl.kernels import compile_system
    from tsdsl.lang import load_system

    kernel = compile_system(load_system(SYSTEMS / "covington.ts"), fallback=False)
    t0 = time.process_time()
    assert kernel.module.explore(6, 10**9)[0] == 0
    assert time.process_time() - t0 < 0.5  # n = 8 has over a hundred times as many configurations
    # (a limit of 3 M configurations, about 4 s, keeps the memory small if Ctrl-C went unseen)
    assert _interrupt_after(0.5, lambda: kernel.module.explore(8, 3_000_000)) < 2.0


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads the process table from /proc")
def test_ctrl_c_during_a_kernel_build_stops_the_compiler_too(tmp_path):
    """An interrupt that reaches only tsdsl (``kill -INT``, a supervisor) used to kill the
    build driver and leave the C compiler running on, orphaned.  The build runs in a process
    group of its own, killed whole: nothing of it is left running, and nothing is left in the
    cache."""
    cache = tmp_path / "cache"
    env = dict(os.environ, TSDSL_CACHE_DIR=str(cache),
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "tsdsl.cli", "compile", str(SYSTEMS / "covington.ts")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            preexec_fn=_default_sigint)
    deadline = time.monotonic() + 120
    while len(_processes_mentioning(str(cache)) - {proc.pid}) < 2:  # the driver and the compiler it started
        assert proc.poll() is None and time.monotonic() < deadline, "no compiler started"
        time.sleep(0.05)
    time.sleep(2.0)  # the compiler has read its source (an orphan would then run to its end)
    assert proc.poll() is None, "the build ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=GRACE) == 130
    time.sleep(0.5)
    assert not _processes_mentioning(str(cache)), "a build process is still running"
    assert not any(cache.iterdir()), list(cache.iterdir())


def _processes_mentioning(text: str) -> set[int]:
    """The processes whose command line contains ``text``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                pass
    return found
