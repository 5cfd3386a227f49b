"""Fixed (hand-written, not generated) Cython modules shipped next to the kernels, built
through the same machinery (:func:`tsdsl.kernels.build.build`): cached by the hash of
their text, the tsdsl, Cython and Python versions and the flags, never committed built."""

from __future__ import annotations

import hashlib
import threading
from importlib import resources
from typing import Iterable, Optional

from ..errors import TsdslError
from .build import build, load_module
from .codegen import Generated

_MODULES: dict[str, object] = {}
_PENDING: dict[str, threading.Thread] = {}


def _generated(name: str) -> Generated:
    text = resources.files(__package__).joinpath(f"{name}.pyx").read_text(encoding="utf-8")
    return Generated(source=text, digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                     action_names=(), losses=(), incremental=(), label=f"the compiled {name} module")


def prebuild(names: Iterable[str]) -> Optional[threading.Thread]:
    """Start building the modules ``names`` into the cache in a background thread, one after
    another, and return it (None when there is nothing to build).  A command that will need
    them calls this before it builds its spec's kernel: the compiler runs in child processes,
    so the builds overlap (on two cores a first ``tsdsl train`` waits for the longest build, not
    for the three in turn).  A build that fails here is retried by :func:`fixed_module`, which
    reports it."""
    todo = [n for n in names if n not in _MODULES and n not in _PENDING]
    if not todo:
        return None

    def run() -> None:
        for name in todo:
            try:
                build(_generated(name))
            except (TsdslError, OSError):
                pass  # fixed_module builds it again and says why

    thread = threading.Thread(target=run, name="tsdsl-prebuild", daemon=True)
    for name in todo:
        _PENDING[name] = thread
    thread.start()
    return thread


def fixed_module(name: str):
    """The built module of ``tsdsl/kernels/NAME.pyx`` (built once, then from the cache; a
    build :func:`prebuild` started is waited for, not repeated).

    Raises:
        KernelBuildError: no C compiler, or the build failed.
    """
    mod = _MODULES.get(name)
    if mod is None:
        pending = _PENDING.pop(name, None)
        if pending is not None:
            pending.join()
        mod = _MODULES[name] = load_module(build(_generated(name)))
    return mod
