"""Benchmark: two parsers in one process, turn about (a change inside a kernel, or of a model).

``parse_speed.py --before REV`` parses in a fresh process per code and model: fair, but this
machine's processes differ by up to a tenth in speed for the same code and model (where their
memory lands), more than many kernel changes are worth.  Here one process loads the model
twice: once on this checkout's kernel, once on the kernel of git revision REV (extracted
with ``git archive``, built by a child process into the same kernel cache under its own
key, then imported here beside this one: each kernel is a module of its own name), and
parses the test set with them turn about (this, REV, REV, this, ...).  The same code around
the kernel and the same memory serve both, so the ratio is the kernel's alone: an A/A run
(``--before HEAD`` on a clean checkout) gives 1.00.

Only for a change inside the kernel (``tsdsl/kernels/*.pxi`` and what generates it): REV's
kernel is driven by this checkout's Python, which must call it the same way.  The parses of
the two are compared ("same parses").

With ``--against MODEL2`` the other parser is this checkout's on another model of the same
system instead (two feature sets, two trainings): its parses differ, and only the speeds
compare.

    python bench/kernel_ab.py MODEL --before REV [--rounds 10] [--whole]
    python bench/kernel_ab.py MODEL --against MODEL2 [--rounds 10] [--whole]
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from learn import DATA  # noqa: E402

TREEBANK = "en_gum"
_KERNEL_OF = """
import json, sys
from pathlib import Path
from tsdsl.learn.parser import load_parser
built = load_parser(Path(sys.argv[1])).engine.kernel.built
print(json.dumps([str(built.extension), built.module_name]))
"""


def kernel_of(rev: str, model: Path, workdir: Path):
    """The kernel module of revision ``rev`` for ``model``'s system: built by a child process
    that imports ``rev``'s code, then imported here under its own name."""
    src = workdir / f"src-{rev}"
    if not src.exists():
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
        src.mkdir(parents=True)
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    env = dict(os.environ, PYTHONPATH=str(src))
    proc = subprocess.run([sys.executable, "-c", _KERNEL_OF, str(model)], env=env, capture_output=True, text=True,
                          cwd=workdir)
    if proc.returncode != 0:
        raise SystemExit(f"bench/kernel_ab.py: the kernel of {rev} did not build: "
                         f"{(proc.stderr.strip().splitlines() or ['failed'])[-1]}")
    path, name = json.loads(proc.stdout.strip().splitlines()[-1])
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path, loader=loader))
    loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="One model parsed by this checkout's kernel and by a revision's, "
                                             "or two models by this checkout's, turn about in one process.")
    ap.add_argument("model", type=Path, help="a model directory written by `tsdsl train` (no default)")
    ap.add_argument("--before", metavar="REV", default="HEAD",
                    help="the revision whose kernel is compared (default: %(default)s, an A/A run on a clean "
                         "checkout)")
    ap.add_argument("--against", type=Path, metavar="MODEL2",
                    help="instead of --before: this checkout's parser on another model of the same system "
                         "(default: none)")
    ap.add_argument("--rounds", type=int, default=10, help="parses per kernel, turn about; medians and minima "
                    "are shown (default: %(default)s)")
    ap.add_argument("--whole", action="store_true", help="time the whole `Parser.parse_sentences` call, not the "
                    "kernel's search alone (default: the search alone)")
    args = ap.parse_args(argv)
    for model in (args.model, args.against):
        if model is not None and not (model / "model.json").is_file():
            print(f"bench/kernel_ab.py: {model}: no model there (no model.json)", file=sys.stderr)
            return 2
    test_file = DATA / TREEBANK / "test.conllu"
    if not test_file.is_file():
        print(f"skipped: no {TREEBANK} test set under {DATA} (set TSDSL_UD_DATA)")
        return 0
    import numpy as np
    import tsdsl.learn.parser as parser_module
    from tsdsl.kernels.compiled import CompiledSystem
    from tsdsl.learn.data import columns_of, make_batch
    from tsdsl.treebank.conllu import read_conllu

    now = parser_module.load_parser(args.model)
    if args.against is not None:
        before, other = parser_module.load_parser(args.against), args.against.name
    else:
        with tempfile.TemporaryDirectory(prefix="tsdsl-kernel-ab-") as tmp:
            before_module = kernel_of(args.before, args.model, Path(tmp))
        compile_system = parser_module.compile_system

        def with_before_kernel(system, **kw):
            kernel = compile_system(system, **kw)
            return CompiledSystem(system, kernel.gen, before_module, None)

        parser_module.compile_system = with_before_kernel
        try:
            before, other = parser_module.load_parser(args.model), args.before
        finally:
            parser_module.compile_system = compile_system
    test = read_conllu(test_file)
    batches = [make_batch([columns_of(s) for s in test], p.model.features.token_attrs) for p in (now, before)]
    words = batches[0].words
    heads = [p.engine.parse(b, beam=1)[:2] for p, b in zip((now, before), batches)]
    same = all(np.array_equal(a, b) for a, b in zip(*heads))
    times: dict[str, list[float]] = {"now": [], "before": []}
    runs = {"now": (now, batches[0]), "before": (before, batches[1])}
    for r in range(args.rounds):
        for key in ("now", "before") if r % 2 == 0 else ("before", "now"):
            p, batch = runs[key]
            t0 = time.process_time()
            if args.whole:
                p.parse_sentences(test)
            else:
                p.engine.parse(batch, beam=1)
            times[key].append(time.process_time() - t0)
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    low = {k: min(v) for k, v in times.items()}
    what = "whole call" if args.whole else "kernel alone"
    one = before.engine.kernel.module is now.engine.kernel.module
    print(f"{args.model.name}: {what}, words/s, {args.rounds} rounds turn about; same parses: "
          f"{'yes' if same else 'no'}; the same kernel module: {'yes' if one else 'no'}")
    for key, label in (("before", other), ("now", args.model.name if args.against else "this checkout")):
        print(f"  {label:>14}: median {words / med[key]:,.0f}  best {words / low[key]:,.0f}")
    print(f"  now / before: median {med['before'] / med['now']:.3f}  best {low['before'] / low['now']:.3f}")
    return 0 if same or args.against is not None else 1


if __name__ == "__main__":
    sys.exit(main())
