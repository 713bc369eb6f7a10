"""Where a benchmark file to compare comes from: a path, a git revision, or a ``dvc exp`` experiment.

``netzbench compare`` and ``netzbench verify`` take a run as its benchmark file. A published run is
``reports/benchmark.json`` as committed (``git show REV:./reports/benchmark.json``); an experiment of
``dvc exp run`` is a git commit that DVC keeps under ``refs/exps/<sha[:2]>/<sha[2:]>/<name>`` (its
baseline's sha), found by name with DVC's own :func:`dvc.repo.experiments.utils.resolve_name` -- the
resolution ``dvc exp show``/``apply`` use: a name several baselines share means the one of the
current HEAD, else it is ambiguous. A spec is read as the first of these that exists: a file, a git
revision (a branch, a tag, a sha, ``HEAD~1``), an experiment name (or its full ``refs/exps/...`` ref).
Every file is then read as strictly as ``verify`` reads one (:func:`.verify_input.read_benchmark`).
"""

from __future__ import annotations

import logging
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .benchmark import BenchmarkReport
from .persistence import cap
from .verify_input import VerifyError, read_benchmark

log = logging.getLogger(__name__)

#: where the report stage writes the benchmark file (relative to the repository root, the commands' cwd)
BENCHMARK = "reports/benchmark.json"


@dataclass(frozen=True)
class Source:
    """A resolved spec: ``kind`` ``file``, ``revision`` or ``experiment``; ``commit`` the git commit
    (None for a file); ``label`` how the output names it."""

    spec: str
    kind: str
    label: str
    commit: str | None = None


def _git(*args: str, cwd: str | Path | None = None) -> subprocess.CompletedProcess | None:
    """``git ARGS`` (stdout as bytes), or None where git cannot be run here."""
    try:
        return subprocess.run(["git", *args], capture_output=True, cwd=cwd)
    except OSError:
        return None


def _commit_of(rev: str, cwd: str | Path | None) -> str | None:
    done = _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", cwd=cwd)
    return done.stdout.decode().strip() if done is not None and done.returncode == 0 else None


def _experiment_ref(name: str, cwd: str | Path | None) -> str | None:
    """The ``refs/exps/...`` ref of the experiment ``name`` (DVC's resolution), None when there is none;
    :class:`VerifyError` when several baselines have one of that name and none is HEAD."""
    from dvc.repo.experiments.exceptions import AmbiguousExpRefInfo, InvalidExpRefError
    from dvc.repo.experiments.utils import resolve_name
    from dvc.scm import SCM, SCMError

    try:
        found = resolve_name(SCM(str(cwd or ".")), name).get(name)
    except AmbiguousExpRefInfo as exc:  # its message lists the full refs to name instead
        raise VerifyError(" ".join(str(exc).split())) from None
    except (SCMError, InvalidExpRefError):  # not a git repository; a refs/ name that is no experiment's
        return None
    return str(found) if found is not None else None


def resolve(spec: str, path: str = BENCHMARK, cwd: str | Path | None = None, files: bool = True) -> Source:
    """What ``spec`` names (module docstring; ``path`` is the benchmark file inside a commit), or a
    :class:`VerifyError` saying it names nothing. ``files`` False: a revision or experiment only (the
    default baseline ``HEAD`` is the commit, never a working-tree file of that name)."""
    if files and os.path.lexists(Path(cwd or ".", spec)) and not Path(cwd or ".", spec).is_dir():
        return Source(spec, "file", spec)
    if not spec.startswith("-"):  # never an option to git
        commit = _commit_of(spec, cwd)
        if commit is not None:
            return Source(spec, "revision", f"{spec} ({commit[:7]})", commit)
        ref = _experiment_ref(spec, cwd)
        if ref is not None:
            commit = _commit_of(ref, cwd)
            if commit is not None:
                return Source(spec, "experiment", f"experiment {spec.rsplit('/', 1)[-1]} ({commit[:7]})", commit)
    raise VerifyError(f"{spec!r} is not {'a file, ' if files else ''}a git revision or a dvc experiment of this "
                      "repository")


def read(source: Source, path: str = BENCHMARK, cwd: str | Path | None = None) -> BenchmarkReport:
    """The report ``source`` holds (``path`` inside a commit), read strictly (:func:`.read_benchmark`)."""
    if source.kind == "file":
        return read_benchmark(Path(cwd or ".", source.spec), source.label)
    def shown(rel: str, kind: str = "benchmark") -> bytes:
        try:
            limit, var = cap(kind)
        except ValueError as exc:
            raise VerifyError(str(exc)) from None
        size = _git("cat-file", "-s", f"{source.commit}:./{rel}", cwd=cwd)  # its size, before it is read
        if size is not None and size.returncode == 0 and int(size.stdout or 0) > limit:
            raise VerifyError(f"{source.label}:{rel}: {int(size.stdout):,} bytes, over the cap of {limit:,} for a "
                              f"{kind} file (set {var} higher to read it)")
        done = _git("show", f"{source.commit}:./{rel}", cwd=cwd)
        if done is None or done.returncode != 0:
            raise VerifyError(f"{source.label}: no {rel} in that commit (git show {source.commit[:7]}:{rel} failed)")
        return done.stdout

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "benchmark.json"
        copy.write_bytes(shown(path))
        # the histories beside it in the same commit (a file published before 2026-12-04 holds its own)
        return read_benchmark(copy, f"{source.label}:{path}",
                              lambda name: shown(str(PurePosixPath(path).with_name(name)), "histories"))


def load(spec: str, path: str = BENCHMARK, cwd: str | Path | None = None,
         files: bool = True) -> tuple[BenchmarkReport, Source]:
    """:func:`resolve` then :func:`read`."""
    source = resolve(spec, path, cwd, files)
    log.debug(f"{spec}: {source.kind} {source.label}")
    return read(source, path, cwd), source
