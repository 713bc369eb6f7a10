"""Files and processes of a run on a shared machine: what is private, what is ours, what is left over.

- :func:`private_folder` -- the per-user runtime folder of the warm server:
  ``$XDG_RUNTIME_DIR/netzbench`` when ``$XDG_RUNTIME_DIR`` is this user's
  and private (a login manager makes it so), else ``<tempdir>/netzbench-<uid>``
  (kept short: a Unix socket's path must stay under ~100 bytes). It is
  created with mode 0700 and checked without following a link: a real
  folder, owned by this user, closed to group and others, in a parent that
  others cannot rename it out of (not writable by them, or sticky like
  ``/tmp``). Anything else -- a link, a file, someone else's folder, a 0777
  one -- raises :class:`NotPrivate`; nothing is changed on a path that is not
  ours.
- :func:`write_secret` / :func:`read_secret` -- a server's random secret, in a
  0600 file of that folder.
- :func:`process_uid`, :func:`process_argv`, :func:`parent_pid`,
  :func:`signal_verified` -- whose a process is and what it runs (``/proc``),
  so that only our own processes are signalled.
- :func:`scratch_folder` -- the temporary folder of a stage's seeds (PyG
  writes a generated module per seed), removed when the stage ends; the
  folders of stages that died are removed by the next one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import stat
import tempfile
from pathlib import Path

#: the name prefix of a stage's scratch folder: ``netzbench-seeds-<pid>-<random>``
SCRATCH_PREFIX = "netzbench-seeds-"
#: a server's secret (hex) is this long; the file is read only up to a little more
_SECRET_BYTES = 32
#: the longest Unix socket path used (``sun_path`` is 108 bytes on Linux, 104 on BSDs, with its final NUL;
#: the warm server's socket and the pool's forkserver both keep under it)
MAX_SOCKET_PATH = 100


class NotPrivate(RuntimeError):
    """A runtime path that another user could control (the message says what is wrong with it)."""


def why_unsafe(st: os.stat_result) -> str | None:
    """What makes a folder with this ``lstat`` unfit to hold private files, or None."""
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid != os.getuid():
        return f"belongs to uid {st.st_uid}, not to this user (uid {os.getuid()})"
    if st.st_mode & 0o077:
        return f"is open to its group or others (mode {stat.S_IMODE(st.st_mode):04o}, 0700 needed)"
    return None


def _why_unsafe_parent(parent: Path) -> str | None:
    """Why another user could rename or replace entries of ``parent`` (owned by someone else, or
    writable by others without the sticky bit), or None."""
    try:
        st = os.stat(parent)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if st.st_uid not in (0, os.getuid()):
        return f"belongs to uid {st.st_uid}"
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        return f"can be written by other users and is not sticky (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _candidate() -> Path:
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg):
        try:
            if why_unsafe(os.lstat(xdg)) is None:
                return Path(xdg) / "netzbench"
        except OSError:
            pass
    return Path(tempfile.gettempdir()) / f"netzbench-{os.getuid()}"


def private_folder() -> Path:
    """This user's runtime folder, created if missing (see the module docstring); :class:`NotPrivate`
    when the path exists and is not a private folder of ours, or cannot be made one."""
    path = _candidate()
    reason = _why_unsafe_parent(path.parent)
    if reason is not None:
        raise NotPrivate(f"{path.parent} {reason}: another user could replace {path.name} in it")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise NotPrivate(f"cannot create {path}: {exc.strerror}") from None
    try:
        before = os.lstat(path)
    except OSError as exc:
        raise NotPrivate(f"cannot read {path}: {exc.strerror}") from None
    reason = why_unsafe(before)
    if reason is None:
        try:  # the folder itself, not whatever the name points to a moment later
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError as exc:
            raise NotPrivate(f"cannot open {path}: {exc.strerror}") from None
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        reason = why_unsafe(st) or (None if (st.st_dev, st.st_ino) == (before.st_dev, before.st_ino)
                                     else "was replaced while it was checked")
    if reason is not None:
        raise NotPrivate(f"{path} {reason}; another user may control it (remove it if it is not yours)")
    return path


# -- a server's secret ---------------------------------------------------------------------------

def write_secret(name: str, dir_fd: int) -> str:
    """A new random secret (hex) in the 0600 file ``name`` of the folder open as ``dir_fd`` (replaced
    whole: a reader never sees half of it)."""
    secret = secrets.token_hex(_SECRET_BYTES)
    staging = f"{name}.{os.getpid()}.tmp"
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dir_fd)
    with os.fdopen(fd, "w") as f:
        f.write(secret)
    os.replace(staging, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    return secret


def read_secret(path: Path) -> str:
    """The secret in ``path``; :class:`NotPrivate` unless it is a regular 0600 file of this user."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a planted FIFO never blocks us
    except OSError as exc:
        raise NotPrivate(f"cannot open {path}: {exc.strerror}") from None
    with os.fdopen(fd, "r", encoding="ascii", errors="replace") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise NotPrivate(f"{path} is not a private file of this user")
        return f.read(4 * _SECRET_BYTES).strip()


# -- processes -----------------------------------------------------------------------------------

def process_uid(pid: int) -> int | None:
    """The owner of process ``pid`` (None: gone, or no ``/proc`` here)."""
    try:
        return os.stat(f"/proc/{int(pid)}").st_uid
    except OSError:
        return None


def process_cwd(pid: int) -> str | None:
    """The working directory of process ``pid`` (None: gone, not ours to read, or no ``/proc`` here)."""
    try:
        return os.readlink(f"/proc/{int(pid)}/cwd")
    except OSError:
        return None


def process_argv(pid: int) -> list[str] | None:
    """The command line of process ``pid`` (None: gone, or no ``/proc`` here)."""
    try:
        with open(f"/proc/{int(pid)}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    return [os.fsdecode(part) for part in raw.split(b"\0")[:-1]] if raw else None


def parent_pid(pid: int) -> int | None:
    """The parent of process ``pid`` (None: gone, or no ``/proc`` here)."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # the name in parentheses may hold spaces
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


def signal_verified(pid: int, sig: int, is_ours) -> bool:
    """Send ``sig`` to ``pid`` if ``is_ours(pid)`` holds for it; True if sent. With pidfds (Linux
    5.3+) the process is pinned before the check, so a recycled pid is never signalled."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return False
        except OSError:  # an older kernel: check, then signal by pid
            pidfd = None
    try:
        if not is_ours(pid):
            return False
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, sig)
        else:
            os.kill(pid, sig)
        return True
    except OSError:
        return False
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


# -- a stage's scratch folder --------------------------------------------------------------------

def _remove_orphans(base: str) -> None:
    """Remove the scratch folders of this user's stages that died before removing their own."""
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(SCRATCH_PREFIX):
            continue
        try:
            pid = int(entry.name[len(SCRATCH_PREFIX):].split("-", 1)[0])
            st = entry.stat(follow_symlinks=False)
        except (ValueError, OSError):
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and pid != os.getpid() and not _alive(pid):
            shutil.rmtree(entry.path, ignore_errors=True)  # rmtree never follows a link inside


@contextlib.contextmanager
def scratch_folder():
    """A new private folder (``<tempdir>/netzbench-seeds-<pid>-*``) for the temporary files of this
    stage's seeds, removed when the block ends; also removes those of dead stages."""
    base = tempfile.gettempdir()
    _remove_orphans(base)
    path = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=base)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
