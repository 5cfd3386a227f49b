"""Build, cache and load compiled kernels.

A kernel lives in ``<cache>/<key>/`` where the key hashes the generated source and the
shared Cython it includes (``_runtime.pxi``, ``_api.pxi``, ``_learn.pxi``, copied next to
it), the tsdsl, Cython and Python versions and the compiler flags.  Building happens in
a private temporary directory that is renamed into place at the end, so two
processes compiling the same spec at once both succeed (the loser of the rename
uses the winner's build).  Without a working C compiler, :func:`compile_system` falls
back to the interpreter with a warning that says why.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Union

from .. import ir
from .._version import __version__
from ..errors import KernelBuildError, UsageError
from .codegen import GENERATOR_VERSION, Generated, generate

COMPILE_FLAGS = ("-O3", "-g0")  # -g0: no debug info, half the compile time
PROFILE_FLAGS = {"full": COMPILE_FLAGS, "explore": ("-O2", "-g0")}
"""The C compiler's flags by kernel profile (tsdsl.kernels.codegen.PROFILES): parsing and
training run at -O3; the checks' kernel, a third of the code, builds at -O2, which compiles
faster than -O3 and runs the searches as fast (bench/build_time.py measures both)."""

_LOADED: dict[str, object] = {}

_DRIVER = r"""
import sys
from setuptools import Distribution, Extension
from Cython.Build import cythonize
name, src, out, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
ext = Extension(name, [src], extra_compile_args=list(flags))
dist = Distribution({"name": name, "ext_modules": cythonize([ext], quiet=True, language_level=3)})
dist.script_args = ["build_ext"]
cmd = dist.get_command_obj("build_ext")
cmd.build_lib = out
cmd.build_temp = out + "/build-temp"
dist.run_command("build_ext")
"""


class NoCompilerError(KernelBuildError):
    """No C compiler is available to build kernels."""


def kernel_cache_dir() -> Path:
    """Where kernels are cached: $TSDSL_CACHE_DIR, else $XDG_CACHE_HOME/tsdsl/kernels (~/.cache).
    Always an absolute path (see :func:`absolute_dir`)."""
    env = os.environ.get("TSDSL_CACHE_DIR")
    if env:
        return absolute_dir(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return absolute_dir(Path(base) / "tsdsl" / "kernels")


def absolute_dir(path: Union[str, Path]) -> Path:
    """``path`` made absolute against the current directory (``~`` expanded), as a kernel
    cache directory must be: the build runs Cython in a subdirectory of it, where a relative
    path would name nothing, and a process that changes directory must keep finding it."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def _cython_version() -> str:
    try:
        import Cython
    except ImportError:  # pragma: no cover - Cython is a dependency
        raise KernelBuildError("Cython is not installed (pip install cython)") from None
    return Cython.__version__


def cache_key(gen: Generated) -> str:
    """The cache key of a generated kernel (see module docstring)."""
    h = hashlib.sha256()
    included = (f"{name}\0{text}" for name, text in gen.includes)
    for part in (gen.source, *included, __version__, GENERATOR_VERSION, _cython_version(), sys.version,
                 platform.machine(), sysconfig.get_config_var("EXT_SUFFIX") or "", " ".join(_flags(gen)),
                 os.environ.get("CC", "")):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:32]


def _flags(gen: Generated) -> tuple[str, ...]:
    return PROFILE_FLAGS[gen.profile]


def _compiler() -> Optional[str]:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    return shutil.which(words[0]) if words else None


BUILD_NOTICES: list[Callable[[str], None]] = []
"""Told (a one-line message) when a kernel is about to be compiled, not taken from the cache:
a first build takes seconds to a minute, so the command line says so on stderr, terminal or
not (see tsdsl.cli.main)."""


@dataclass(frozen=True)
class Built:
    """A kernel on disk: its directory, module name and extension file."""

    directory: Path
    module_name: str
    extension: Path
    pyx: Path
    cached: bool


def build(gen: Generated, cache_dir: Optional[Path] = None, *, force: bool = False) -> Built:
    """Build ``gen`` into the cache (or find it there).

    Raises:
        NoCompilerError: no C compiler.
        KernelBuildError: Cython or the compiler failed; the message names the generated file.
    """
    root = absolute_dir(cache_dir) if cache_dir is not None else kernel_cache_dir()
    key = cache_key(gen)
    name = f"tsdsl_kernel_{key}"
    final = root / key
    found = _find(final, name)
    if found is not None and not force:
        return found
    if _compiler() is None:
        raise NoCompilerError("no C compiler found (set CC, or install gcc/clang) to build kernels")
    for notice in BUILD_NOTICES:
        notice(f"building {gen.label} (first use; cached afterwards in {root})")
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".build-{key[:8]}-", dir=root))
    except OSError as exc:
        raise KernelBuildError(f"cannot write the kernel cache {root}: {exc.strerror or exc}") from None
    try:
        pyx = tmp / f"{name}.pyx"
        gen.write(pyx)
        proc = _run_build([sys.executable, "-c", _DRIVER, name, str(pyx), str(tmp), *_flags(gen)], tmp)
        if proc.returncode != 0:
            kept = root / f"failed-{key}"
            shutil.rmtree(kept, ignore_errors=True)
            os.replace(tmp, kept)
            reason, message = _compiler_message(proc.stdout + proc.stderr)
            raise KernelBuildError(f"building the kernel {kept / pyx.name} failed: {reason}"
                                   + (f"\n{message}" if message else ""))
        shutil.rmtree(tmp / "build-temp", ignore_errors=True)
        (tmp / "kernel.json").write_text(json.dumps({
            "module": name, "tsdsl": __version__, "generator": GENERATOR_VERSION, "cython": _cython_version(),
            "python": sys.version.split()[0], "flags": list(_flags(gen)), "profile": gen.profile, "digest": gen.digest,
        }, indent=2), encoding="utf-8")
        if force and final.exists():
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:
            if _find(final, name) is None:  # not a lost race: a real failure
                raise
        built = _find(final, name)
        if built is None:
            raise KernelBuildError(f"the kernel build left no extension in {final}")
        return Built(built.directory, name, built.extension, built.pyx, cached=False)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _run_build(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run the build driver and wait for it.  It runs in a process group of its own, and an
    interrupt (Ctrl-C: KeyboardInterrupt) or any other exception here kills the whole group,
    the C compiler included: killing the driver alone left the compiler running on, orphaned,
    when the interrupt reached only this process (``kill -INT``, a supervisor)."""
    group = os.name == "posix"
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=group)
    try:
        out, err = proc.communicate()
    except BaseException:
        try:
            if group:
                os.killpg(proc.pid, 9)  # SIGKILL (the name is POSIX-only)
            else:
                proc.kill()
        except OSError:
            pass
        proc.wait()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _find(final: Path, name: str) -> Optional[Built]:
    if not (final / "kernel.json").is_file():
        return None
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    ext = final / f"{name}{suffix}"
    if not ext.is_file():
        return None
    return Built(final, name, ext, final / f"{name}.pyx", cached=True)


def _compiler_message(text: str) -> tuple[str, str]:
    """The reason of a failed Cython/compiler run in one line, and the informative lines of
    its log (at most 30: the located messages, else the log's end without the build driver's
    Python tracebacks).  The reason is the first located message, else the log's last line (the
    exception that ended the build, the compiler driver's verdict), so that a one-line report
    of the failure still says why.  The lines repeat nothing the reason says: a compiler that
    runs but fails (``CC=/bin/false``) gives one line, not 30 lines of distutils traceback."""
    lines = [l for l in text.splitlines() if l.strip()]
    located = [l for l in lines if re.search(r"\.(pyx|c):\d+:\d+: ", l)]
    if located:
        chosen = located[:30]
        return chosen[0].strip(), "\n".join(chosen)
    useful: list[str] = []
    seen: set[str] = set()
    for line in lines:
        if _traceback_line(line):
            continue
        # a chained exception says its message again (DistutilsExecError, then CompileError)
        said = line.split(": ", 1)[-1] if re.match(r"^[\w.]+(Error|Exception): ", line) else line
        if said in seen:
            continue
        seen.add(said)
        useful.append(line)
    chosen = useful[-30:]
    if not chosen:
        return "(no output)", ""
    reason = chosen[-1].strip()
    return reason, "\n".join(chosen[:-1])


def _traceback_line(line: str) -> bool:
    """A line of a Python traceback (its frames, the source lines and carets under them, the
    headers between chained exceptions): the build driver's, not the compiler's, and of no
    use to a user whose compiler failed."""
    return (line.startswith((" ", "\t")) or line.startswith("Traceback (most recent call last)")
            or line.startswith("During handling of the above exception")
            or line.startswith("The above exception was the direct cause"))


def load_module(built: Built):
    """Import a built kernel (once per process)."""
    mod = _LOADED.get(built.module_name)
    if mod is not None:
        return mod
    loader = importlib.machinery.ExtensionFileLoader(built.module_name, str(built.extension))
    spec = importlib.util.spec_from_file_location(built.module_name, str(built.extension), loader=loader)
    if spec is None:
        raise KernelBuildError(f"cannot load the kernel {built.extension}")
    mod = importlib.util.module_from_spec(spec)
    try:
        loader.exec_module(mod)
    except ImportError as exc:
        raise KernelBuildError(f"cannot load the kernel {built.extension}: {exc}") from None
    _LOADED[built.module_name] = mod
    return mod


def compile_system(spec: Union[str, Path, ir.System], *, overrides: Optional[dict] = None,
                   cache_dir: Optional[Path] = None, fallback: bool = True, force: bool = False,
                   profile: str = "full"):
    """The compiled form of a spec (a path or a loaded system), built or taken from the cache.

    ``profile="explore"`` asks for a kernel that only runs the checks (exploration, the
    derivation and exact-loss searches: no learner, no batch API), which builds in a fraction
    of the time; where the cache already holds the spec's full kernel, that one is used.

    Returns a :class:`~tsdsl.kernels.compiled.CompiledSystem`; where the kernel cannot be
    built (no C compiler, or one that fails) and ``fallback`` is true, warns with the reason
    and returns an
    :class:`~tsdsl.interp.Interpreter` instead (the same configuration API, no
    batch operations).
    """
    from ..lang import load_system
    from .compiled import CompiledSystem

    system = spec if isinstance(spec, ir.System) else load_system(spec, overrides)
    gen = generate(system, profile)
    if profile != "full" and not force:
        full = generate(system)
        if _find((absolute_dir(cache_dir) if cache_dir is not None else kernel_cache_dir()) / cache_key(full),
                 f"tsdsl_kernel_{cache_key(full)}") is not None:
            gen = full  # a full kernel serves the checks too, and is already built
    try:
        built = build(gen, cache_dir, force=force)
    except KernelBuildError as exc:
        # no compiler, or one that fails: as `tsdsl verify` does, fall back where allowed
        if not fallback:
            raise
        from ..interp import Interpreter

        reason = _one_line(exc)
        warnings.warn(f"{reason}; using the interpreter for {system.name}", RuntimeWarning, stacklevel=2)
        return _fallback(Interpreter, system, reason)
    return CompiledSystem(system, gen, load_module(built), built)


def _one_line(exc: Exception) -> str:
    """A build error's message in one line that still says why (its first line, and the
    next one when the first only introduces it)."""
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    if not lines:
        return type(exc).__name__
    return f"{lines[0]} {lines[1]}" if lines[0].endswith(":") and len(lines) > 1 else lines[0]


_KERNEL_ONLY = ("batch", "pack", "oracle_pass", "derive", "explore", "legal_mask", "costs", "costs_dict", "run",
                "attach_gold", "loss")
"""The CompiledSystem methods the interpreter has no counterpart of (batch operations)."""


def _fallback(interpreter_class, system: ir.System, reason: str):
    """The interpreter :func:`compile_system` returns without a C compiler: its configuration
    API, and, for each batch operation of a compiled system, a UsageError that says why it
    is missing (rather than an AttributeError far from the cause)."""

    def missing(name: str):
        def method(self, *args, **kwargs):
            raise UsageError(f"{name}() needs the compiled kernel, and {system.name} could not be built ({reason}); "
                             f"compile_system(..., fallback=False) raises the build error instead of falling back "
                             f"to the interpreter")
        method.__name__ = name
        return method

    cls = type("InterpreterFallback", (interpreter_class,), {name: missing(name) for name in _KERNEL_ONLY})
    return cls(system)
