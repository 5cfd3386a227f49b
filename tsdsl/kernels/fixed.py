"""Fixed (hand-written, not generated) Cython modules shipped next to the kernels, built
through the same machinery (:func:`tsdsl.kernels.build.build`): cached by the hash of
their text, the tsdsl, Cython and Python versions and the flags, never committed built."""

from __future__ import annotations

import hashlib
from importlib import resources

from .build import build, load_module
from .codegen import Generated

_MODULES: dict[str, object] = {}


def fixed_module(name: str):
    """The built module of ``tsdsl/kernels/NAME.pyx`` (built once, then from the cache).

    Raises:
        KernelBuildError: no C compiler, or the build failed.
    """
    mod = _MODULES.get(name)
    if mod is None:
        text = resources.files(__package__).joinpath(f"{name}.pyx").read_text(encoding="utf-8")
        gen = Generated(source=text, digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        action_names=(), losses=(), incremental=(), label=f"the compiled {name} module")
        mod = _MODULES[name] = load_module(build(gen))
    return mod
