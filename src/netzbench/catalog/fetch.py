"""Obtaining raw dataset files: mirror first, then the canonical URLs.

Raw files land in a git-ignored download cache
(``<repo>/.netzbench/downloads/<dataset>/raw``), never half-written: every
file is written to a temporary name, hashed, and renamed only when its sha256
matches the catalogue (where known). A mismatch always fails, naming the
file and both hashes (a file known only by its git blob SHA-1 is checked by
that). Archives are extracted with path and size checks (:mod:`.archives`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import shown
from .archives import UnsafeArchive, safe_extract
from .table import Dataset, Source

_CHUNK = 1 << 20


class DatasetUnavailable(RuntimeError):
    """The raw files of a dataset could not be obtained from any source."""

    def __init__(self, dataset: str, tried: list[tuple[str, str]]):
        self.dataset = dataset
        self.tried = tried
        lines = "; ".join(f"{where}: {why}" for where, why in tried) or "no source configured"
        super().__init__(
            f"dataset {dataset!r} could not be obtained ({lines}). To use a local copy, set "
            "`data.mirror` in params.yaml or the NETZBENCH_MIRROR environment variable to a "
            f"directory holding {dataset}/ with its raw files."
        )


class ChecksumMismatch(RuntimeError):
    """A raw file's sha256 (or git blob SHA-1) differs from the catalogue's."""

    def __init__(self, name: str, expected: str, actual: str, origin: str, algorithm: str = "sha256"):
        self.name, self.expected, self.actual, self.origin = name, expected, actual, origin
        super().__init__(
            f"checksum mismatch for {name} (from {origin}): expected {algorithm} {expected}, got {actual}. "
            "The upstream file changed or the download is corrupt; nothing was kept."
        )


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def git_blob_sha1(path: str | os.PathLike) -> str:
    """The git blob SHA-1 of a file (``git hash-object``): what a repository tree records for it."""
    h = hashlib.sha1(f"blob {os.path.getsize(path)}\0".encode())
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _check_git_blob(path: str | os.PathLike, expected: str | None, name: str, origin: str) -> None:
    if expected and (actual := git_blob_sha1(path)) != expected:
        raise ChecksumMismatch(name, expected, actual, origin, "git blob SHA-1")


@dataclass
class RawBundle:
    """Raw files ready for processing, and where they came from."""

    raw_dir: Path
    sha256: dict[str, str]
    origin: str  # "mirror:<path>" | "url:<url>" | "cache"
    format: str
    tried: list[tuple[str, str]] = field(default_factory=list)


def _verified_copy(src: Path, dst: Path, expected: str | None, origin: str, git_blob: str | None = None) -> str:
    """Copy ``src`` to ``dst`` atomically, checking the sha256 (and the git blob SHA-1) when known."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
            shutil.copyfileobj(inp, out, _CHUNK)
        actual = sha256_file(tmp)
        if expected and actual != expected:
            raise ChecksumMismatch(dst.name, expected, actual, origin)
        _check_git_blob(tmp, git_blob, dst.name, origin)
        os.replace(tmp, dst)
        return actual
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _sidecar(dst: Path) -> Path:
    """Where the HTTP validators (ETag, Last-Modified) of a download are kept."""
    return dst.with_name(f".{dst.name}.http.json")


def download(url: str, dst: Path, expected: str | None = None, timeout: float = 60.0,
             sidecar: Path | None = None, git_blob: str | None = None) -> str:
    """Download ``url`` to ``dst`` atomically; verify sha256 (and the git blob SHA-1) when known;
    return the sha256.

    The response's ``ETag``/``Last-Modified`` are stored beside the file so a
    later fetch can ask the server cheaply whether the upstream changed.
    """
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=".part-")
    try:
        h = hashlib.sha256()
        req = urllib.request.Request(url, headers={"User-Agent": "netzbench"})
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(req, timeout=timeout) as resp:
            validators = {k: resp.headers.get(k) for k in ("ETag", "Last-Modified") if resp.headers.get(k)}
            for chunk in iter(lambda: resp.read(_CHUNK), b""):
                h.update(chunk)
                out.write(chunk)
        actual = h.hexdigest()
        if expected and actual != expected:
            raise ChecksumMismatch(dst.name, expected, actual, url)
        _check_git_blob(tmp, git_blob, dst.name, url)
        os.replace(tmp, dst)
        (sidecar or _sidecar(dst)).write_text(json.dumps({"url": url, **validators}))
        return actual
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _from_mirror(source: Source, folder: Path, raw_dir: Path) -> dict[str, str]:
    hashes = {}
    for rf in source.files:
        src = folder / (rf.mirror_path or rf.name)
        if not src.is_file():
            raise FileNotFoundError(f"mirror file missing: {shown(src)}")
        hashes[rf.name] = _verified_copy(src, raw_dir / rf.name, rf.sha256, f"mirror {shown(src)}", rf.git_blob)
    return hashes


VERIFIED = ".verified.json"


def _record_verified(raw_dir: Path, hashes: dict[str, str]) -> None:
    """Remember the sha256 of raw files that arrived verified (from the mirror or a download), so a
    later fetch can trust them when no source can be reached, even without a catalogue hash."""
    path = raw_dir / VERIFIED
    known = json.loads(path.read_text()) if path.is_file() else {}
    known.update(hashes)
    tmp = path.with_name(f"{path.name}.part")
    tmp.write_text(json.dumps(known, sort_keys=True))
    os.replace(tmp, path)


def verified_cache(source: Source, raw_dir: Path, also_known: dict[str, str] | None = None) -> dict[str, str] | None:
    """The sha256 of ``source``'s cached raw files when every one is there and verified: it matches
    the catalogue's hash, or else the hash recorded when it arrived verified (or ``also_known``, the
    hashes of the processed data built from it); ``None`` otherwise (nothing is deleted)."""
    path = raw_dir / VERIFIED
    recorded = {**(json.loads(path.read_text()) if path.is_file() else {}), **(also_known or {})}
    hashes = {}
    for rf in source.files:
        file = raw_dir / rf.name
        expected = rf.sha256 or recorded.get(rf.name)
        if not file.is_file() or expected is None or sha256_file(file) != expected:
            return None
        if rf.git_blob and git_blob_sha1(file) != rf.git_blob:
            return None
        hashes[rf.name] = expected
    return hashes or None


def _from_cache(source: Source, raw_dir: Path) -> dict[str, str] | None:
    hashes = {}
    for rf in source.files:
        path = raw_dir / rf.name
        if not path.is_file():
            return None
        actual = sha256_file(path)
        if (rf.sha256 and actual != rf.sha256) or (rf.git_blob and git_blob_sha1(path) != rf.git_blob):
            path.unlink()  # a corrupt cached file is dropped and fetched again
            return None
        hashes[rf.name] = actual
    return hashes


#: what a source attempt raises when its data cannot be reached (the next source is tried); a bad file
#: (ChecksumMismatch, UnsafeArchive: RuntimeErrors) is not among them and stops the fetch
_UNREACHABLE = (OSError, urllib.error.URLError, ValueError)


class _FileFailed(OSError):
    """One file of a per-file source could not be downloaded: its own address, not the source's template."""

    def __init__(self, url: str, cause: BaseException):
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.url = url


def _failure(source: Source, exc: BaseException) -> tuple[str, str]:
    """What a failed source attempt is listed as: (address, reason)."""
    if isinstance(exc, _FileFailed):
        return exc.url, str(exc)
    return source.url, f"{type(exc).__name__}: {exc}"


def _from_source(source: Source, raw_dir: Path, timeout: float) -> dict[str, str]:
    hashes = {}
    if source.kind == "files":
        for rf in source.files:
            url = rf.url or source.url.format(file=rf.name)
            try:
                hashes[rf.name] = download(url, raw_dir / rf.name, rf.sha256, timeout, git_blob=rf.git_blob)
            except _UNREACHABLE as exc:
                raise _FileFailed(url, exc) from exc
        return hashes
    if source.kind in ("zip", "tar"):
        with tempfile.TemporaryDirectory(dir=raw_dir.parent) as tmp:
            archive = Path(tmp) / "archive"
            download(source.url, archive, None, timeout, sidecar=_sidecar(raw_dir / "archive"))
            extracted = Path(tmp) / "x"
            files = safe_extract(archive, extracted)
            by_name = {p.name: p for p in files}
            for rf in source.files:
                if rf.url:  # a file the archive does not hold, published on its own
                    hashes[rf.name] = download(rf.url, raw_dir / rf.name, rf.sha256, timeout, git_blob=rf.git_blob)
                    continue
                src = by_name.get(Path(rf.name).name)
                if src is None:
                    raise FileNotFoundError(f"{source.url} has no member {rf.name}")
                hashes[rf.name] = _verified_copy(src, raw_dir / rf.name, rf.sha256, source.url, rf.git_blob)
        return hashes
    raise ValueError(f"unknown source kind {source.kind!r}")


def _conditional_get(url: str, validators: dict, timeout: float) -> str:
    """'unchanged' (HTTP 304), 'changed' (the server sends content) or 'offline'."""
    headers = {"User-Agent": "netzbench"}
    if validators.get("ETag"):
        headers["If-None-Match"] = validators["ETag"]
    if validators.get("Last-Modified"):
        headers["If-Modified-Since"] = validators["Last-Modified"]
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout):
            return "changed"
    except urllib.error.HTTPError as exc:
        return "unchanged" if exc.code == 304 else "offline"
    except (urllib.error.URLError, OSError):
        return "offline"


def upstream_state(source: Source, raw_dir: Path, timeout: float = 60.0) -> str:
    """Re-check a cached source: 'unchanged', 'changed' or 'offline' (cache kept).

    Uses the validators stored at download time (conditional GET). Without
    validators the files are re-fetched unless every file has a known sha256
    or git blob SHA-1 (then the cache is trusted: its bytes were verified).
    """
    if source.kind == "files":
        checks = [(f.url or source.url.format(file=f.name), _sidecar(raw_dir / f.name)) for f in source.files]
    else:
        checks = [(source.url, _sidecar(raw_dir / "archive"))]
    states = []
    for url, side in checks:
        if not side.is_file():
            states.append("unknown")
            continue
        validators = json.loads(side.read_text())
        if not (validators.get("ETag") or validators.get("Last-Modified")):
            states.append("unknown")
            continue
        states.append(_conditional_get(url, validators, timeout))
    if "changed" in states:
        return "changed"
    if "unknown" in states:
        return "unchanged" if all(f.sha256 or f.git_blob for f in source.files) else "changed"
    return "offline" if "offline" in states else "unchanged"


def _source_dir(downloads: Path, ds: Dataset, index: int) -> Path:
    # each accepted source keeps its own raw folder so formats never mix
    return downloads / ds.id / ("raw" if index == 0 else f"raw-{index}")


def _verified_fallback(ds: Dataset, downloads: Path, tried: list, known: dict | None) -> RawBundle | None:
    """The first source whose cached raw files are all verified (:func:`verified_cache`), if any."""
    for i, source in enumerate(ds.sources):
        raw_dir = _source_dir(downloads, ds, i)
        hashes = verified_cache(source, raw_dir, known) if source.files else None
        if hashes is not None:
            return RawBundle(raw_dir, hashes, "cache (verified; no source reachable)", source.format, tried)
    return None


def obtain_raw(ds: Dataset, mirror: Path | None, downloads: Path, timeout: float = 60.0,
               known: dict[str, str] | None = None) -> RawBundle:
    """Bring ``ds``'s raw files into the download cache and return them.

    With a mirror, files come only from the mirror folder of the dataset (the
    network is never touched): the first source whose files are all there
    wins. Without one, a verified download cache is reused, otherwise the
    canonical sources are tried in order. When no source can deliver (a
    mirror without the dataset, no network), verified cached raw files are
    used: a change of source alone changes nothing. ``known``: raw-file
    hashes that are verified elsewhere (those of the processed data).
    :class:`ChecksumMismatch` and :class:`UnsafeArchive` always propagate;
    every other failure is collected and raised as :class:`DatasetUnavailable`.
    """
    tried: list[tuple[str, str]] = []
    if mirror is not None:
        folder = mirror / (ds.mirror or ds.id)
        if not folder.is_dir():
            tried.append((f"mirror {shown(mirror)}", f"no folder {folder.name}/ in the mirror"))
        else:
            for i, source in enumerate(ds.sources):
                if not source.in_mirror:
                    continue
                raw_dir = _source_dir(downloads, ds, i)
                try:
                    hashes = _from_mirror(source, folder, raw_dir)
                    _record_verified(raw_dir, hashes)
                    return RawBundle(raw_dir, hashes, f"mirror:{folder}", source.format, tried)
                except ChecksumMismatch:
                    raise
                except OSError as exc:
                    tried.append((f"mirror {shown(folder)} ({source.format})", str(exc)))
            if not tried:
                tried.append((f"mirror {shown(folder)}", "no source of this dataset is laid out for a mirror"))
        fallback = _verified_fallback(ds, downloads, tried, known)
        if fallback is not None:
            return fallback
        raise DatasetUnavailable(ds.id, tried)
    for i, source in enumerate(ds.sources):
        raw_dir = _source_dir(downloads, ds, i)
        cached = _from_cache(source, raw_dir) if source.files else None
        if cached is None:
            continue
        state = upstream_state(source, raw_dir, timeout)
        if state == "changed":  # fetch it again; a changed file with a known sha256 fails loudly here
            try:
                hashes = _from_source(source, raw_dir, timeout)
            except (ChecksumMismatch, UnsafeArchive):
                raise
            except _UNREACHABLE as exc:
                tried.append(_failure(source, exc))
                fallback = _verified_fallback(ds, downloads, tried, known)
                if fallback is not None:
                    return fallback
                raise DatasetUnavailable(ds.id, tried) from None
            _record_verified(raw_dir, hashes)
            return RawBundle(raw_dir, hashes, f"url:{source.url}", source.format, tried)
        return RawBundle(raw_dir, cached, f"cache ({state})", source.format, tried)
    for i, source in enumerate(ds.sources):
        raw_dir = _source_dir(downloads, ds, i)
        raw_dir.mkdir(parents=True, exist_ok=True)
        try:
            hashes = _from_source(source, raw_dir, timeout)
            _record_verified(raw_dir, hashes)
            return RawBundle(raw_dir, hashes, f"url:{source.url}", source.format, tried)
        except (ChecksumMismatch, UnsafeArchive):
            raise  # a bad or malicious file is never "unavailable": it is an error
        except _UNREACHABLE as exc:
            tried.append(_failure(source, exc))
    fallback = _verified_fallback(ds, downloads, tried, known)
    if fallback is not None:
        return fallback
    raise DatasetUnavailable(ds.id, tried)
