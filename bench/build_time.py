"""A new spec's first `tsdsl verify` on a cold kernel cache: build and work apart, with the
checks' kernel (what `verify` builds) beside the full kernel (what `verify` built when every
kernel was a full one, and what `train` and `parse` build), side by side in one run.

    python bench/build_time.py [--specs SPEC ...] [--max-n 7]

Each row uses fresh cache directories.  Default specs: arc-swift with k <= 6 written as a new
user would (generated here, 13 rewrite rules), arc-eager and NM Covington.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def arc_swift(k: int) -> str:
    """Qi & Manning's arc-swift with LEFT-ARC-i / RIGHT-ARC-i for i <= k, as rewrite rules."""
    lines = [f'system arc_swift_{k} "arc-swift (Qi & Manning 2017), k <= {k}"', "  produces projective",
             "  root     left", "  lists    σ, β", "  initial  ([root], [1..n])", "  terminal (σ, [])",
             "  finally  attach headless to root", "  SHIFT : (σ, b|β) => (σ|b, β)"]
    for i in range(1, k + 1):
        stack = "|".join(f"s{j}" for j in range(i, 0, -1))
        guard = " and ".join(f"has_head(s{j})" for j in range(1, i))
        guard = f"  if {guard}" if guard else ""
        lines.append(f"  LEFT-ARC-{i} : (σ|{stack}, b|β) => (σ, b|β)  arc b -> s{i}{guard}")
        lines.append(f"  RIGHT-ARC-{i} : (σ|{stack}, b|β) => (σ|s{i}|b, β)  arc s{i} -> b{guard}")
    return "\n".join(lines) + "\n"


def _run(argv: list[str], cache: Path) -> tuple[float, str]:
    env = dict(os.environ, TSDSL_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "tsdsl.cli", *argv], capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, proc.stdout  # (the build notice goes to stderr)


def _verify_times(text: str) -> tuple[float, float]:
    """(work, build) seconds from verify's last line `(W s + B s kernel build)` or `(W s)`."""
    m = re.search(r"\((\d+\.\d+) s(?: \+ (\d+\.\d+) s kernel build)?\)\s*$", text.strip())
    if m is None:
        raise SystemExit(f"cannot read verify's times from:\n{text[-2000:]}")
    return float(m.group(1)), float(m.group(2) or 0.0)


def measure(spec: Path, max_n: int, scratch: Path) -> dict:
    wall, out = _run(["verify", str(spec), "--max-n", str(max_n)], scratch / "checks")
    work, build = _verify_times(out)
    full_build, _ = _run(["compile", str(spec)], scratch / "full")
    _, out = _run(["verify", str(spec), "--max-n", str(max_n)], scratch / "full")
    full_work, _ = _verify_times(out)
    return {"spec": spec.name, "wall": wall, "build": build, "work": work, "full_build": full_build,
            "full_work": full_work}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--specs", nargs="*", type=Path, default=None,
                    help="spec files (default: a generated arc-swift k <= 6, arc-eager, NM Covington)")
    ap.add_argument("--max-n", type=int, default=7, help="verify's exhaustive bound (default: 7)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        specs = args.specs
        if specs is None:
            swift = scratch / "arc-swift-6.ts"
            swift.write_text(arc_swift(6), encoding="utf-8")
            specs = [swift, ROOT / "systems" / "arc-eager.ts", ROOT / "systems" / "covington-nm.ts"]
        print("| spec | first verify, wall | checks kernel build | verify work | full kernel build | "
              "verify work on the full kernel |")
        print("|---|---|---|---|---|---|")
        for k, spec in enumerate(specs):
            r = measure(spec, args.max_n, scratch / str(k))
            print(f"| {r['spec']} | {r['wall']:.1f} s | {r['build']:.1f} s | {r['work']:.1f} s | "
                  f"{r['full_build']:.1f} s | {r['full_work']:.1f} s |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
