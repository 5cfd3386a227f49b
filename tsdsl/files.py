"""Writing files so that nothing is lost or half-written: through a temporary file in the
same directory and a rename (a reader sees the old file or the new one, never a part); and
reading back the JSON records that caches write so."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Optional


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, mode_for(path))  # mkstemp's 0600 would make every page private
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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

