"""Screenshots of the pictures in headless Chromium: what `tsdsl draw` and `tsdsl trace --html`
look like in a browser.

It writes, into a scratch directory, a demo parse of ``docs/examples/sample.conllu`` with
deliberate mistakes (one wrong label, two wrong heads), draws it against the sample as gold
(``draw.html``), draws the plain sample as SVG (``draw.svg``), traces the SLP3 Fig. 18.9
derivation of arc-eager (``trace.html``), and has Chromium save a PNG of each page in
``--out``.  Without a ``chromium`` (or ``chromium-browser``, ``google-chrome``) on the PATH it
says so and exits 0 (Debian: ``apt-get install chromium``).

    python bench/screenshot.py [--out DIR] [--width 1200] [--height 800]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "docs" / "examples" / "sample.conllu"
SLP3 = "RIGHT-ARC SHIFT LEFT-ARC RIGHT-ARC SHIFT LEFT-ARC RIGHT-ARC REDUCE REDUCE REDUCE"
# (sentence, word) -> (HEAD, DEPREL) of the demo parse: mistakes on purpose
MISTAKES = {(1, 2): ("3", "amod"), (1, 5): ("1", "obl"), (2, 8): ("7", "nmod")}


def demo_parse(sample: Path) -> str:
    """The sample with the heads and labels of :data:`MISTAKES` changed."""
    out, sent, lines = [], 1, sample.read_text(encoding="utf-8").splitlines()
    for line in lines:
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit() and (sent, int(cols[0])) in MISTAKES:
            cols[6], cols[7] = MISTAKES[(sent, int(cols[0]))]
        if not line.strip():
            sent += 1
        out.append("\t".join(cols))
    return "\n".join(out) + "\n"


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(browser: str, page: Path, png: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--screenshot={png}", f"--window-size={width},{height}",
               page.resolve().as_uri()]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="shots", help="directory for the PNGs and the pages (default: %(default)s)")
    ap.add_argument("--width", type=int, default=1200, help="window width (default: %(default)s)")
    ap.add_argument("--height", type=int, default=800, help="window height (default: %(default)s)")
    args = ap.parse_args(argv)
    browser = find_chromium()
    if browser is None:
        print("screenshot: skipped: no chromium on the PATH (Debian: apt-get install chromium)")
        return 0
    sys.path.insert(0, str(REPO))
    from tsdsl.cli import main as tsdsl

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pred = out / "demo-pred.conllu"
    pred.write_text(demo_parse(SAMPLE), encoding="utf-8")
    pages = {"draw": out / "draw.html", "draw-svg": out / "draw.svg", "trace": out / "trace.html",
             "trace-gold": out / "trace-gold.html"}
    steps = [["draw", str(pred), str(SAMPLE), "-o", str(pages["draw"])],
             ["draw", str(SAMPLE), "-o", str(pages["draw-svg"])],
             ["trace", "arc-eager-slp", "--words", "Book the flight through Houston", "--actions", SLP3,
              "--html", str(pages["trace"])],
             ["trace", "covington-nm", "--gold", str(SAMPLE), "--sentence", "2", "--html", str(pages["trace-gold"])]]
    for argv_ in steps:
        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            try:
                status = tsdsl(argv_)
            finally:
                sys.stdout = saved
        if status:
            print(f"screenshot: tsdsl {' '.join(argv_)} failed ({status})", file=sys.stderr)
            return 1
    for name, page in pages.items():
        png = out / f"{name}.png"
        screenshot(browser, page, png, args.width, args.height)
        print(f"{png}: {page.name} at {args.width}x{args.height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
