"""Building, caching and the safety of generated kernels.

- hostile spec text (names, titles, comments with quotes, newlines, triple quotes,
  backslashes, comment closers, non-ASCII) only ever changes comment lines of the
  generated code, and those stay one line of printable ASCII;
- one nasty spec is really compiled and behaves like the interpreter, labels included;
- a second compile is a cache hit; concurrent compiles of one spec both succeed;
- a failing build names the generated file and the compiler's message;
- without a C compiler, loading falls back to the interpreter with a warning.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tsdsl import Interpreter, load_system_text
from tsdsl.errors import KernelBuildError, SpecError
from tsdsl.kernels import compile_system
from tsdsl.kernels.build import build
from tsdsl.kernels.codegen import Generated, comment, generate

ROOT = Path(__file__).resolve().parent.parent

TEMPLATE = '''# {c1}
system {sys} "{title}"   # {c2}
  cite     "{title}"
  root     left
  lists    {L1}, {L2}
  flag     {flag}[token]
  initial  ([root], [1..n])
  terminal ({L1}, [])
  # {c3}
  {SH} : ({L1}, b|{L2}) => ({L1}|b, {L2})   then {flag}[b] := true   # {c4}
  {LA} : ({L1}|s, b|{L2}) => ({L1}, b|{L2})  arc b -> s
  {RA} : ({L1}|s, b|{L2}) => ({L1}|s|b, {L2})  arc s -> b
  {RE} : ({L1}|s, {L2}) => ({L1}, {L2})  if has_head(s) and {flag}[s]
  oracle   {oracle} "{title}"
  reachable h -> d if h in {L1} and d in {L2} or h in {L2} and d in {L2} or h in {L2} and d in {L1} and not has_head(d)
'''

PLAIN = dict(c1="", c2="", c3="", c4="", sys="plain", title="t", L1="S", L2="B", flag="f", SH="SH", LA="LA",
             RA="RA", RE="RE", oracle="o")

NASTY = ['"""', "'''", "\\", "\\\\n", "*/", "/*", "??/", "\r", "\u2028", "\x0b", "\x0c", "\x00", "é", "∞", "λ",
         "😀", "#", "{", "}", "%s", "\t", "cdef int x", "\\x41"]

comment_text = st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=6)), max_size=6).map("".join).map(
    lambda t: t.replace("\n", " "))


def _escape_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


names = st.from_regex(r"[^\W\d][\w]{0,6}(-[^\W\d][\w]{0,3})?", fullmatch=True).filter(lambda n: "\n" not in n)


def _strip_comments(source: str) -> list[str]:
    return [line for line in source.split("\n") if not line.lstrip().startswith("#")]


@settings(max_examples=150, deadline=None)
@given(c1=comment_text, c2=comment_text, c3=comment_text, c4=comment_text, title=comment_text,
       sysname=names, L1=names, L2=names, flag=names, SH=names, LA=names, RA=names, RE=names, oracle=names)
def test_hostile_text_only_reaches_inert_comments(c1, c2, c3, c4, title, sysname, L1, L2, flag, SH, LA, RA, RE,
                                                 oracle):
    assume(len({L1, L2, flag}) == 3 and len({SH, LA, RA, RE}) == 4)
    text = TEMPLATE.format(c1=c1, c2=c2, c3=c3, c4=c4, sys=sysname, title=_escape_string(title), L1=L1, L2=L2,
                           flag=flag, SH=SH, LA=LA, RA=RA, RE=RE, oracle=oracle)
    try:
        system = load_system_text(text, file="hostile\u2028\"'.ts")
    except SpecError:
        assume(False)
    plain = load_system_text(TEMPLATE.format(**PLAIN), file="plain.ts")
    hostile_src, plain_src = generate(system).source, generate(plain).source
    # everything but comments is identical: the spec's text cannot reach code
    assert _strip_comments(hostile_src) == _strip_comments(plain_src)
    for line in hostile_src.split("\n"):
        if line.lstrip().startswith("#"):
            assert line.isascii() and line.isprintable() and "*/" not in line, line
    assert hostile_src.count("\n") == plain_src.count("\n")


def test_comment_escaping():
    assert comment('a"""b\\c\r\n\u2028é*/??/') == 'a"""b\\\\c\\r\\n\\u2028\\xe9* /?\\?/'


def test_a_nasty_spec_compiles_and_agrees_with_the_interpreter(tmp_path):
    fields = dict(c1='""" \\ \u2028 */ é', c2="'''", c3="\r\\x41 ∞", c4="#{}", sys="σύστημα", title='q\\"uo\\\\te',
                  L1="σ", L2="β", flag="ünshifted", SH="SHIFT-é", LA="LEFT-ARC", RA="RIGHT_ARC", RE="rédüce",
                  oracle="óracle")
    system = load_system_text(TEMPLATE.format(**fields), file=str(tmp_path / 'we"ird\u2028.ts'))
    ks = compile_system(system, cache_dir=tmp_path / "cache", fallback=False)
    it = Interpreter(system)
    labels = ['"""', "\\", "é:sub", "x\ny", "*/"]
    rng = random.Random(3)
    for n in range(0, 7):
        c, k = it.initial(n), ks.initial(n)
        while not it.is_terminal(c):
            legal = it.legal(c)
            assert ks.legal(k) == legal
            if not legal:
                break
            a, lab = rng.choice(legal), rng.choice(labels)
            it.apply(c, a, lab)
            ks.apply(k, a, lab)
            assert ks.snapshot(k) == it.snapshot(c)
        assert ks.output(k) == it.output(c)


def test_second_compile_is_a_cache_hit(tmp_path, monkeypatch):
    from tsdsl.kernels import build as build_module

    told = []
    monkeypatch.setattr(build_module, "BUILD_NOTICES", [told.append])
    spec = ROOT / "systems" / "arc-eager.ts"
    first = compile_system(spec, cache_dir=tmp_path, fallback=False)
    second = compile_system(spec, cache_dir=tmp_path, fallback=False)
    assert second.built.cached and second.built.directory == first.built.directory
    # the compile (not the cache hit) was announced, naming the system and the cache
    assert told == [f"building the compiled kernel of arc_eager (first use; cached afterwards in {tmp_path})"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".build-")]


def test_cli_compile_reports_cache_hit_and_emits_pyx(tmp_path):
    spec = str(ROOT / "systems" / "arc-hybrid.ts")
    env = dict(os.environ, TSDSL_CACHE_DIR=str(tmp_path / "cache"))
    run = lambda *a: subprocess.run([sys.executable, "-m", "tsdsl.cli", *a], capture_output=True, text=True, env=env)
    first, second = run("compile", spec), run("compile", spec)
    assert first.returncode == 0 and "built in" in first.stdout, first.stderr
    assert second.returncode == 0 and "cache hit in" in second.stdout
    out = run("compile", spec, "--emit-pyx", str(tmp_path / "k.pyx"))
    text = (tmp_path / "k.pyx").read_text()
    assert out.returncode == 0 and "\n    # arc-hybrid.ts:" in text and "systems/arc-hybrid.ts" not in text
    # the shared Cython is included, not copied, and written next to the .pyx so it builds there
    assert 'include "_runtime.pxi"' in text and "cdef struct St" not in text
    assert "cdef struct St" in (tmp_path / "_runtime.pxi").read_text()
    assert {"_api.pxi", "_learn.pxi"} <= {p.name for p in tmp_path.iterdir()}
    assert run("compile", spec, "--emit-pyx").stdout == text


def test_a_build_is_announced_off_a_terminal_and_its_time_shown(tmp_path):
    """`tsdsl verify` and `coverage` spent ~14 s building a kernel with no word when stderr was
    not a terminal, and printed "(0.3 s)" as if that were all.  A build is announced on stderr
    (a pipe here) and timed beside the command's own time; a cache hit is neither."""
    import re

    spec = str(ROOT / "systems" / "arc-hybrid.ts")
    env = dict(os.environ, TSDSL_CACHE_DIR=str(tmp_path / "cache"))
    run = lambda *a: subprocess.run([sys.executable, "-m", "tsdsl.cli", *a], capture_output=True, text=True, env=env)
    notice = (f"tsdsl: building the compiled kernel of arc_hybrid (first use; cached afterwards in "
              f"{tmp_path / 'cache'}) ...")
    first = run("verify", spec, "--max-n", "2", "--examples", "0")
    assert first.returncode == 0, first.stderr
    assert notice in first.stderr.splitlines()
    assert re.search(r"^  \(\d+\.\d s \+ \d+\.\d s kernel build\)$", first.stdout, re.M), first.stdout
    again = run("coverage", spec, str(ROOT / "docs" / "examples" / "sample.conllu"))
    assert again.returncode == 0 and "building" not in again.stderr, again.stderr
    assert re.search(r"^time: +\d+\.\d\d s$", again.stdout, re.M), again.stdout


def test_coverage_reports_show_the_kernel_build_time():
    from tsdsl.kernels.graphs import GraphCoverage
    from tsdsl.verify.coverage import CoverageReport

    tree = CoverageReport("s", "f.conllu", 10, None, kernel_build_seconds=14.2).render_text()
    graph = GraphCoverage("s", "f.conllu", 10, kernel_build_seconds=14.2).render_text()
    assert tree.endswith("s (+ 14.20 s kernel build)") and graph.endswith("s (+ 14.20 s kernel build)")
    assert CoverageReport("s", "f.conllu", 10, None).render_text().endswith(" s")


def test_concurrent_compiles_of_one_spec_both_succeed(tmp_path):
    code = ("import sys; from tsdsl.kernels import compile_system; "
            "ks = compile_system(sys.argv[1], cache_dir=sys.argv[2], fallback=False); "
            "st = ks.initial(3); print(ks.built.extension, ks.legal(st))")
    spec = str(ROOT / "systems" / "covington.ts")
    procs = [subprocess.Popen([sys.executable, "-c", code, spec, str(tmp_path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e for _, e in outs]
    assert outs[0][0] == outs[1][0]
    assert "['SHIFT']" in outs[0][0]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert len(left) == 1 and not left[0].startswith((".build-", "failed-"))


def test_failed_build_names_the_generated_file_and_the_error(tmp_path):
    bad = Generated(source="cdef int f(:\n    pass\n", digest="x", action_names=(), losses=(),
                    incremental=())
    with pytest.raises(KernelBuildError) as err:
        build(bad, tmp_path)
    text = str(err.value)
    assert "failed" in text and ".pyx" in text and str(tmp_path) in text
    assert ".pyx:1:" in text  # Cython's located message


def test_a_relative_cache_directory_from_the_environment_is_made_absolute(tmp_path, monkeypatch):
    """TSDSL_CACHE_DIR=relenv: the build runs Cython inside the cache, where the relative path
    named nothing (Cython's 'doesn't match any files', and every command fell back to the
    interpreter).  The failing source shows that Cython now reads the generated file."""
    from tsdsl.kernels.build import kernel_cache_dir

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TSDSL_CACHE_DIR", "relenv")
    assert kernel_cache_dir() == tmp_path / "relenv"
    bad = Generated(source="cdef int f(:\n    pass\n", digest="x", action_names=(), losses=(), incremental=())
    with pytest.raises(KernelBuildError) as err:
        build(bad)
    first = str(err.value).splitlines()[0]
    assert "doesn't match any files" not in str(err.value)
    # the reason is on the first line, which is all a one-line note shows
    assert first.startswith(f"building the kernel {tmp_path / 'relenv'}") and ".pyx:1:" in first


def test_cli_compile_into_a_relative_cache_directory(tmp_path):
    """`tsdsl compile SPEC -o relcache` builds into ./relcache (it ended in a Cython traceback)."""
    env = {k: v for k, v in os.environ.items() if k != "TSDSL_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    run = subprocess.run([sys.executable, "-m", "tsdsl.cli", "compile", "arc-hybrid", "-o", "relcache"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0 and "built in" in run.stdout, run.stderr
    assert [p.name for p in (tmp_path / "relcache").iterdir() if not p.name.startswith(".")] != []
    assert f"{tmp_path / 'relcache'}" in run.stdout
    # the same directory through the environment, from the same place: a cache hit
    env["TSDSL_CACHE_DIR"] = "relcache"
    again = subprocess.run([sys.executable, "-m", "tsdsl.cli", "compile", "arc-hybrid"],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert again.returncode == 0 and "cache hit" in again.stdout, again.stderr


def test_the_interpreter_fallback_note_says_why(monkeypatch, capsys):
    """A build failure whose message puts the reason on the next line still gets a note that
    names it (the note showed `...failed:)` with nothing after)."""
    import tsdsl.kernels
    from tsdsl import load_system
    from tsdsl.cli.checks import kernel_of

    def failing(*a, **k):
        raise KernelBuildError("building the kernel /c/failed-x/k.pyx failed:\nValueError: no such file")

    monkeypatch.setattr(tsdsl.kernels, "compile_system", failing)
    assert kernel_of(load_system("arc-hybrid")) == (None, 0.0)
    note = capsys.readouterr().err
    assert "failed: ValueError: no such file); searching in the interpreter" in note


def test_without_a_compiler_loading_falls_back_to_the_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.warns(RuntimeWarning, match="no C compiler"):
        system = compile_system(ROOT / "systems" / "arc-eager.ts", cache_dir=tmp_path)
    assert isinstance(system, Interpreter)
    with pytest.raises(KernelBuildError):
        compile_system(ROOT / "systems" / "arc-eager.ts", cache_dir=tmp_path, fallback=False)


def test_cache_key_covers_the_included_shared_cython():
    """Editing a shared .pxi must rebuild kernels: the key hashes the included files too."""
    import dataclasses

    from tsdsl import load_system
    from tsdsl.kernels.build import cache_key

    gen = generate(load_system(ROOT / "systems" / "arc-eager.ts"))
    names = [name for name, _ in gen.includes]
    # the full kernel: every shared .pxi of the package, once (a file left out would not reach the build)
    assert sorted(names) == sorted(p.name for p in (ROOT / "tsdsl" / "kernels").glob("*.pxi"))
    assert names[0] == "_runtime.pxi"
    edited = tuple((n, t + "\n# edited\n" if n == "_learn.pxi" else t) for n, t in gen.includes)
    assert cache_key(dataclasses.replace(gen, includes=edited)) != cache_key(gen)


TOY_TRAIN = ROOT / "docs" / "examples" / "toy-train.conllu"


@pytest.mark.parametrize("argv", [
    ["compile", "arc-standard-slp"],
    ["train", "arc-eager", "--train", str(TOY_TRAIN), "--out", "MODEL", "--epochs", "1", "--quiet"],
])
def test_a_compiler_that_fails_gives_a_short_message_without_traceback(tmp_path, monkeypatch, capsys, argv):
    """`CC=/bin/false tsdsl compile` (or train) printed ~30 lines of distutils traceback after
    the one-line reason (trial 31 M3): now the reason, the kept build directory and what still
    works without a kernel, after `tsdsl:`, exit status 1."""
    from tsdsl.cli import main

    monkeypatch.setenv("CC", "/bin/false")
    monkeypatch.setenv("TSDSL_CACHE_DIR", str(tmp_path / "cache"))
    code = main([str(tmp_path / "m") if a == "MODEL" else a for a in argv])
    err = capsys.readouterr().err
    assert code == 1
    lines = [l for l in err.splitlines() if not l.endswith("...")]  # (the build notice)
    assert len(lines) == 2, err
    assert lines[0].startswith(f"tsdsl: building the kernel {tmp_path / 'cache'}{os.sep}failed-")
    assert lines[0].endswith("failed: distutils.errors.DistutilsExecError: command '/bin/false' failed with exit code 1")
    assert "still work without it, through the interpreter" in lines[1]
    assert "Traceback" not in err and 'File "' not in err
    assert not (tmp_path / "m").exists()


def test_without_a_compiler_compile_says_what_still_works(tmp_path, monkeypatch, capsys):
    """`compile` without a compiler printed a bare `no C compiler found ...` (trial 31 L5)."""
    from tsdsl.cli import main

    monkeypatch.setenv("CC", "/nonexistent/cc")
    monkeypatch.setenv("TSDSL_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["compile", "arc-standard-slp"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tsdsl: no C compiler found (set CC, or install gcc/clang) to build kernels\n")
    assert "`tsdsl verify`, `coverage`, `check-oracle` and `trace` still work without it" in err


def test_a_compiler_that_fails_falls_back_to_the_interpreter_where_allowed(tmp_path, monkeypatch):
    """`compile_system` fell back only when no compiler existed, while `verify` also fell back
    after a failing one: both now fall back, and the warning says why."""
    monkeypatch.setenv("CC", "/bin/false")
    spec = ROOT / "systems" / "arc-standard-slp.ts"
    with pytest.warns(RuntimeWarning, match=r"command '/bin/false' failed with exit code 1; using the interpreter "
                                            r"for arc_standard_slp"):
        system = compile_system(spec, cache_dir=tmp_path)
    assert isinstance(system, Interpreter) and type(system).__name__ == "InterpreterFallback"
    with pytest.raises(KernelBuildError, match="/bin/false"):
        compile_system(spec, cache_dir=tmp_path, fallback=False)


def test_prebuild_builds_a_fixed_module_beside_the_caller(tmp_path, monkeypatch):
    """`train` and `parse` start the fixed modules' builds in a thread before they build the
    spec's kernel, so the builds overlap; the module is then loaded from the cache, its build
    neither repeated nor lost (a first toy training on 2 cores: 28 s -> 19 s)."""
    from tsdsl.kernels import build as build_mod
    from tsdsl.kernels import fixed

    monkeypatch.setenv("TSDSL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(fixed, "_MODULES", {})
    monkeypatch.setattr(fixed, "_PENDING", {})
    notices = []
    monkeypatch.setattr(build_mod, "BUILD_NOTICES", [notices.append])
    thread = fixed.prebuild(["conllu_fast"])
    assert thread is not None and fixed.prebuild(["conllu_fast"]) is None   # one build in flight, not two
    module = fixed.fixed_module("conllu_fast")   # waits for the thread's build
    assert not thread.is_alive() and len(notices) == 1 and "conllu_fast" in notices[0]
    assert fixed._PENDING == {} and module is not None
    assert list((tmp_path / "cache").glob("*/tsdsl_kernel_*.so"))   # built into this cache, not found elsewhere
    assert fixed.prebuild(["conllu_fast"]) is None   # loaded: nothing to build
