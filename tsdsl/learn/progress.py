"""A one-line progress bar per training epoch: sentences done, speed, then dev scores."""

from __future__ import annotations

import time
from typing import Optional, TextIO


class Progress:
    """Redraws one line on a terminal; prints one line per epoch elsewhere (logs, pipes)."""

    def __init__(self, stream: Optional[TextIO], epochs: int, sentences: int, words: int, width: int = 24):
        self.stream = stream
        self.epochs = epochs
        self.total = sentences
        self.width = width
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.done = self.words = 0
        self.t0 = 0.0
        self.epoch = 0

    def start(self, epoch: int) -> None:
        self.epoch, self.done, self.words, self.t0 = epoch, 0, 0, time.perf_counter()

    def _speed(self) -> float:
        dt = time.perf_counter() - self.t0
        return self.words / dt if dt > 0 else 0.0

    def _bar(self) -> str:
        fill = int(self.width * self.done / max(self.total, 1))
        return "[" + "#" * fill + "." * (self.width - fill) + "]"

    def advance(self, sentences: int, words: int) -> None:
        self.done += sentences
        self.words += words
        if self.tty:
            self.stream.write(f"\repoch {self.epoch}/{self.epochs} {self._bar()} {self.done}/{self.total} "
                              f"sentences, {self._speed() / 1000:.1f}k words/s")
            self.stream.flush()

    def finish(self, record: dict, improved: bool) -> None:
        if self.stream is None:
            return
        line = (f"epoch {self.epoch}/{self.epochs} {self._bar()} {self.done} sentence{'s' * (self.done != 1)}, "
                f"{self._speed() / 1000:.1f}k words/s, {record['updates']} updates")
        if "dev_elas" in record:   # multihead systems: enhanced graphs
            line += f" | dev ELAS {100 * record['dev_elas']:.2f} EULAS {100 * record['dev_eulas']:.2f}"
            line += " (best)" if improved else ""
        elif "dev_las" in record:
            line += f" | dev UAS {100 * (record['dev_uas'] or 0):.2f} LAS {100 * (record['dev_las'] or 0):.2f}"
            line += " (best)" if improved else ""
        self.stream.write(("\r" if self.tty else "") + line + "\n")
        self.stream.flush()
