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


def _interrupted(args: list[str], wait: float) -> tuple[int, float]:
    """Run ``tsdsl ARGS``, send SIGINT after ``wait`` seconds: (exit code, seconds it took to stop)."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "tsdsl.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
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
