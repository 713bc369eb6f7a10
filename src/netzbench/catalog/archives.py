"""Unpacking a zip or tar archive of raw files, refusing members that escape the target or oversized archives.

Its own module so that the processors that unpack archives (:mod:`.readers.staging`) need not import
:mod:`.fetch`, which imports the catalogue table, which imports the processors: no import circle.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path

#: Refuse archives that would unpack to more than this many bytes.
MAX_ARCHIVE_BYTES = 50 * 1024**3
_CHUNK = 1 << 20


class UnsafeArchive(RuntimeError):
    """An archive tries to write outside its target, is too large, or is corrupt."""


def _within(target: Path, member: str) -> Path:
    dest = (target / member).resolve()
    root = target.resolve()
    if dest != root and root not in dest.parents:
        raise UnsafeArchive(f"archive member {member!r} would be written outside {root}")
    return dest


def safe_extract(archive: Path, target: Path, max_bytes: int = MAX_ARCHIVE_BYTES) -> list[Path]:
    """Extract a zip or tar archive into ``target`` with zip-slip and size checks.

    Raises :class:`UnsafeArchive` for a member escaping ``target`` (absolute
    paths, ``..``, links pointing outside), an archive whose members add up to
    more than ``max_bytes``, or a corrupt archive. Nothing is extracted unless
    every member passes.
    """
    target.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                infos = zf.infolist()
                if sum(i.file_size for i in infos) > max_bytes:
                    raise UnsafeArchive(f"{archive.name} unpacks to more than {max_bytes} bytes")
                plan = [(i, _within(target, i.filename)) for i in infos]
                bad = zf.testzip()
                if bad is not None:
                    raise UnsafeArchive(f"{archive.name} is corrupt (bad CRC in {bad})")
                for info, dest in plan:
                    if info.is_dir():
                        dest.mkdir(parents=True, exist_ok=True)
                        continue
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out, _CHUNK)
                    written.append(dest)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tf:
                members = tf.getmembers()
                if sum(m.size for m in members) > max_bytes:
                    raise UnsafeArchive(f"{archive.name} unpacks to more than {max_bytes} bytes")
                for m in members:
                    _within(target, m.name)
                    if m.issym() or m.islnk():
                        raise UnsafeArchive(f"archive member {m.name!r} is a link; refusing to extract")
                    if not (m.isfile() or m.isdir()):
                        raise UnsafeArchive(f"archive member {m.name!r} is not a regular file")
                for m in members:
                    dest = _within(target, m.name)
                    if m.isdir():
                        dest.mkdir(parents=True, exist_ok=True)
                        continue
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    src = tf.extractfile(m)
                    assert src is not None
                    with src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out, _CHUNK)
                    written.append(dest)
        else:
            raise UnsafeArchive(f"{archive.name} is neither a zip nor a tar archive (corrupt download?)")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        raise UnsafeArchive(f"{archive.name} is corrupt: {exc}") from exc
    return written
