"""Where things live: the user's repository, the data mirror, the caches.

DVC runs ``dvc exp run --temp`` / ``--queue`` in a throw-away copy of the
repository under ``<repo>/.dvc/tmp/exps/...``. Paths that must survive that
(the per-seed result cache, the download cache, a relative mirror path) are
therefore resolved against the repository the user runs from, not the
temporary copy.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming a local mirror of raw dataset files.
MIRROR_ENV = "NETZBENCH_MIRROR"
#: Environment variable overriding the cache root (per-seed results, downloads).
CACHE_ENV = "NETZBENCH_CACHE_DIR"


def repository_on_path() -> None:
    """Put the working directory (the repository a stage runs in) on ``sys.path``, once,
    so ``user_models.x:Cls`` style references import."""
    import sys

    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")


def _is_repo_root(path: Path) -> bool:
    return (path / "dvc.yaml").is_file() or (path / ".dvc").is_dir()


def workspace_root(start: Path | None = None) -> Path:
    """The repository the current command runs in (may be a DVC temp copy)."""
    here = Path(start or os.getcwd()).resolve()
    for candidate in (here, *here.parents):
        if _is_repo_root(candidate):
            return candidate
    return here


def user_root(start: Path | None = None) -> Path:
    """The repository the user runs from.

    Inside a DVC temporary experiment workspace (``<repo>/.dvc/tmp/exps/...``)
    this is ``<repo>``; otherwise it is :func:`workspace_root`.
    """
    ws = workspace_root(start)
    parts = ws.parts
    for i in range(len(parts) - 3):
        if parts[i] == ".dvc" and parts[i + 1] == "tmp" and parts[i + 2] == "exps":
            return Path(*parts[:i])
    return ws


def cache_root() -> Path:
    """Root of netzbench's git-ignored caches (``<user repo>/.netzbench``)."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return user_root() / ".netzbench"


def resolve_mirror(configured: str | None) -> Path | None:
    """The mirror directory: ``data.mirror`` from params, else ``$NETZBENCH_MIRROR``.

    A relative path is resolved against the user's repository (so it also
    works under ``dvc exp run --temp``). Returns None when no mirror is set.
    A mirror that is set but does not exist is an error: silently falling back
    to the network would hide a typo.
    """
    value = configured if configured not in (None, "") else os.environ.get(MIRROR_ENV)
    if value in (None, ""):
        return None
    path = Path(str(value)).expanduser()
    if not path.is_absolute():
        path = user_root() / path
    path = path.resolve()
    if not path.is_dir():
        source = "data.mirror" if configured else MIRROR_ENV
        raise FileNotFoundError(f"{source} names {value!r}, but {path} is not a directory")
    return path


def shown(path: str | os.PathLike) -> str:
    """``path`` as published text: relative to the user's repository when it is nearby
    (``../shared/datasets``), else only its last two parts (``.../shared/datasets``), so reports,
    ``meta.json`` and run records carry no machine-specific absolute path."""
    path = Path(path)
    if not path.is_absolute():
        return path.as_posix()
    rel = Path(os.path.relpath(path, user_root()))
    if rel.parts[:3] != ("..",) * 3:
        return rel.as_posix()
    return ".../" + "/".join(path.parts[-2:])


def import_ref(ref: str):
    """The object named by ``'package.module:attr'``, imported with the repository on ``sys.path``."""
    import importlib

    module, _, name = ref.partition(":")
    repository_on_path()
    return getattr(importlib.import_module(module), name)


class UnsafePath(ValueError):
    """A name would place a file or folder outside the folder it belongs in."""


def child(root: str | os.PathLike, name: str) -> Path:
    """``root / name`` where ``name`` is one plain entry of ``root``: never ``''``, ``.``, ``..``, a path with
    a separator, an absolute path or one with a NUL (:class:`UnsafePath`). Where a task's folder is replaced
    or a run record written, so that no name can make them delete or write outside ``root`` (the
    params checks refuse such names first; this is the last line)."""
    ok = isinstance(name, str) and name not in ("", ".", "..") and not {"\0", "/", os.sep} & set(name)
    if not ok:
        raise UnsafePath(f"{name!r} is not a plain name inside {root}/: refusing to write or delete outside it")
    return Path(root) / name


def keep_previous(target: Path) -> Path | None:
    """A hidden hard link to what ``target`` holds (a link itself, not followed), kept while a commit replaces
    it so that a failure can put it back (:func:`put_back`): None where there is nothing, ``target`` itself
    where no link can be made (that output cannot be put back)."""
    if not os.path.lexists(target):
        return None
    keep = target.with_name(f".{target.name}.{os.getpid()}.prev.tmp")
    try:
        keep.unlink(missing_ok=True)
        os.link(target, keep, follow_symlinks=False)
    except OSError:
        return target  # marks "held something, not kept"
    return keep


def put_back(kept: dict[Path, Path | None]) -> bool:
    """Put every target of ``kept`` back as it was (the last first); whether all could be."""
    ok = True
    for target, previous in reversed(list(kept.items())):
        try:
            if previous is None:
                target.unlink(missing_ok=True)
            elif previous == target:
                ok = False
            else:
                os.replace(previous, target)
                previous.unlink(missing_ok=True)  # a link to what the target still holds: rename left it
        except OSError:
            ok = False
    return ok


class CommitError(OSError):
    """A rename of :func:`replace_all` failed after others succeeded, and what they replaced could not all be
    put back: the outputs are mixed."""


def replace_all(pending: dict) -> list[Path]:
    """Rename each temporary of ``pending`` (target -> temporary, in order; an entry is removed once renamed)
    over its target; the targets. A hard link to what each target held is kept until all are in place, so
    that a rename failing halfway puts back the ones already done (an ``OSError`` naming the target that
    failed); only where that fails too is it a :class:`CommitError`."""
    done: list[Path] = []
    kept: dict = {}
    try:
        for target, tmp in list(pending.items()):
            kept[target] = keep_previous(target)
            os.replace(tmp, target)
            del pending[target]
            done.append(target)
    except OSError as exc:
        if put_back(kept):  # every output as it was: nothing published
            raise OSError(exc.errno, f"{exc.strerror} (renaming into place; the {len(done)} outputs already "
                          "replaced were put back as they were)", str(target)) from None
        raise CommitError(exc.errno, f"{exc.strerror} (renaming into place; {len(done)} of "
                                     f"{len(done) + len(pending)} outputs already replaced)", str(target)) from None
    for target, previous in kept.items():  # all in place: what they replaced goes
        if previous not in (None, target):
            previous.unlink(missing_ok=True)
    return done
