"""Writing files so that nothing is lost or half-written: through a temporary file in the
same directory and a rename (a reader sees the old file or the new one, never a part); and
reading back the JSON records that caches write so.

Every output file of the command line goes through :func:`atomic_output`, so they all behave
alike: missing parent directories are created, a path that names a directory (an existing
one, or text ending in a separator) is refused before anything is written, and an error names
the path the user gave, never the hidden temporary file.  Commands call :func:`check_output`
(a model directory: :func:`check_parents`) before their work, which also creates and removes a
file where the output will be written: a read-only mount, a pseudo file system such as
``/proc`` or a directory the user may not write is refused at once, not after an hour of
training (``os.access`` cannot tell: it answers yes to root, and knows nothing of mounts).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from .errors import UsageError


def check_output(path: str | Path, *, try_writing: bool = True) -> Path:
    """The file ``path`` names, checked as an output: not a directory, in a place that takes a
    new file (``try_writing``: see :func:`check_parents`).  Commands call it before their work,
    so that a bad ``-o`` is refused at once rather than after a long run.

    Raises:
        UsageError: ``path`` ends in a separator, is an existing directory, lies under a
            file (a parent that is not a directory), or (``try_writing``) its directory takes
            no new file.
    """
    text = os.fspath(path)
    if text.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        raise UsageError(f"cannot write {text}: the path names a directory (it ends in {text[-1]})")
    target = Path(text)
    if target.is_dir():
        raise UsageError(f"cannot write {text}: is a directory")
    check_parents(target, try_writing=try_writing)
    return target


def check_not_input(output: str | Path, *inputs: Optional[str | Path], option: str = "-o") -> None:
    """Refuse an output that is one of the command's input files, before any work: writing
    it would replace the input (a gold treebank, the only copy of a plain text) with the
    command's output, an easy and unrecoverable mistake.  The same file is found through
    symbolic and hard links too (``os.path.samefile`` when both exist); an input of ``-`` or
    None (standard input) is compared with the file standard input was redirected from.

    Raises:
        UsageError: ``OPTION OUTPUT is the input file INPUT: ...``, naming both as given.
    """
    out = os.fspath(output)
    if out == "-":
        return
    exists = os.path.exists(out)
    for given in inputs:
        piped = given is None or os.fspath(given) == "-"
        name = "standard input" if piped else os.fspath(given)
        try:
            if not exists:
                # no such file yet, but the path may name an input once the missing directories it
                # passes through are made (`sub/../IN.conllu`): the paths as resolved
                same = not piped and os.path.realpath(name) == os.path.realpath(out)
            elif piped:
                same = os.path.samestat(os.fstat(0), os.stat(out))
            else:
                same = os.path.samefile(name, out)
        except (OSError, ValueError):  # a missing input: reading it will say so
            same = False
        if same:
            raise UsageError(f"{option} {out} is the input file {name}: writing it would replace the input; "
                             "choose another output file")


def check_input(path: str | Path, what: str = "input") -> Path:
    """The file ``path`` names, checked as an input before any work: it exists, is a file (not
    a directory) and opens for reading.  A command whose inputs are read late (``tsdsl train``
    reads ``--dev`` after the oracle work on ``--train``, minutes in) calls it first, so that
    a typo is refused at once.  ``what`` says which input it is in the message; ``-``
    (standard input, which the CoNLL-U reader takes) passes.

    Raises:
        UsageError: ``cannot read the WHAT PATH: REASON``, naming ``path`` as given.
    """
    text = os.fspath(path)
    target = Path(text)
    if text == "-":
        return target
    if target.is_dir():
        raise UsageError(f"cannot read the {what} {text}: is a directory")
    if not target.exists():
        raise UsageError(f"cannot read the {what} {text}: no such file")
    try:
        with open(target, "rb"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot read the {what} {text}: {exc.strerror or exc}") from None
    return target


def check_parents(path: str | Path, *, try_writing: bool = True) -> None:
    """Refuse a path whose directory cannot take a new file, before any work: it lies under a
    file (its missing directories could not be created), or (``try_writing``) a file created
    in its nearest existing parent fails (read-only, not permitted, a pseudo file system).
    The test file is removed at once, and no missing directory is created here: a command
    that then stops for another reason leaves nothing behind.

    Raises:
        UsageError: ``cannot write PATH: REASON``, naming ``path`` as given.
    """
    for parent in Path(path).parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"cannot write {os.fspath(path)}: {parent} is not a directory")
            if try_writing:
                _try_creating_in(parent, path)
            return


def _try_creating_in(directory: Path, path: str | Path) -> None:
    """Create and remove a hidden file in ``directory``, which ``path`` is to be written in.

    Raises:
        UsageError: the file could not be created (the reason is the system's).
    """
    try:
        fd, probe = tempfile.mkstemp(prefix=".tsdsl-probe-", suffix=".tmp", dir=directory)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(f"cannot write {os.fspath(path)}: cannot create a file in {directory} ({reason})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def check_output_dir(path: str | Path, named: Optional[str | Path] = None) -> Path:
    """The directory ``path`` names, checked as an output before a command's work: created
    when missing, and a file made in it and removed at once, so that a directory that cannot
    be written (a read-only or virtual file system, no permission) is refused at once rather
    than after a long build.  Errors name ``named`` (default: ``path``), the path the user
    gave: a file's directory is checked on behalf of the file.

    Raises:
        UsageError: ``path`` exists and is not a directory, lies under a file, or cannot be
            created or written into (the system's reason).
    """
    text = os.fspath(named if named is not None else path)
    target = Path(path)
    if target.exists() and not target.is_dir():
        which = "it" if named is None else os.fspath(target)
        raise UsageError(f"cannot write {text}: {which} exists and is not a directory")
    check_parents(target)
    try:
        target.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".tsdsl-check-", dir=target)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"cannot write {text}: {exc.strerror or exc}") from None
    return target


@contextlib.contextmanager
def atomic_output(path: str | Path) -> Iterator[BinaryIO]:
    """Open the output file ``path`` for writing bytes; it appears (or replaces the old one)
    only when the block ends without an error, synced to disk.  Missing parent directories are
    created.  On any error the temporary file is removed and ``path`` is left as it was.

    Raises:
        UsageError: ``path`` names a directory (see :func:`check_output`).
        OSError: writing failed; its ``filename`` is ``path`` as given.
    """
    target = check_output(path, try_writing=False)  # creating the temporary file is the test
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode_for(target))  # mkstemp's 0600 would make every page private
        os.replace(tmp, target)
    except BaseException as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError) and own_step_failed(exc, target):
            # name the user's path, not the temporary file
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc
        raise


def own_step_failed(exc: OSError, target: Path) -> bool:
    """Whether ``exc`` came from writing ``target`` itself: no file named (a write, a sync), a
    directory on the way to it (creating the parents), or a hidden temporary sibling
    (``.NAME.*``, as :func:`atomic_output` and model directories make them), including one that
    could not even be created, whose name the caller never saw."""
    if exc.filename is None:
        return True
    failed = Path(os.fspath(exc.filename))
    if failed in target.parents:
        return True
    return failed.parent == target.parent and failed.name.startswith(f".{target.name}.")


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) through :func:`atomic_output`."""
    with atomic_output(path) as fh:
        fh.write(text.encode("utf-8"))


def mode_for(target: Path) -> int:
    """Keep the mode of an existing file; otherwise what open() would give (0666 & ~umask)."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def read_json_record(path: Path) -> Optional[dict]:
    """A cached JSON record, or None when it is absent or unreadable (a cache miss: the
    caller computes the record again)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None

