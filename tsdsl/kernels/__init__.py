"""Compiled kernels: Cython generated from a spec's IR, built and cached (`tsdsl compile`)."""

from .build import compile_system, kernel_cache_dir

__all__ = ["compile_system", "kernel_cache_dir"]
