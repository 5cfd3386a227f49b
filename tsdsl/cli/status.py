"""A status line for long commands whose single steps can take minutes (a coverage search):
redrawn every second on a terminal, a plain line every ``log_every`` seconds elsewhere (a log
file, a pipe), so that a run is never silent for long.  A thread draws it: the compiled
searches release the GIL, so the line moves while one runs."""

from __future__ import annotations

import threading
from typing import Callable, Optional, TextIO


class StatusLine:
    """``describe()`` gives the text of the line (called from the drawing thread)."""

    def __init__(self, stream: Optional[TextIO], describe: Callable[[], str], *, tick: float = 1.0,
                 log_every: float = 30.0):
        self.stream = stream
        self.describe = describe
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.tick = tick if self.tty else log_every
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._width = 0
        self._lock = threading.Lock()

    def __enter__(self) -> "StatusLine":
        if self.stream is not None:
            self._thread = threading.Thread(target=self._run, name="tsdsl-status", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()

    def _run(self) -> None:
        while not self._stop.wait(self.tick):
            self.draw()

    def draw(self) -> None:
        """Write the line now (a terminal: over the previous one)."""
        text = self.describe()
        with self._lock:
            if self.tty:
                self.stream.write("\r" + text.ljust(self._width))
                self._width = len(text)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()

    def clear(self) -> None:
        """Rub the line out (a terminal), so that what is printed next starts on a clean line."""
        with self._lock:
            if self.tty and self._width:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
                self._width = 0

    def write(self, line: str) -> None:
        """Print a line of its own above the status line."""
        self.clear()
        with self._lock:
            self.stream.write(line + "\n")
            self.stream.flush()

