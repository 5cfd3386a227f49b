"""Compiled kernels: Cython generated from a spec's IR, built and cached (`tsdsl compile`)."""

from .build import compile_system, kernel_cache_dir

_LAZY = {"ILLEGAL": "compiled", "CompiledSystem": "compiled", "OraclePass": "compiled", "Treebank": "compiled",
         "StateBatch": "batch", "BestOutputs": "batch", "NoFreeOutput": "batch"}


def __getattr__(name: str):
    """The batch API's names (``ILLEGAL``, ``StateBatch`` ...) without importing numpy on
    ``import tsdsl.kernels``."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'tsdsl.kernels' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["compile_system", "kernel_cache_dir", *_LAZY]
