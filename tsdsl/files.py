"""Writing files so that nothing is lost or half-written: through a temporary file in the
same directory and a rename (a reader sees the old file or the new one, never a part); and
reading back the JSON records that caches write so.

Every output file of the command line goes through :func:`atomic_output`, so they all behave
alike: missing parent directories are created, a path that names a directory (an existing
one, or text ending in a separator) is refused before anything is written, and an error names
the path the user gave, never the hidden temporary file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from .errors import UsageError


def check_output(path: str | Path) -> Path:
    """The file ``path`` names, checked as an output: not a directory.  Commands call it before
    their work too, so that a bad ``-o`` is refused at once rather than after a long run.

    Raises:
        UsageError: ``path`` ends in a separator, is an existing directory, or lies under a
            file (a parent that is not a directory).
    """
    text = os.fspath(path)
    if text.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        raise UsageError(f"cannot write {text}: the path names a directory (it ends in {text[-1]})")
    target = Path(text)
    if target.is_dir():
        raise UsageError(f"cannot write {text}: is a directory")
    check_parents(target)
    return target


def check_parents(path: str | Path) -> None:
    """Refuse a path that lies under a file: its missing directories could not be created.

    Raises:
        UsageError: the nearest existing parent of ``path`` is not a directory.
    """
    for parent in Path(path).parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"cannot write {os.fspath(path)}: {parent} is not a directory")
            return


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
    target = check_output(path)
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
        if isinstance(exc, OSError) and exc.filename in (None, tmp, os.fspath(target.parent)):
            # our own step failed: name the user's path, not the temporary file
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc
        raise


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

