"""A warm worker server: torch imported once, every seed of a ``dvc repro`` forked from it.

Each ``dvc repro`` stage is its own process, and importing torch and PyG
costs about 3 s, more than training a small cell. The local executor
therefore asks a server for its worker processes: the first stage starts
it, it imports torch and PyG once (the modules the pool's forkserver
preloads), and every seed of this and the following stages runs in a fresh
child forked from it, exactly as a forkserver worker is. The server leaves
``exec.warm_s`` seconds after its last seed (``NETZBENCH_WARM_S`` overrides;
0 turns it off and each stage starts its own forkserver again).

Why the numbers cannot change:

- a child is a fork of a process that did what the forkserver does (import
  the preload modules, nothing else), runs the same :func:`.worker.run_seed`
  and is used for one seed only, like ``max_tasks_per_child=1``;
- the server is shared only by processes that would have started an
  identical one: its socket is named after a fingerprint of the Python
  executable, ``sys.path``, working directory, environment (torch reads its
  kernel choice from it at import), the netzbench source and the installed
  torch and PyG. Change any and the next stage starts another server.

The protocol: length-prefixed JSON (:mod:`.wire`; nothing that crosses
runs code when read) over a Unix socket in this user's private runtime
folder (:func:`.runtime.private_folder`). The client sends the server's
secret; the child says ``started`` (its pid), the client passes its stdout
and stderr (so what a seed prints reaches the stage's output, as from a pool
worker) and the job, and the child reports ``limits`` (its timer is armed),
``epoch`` messages and then the ``result``. A child whose client is gone
stops at its next epoch report; one past ``exec.timeout_s`` plus
:data:`.worker.KILL_GRACE_S` (a model that swallowed its alarm) is killed by
the client. A job or result that JSON cannot carry exactly (a model object
from the Python API, a tuple) runs in the stage's own pool instead. A server of
another ``kind`` (a module whose children run a command line) is this process with another preload and
job; the package starts none since the report server was retired (issue 49).

Who may use a server, on a machine shared with other users:

- the folder is created by this code, 0700, and checked without following
  links before every connection (a folder swapped for a link mid-stage is
  refused, and the stage falls back to its own pool);
- the client checks with ``SO_PEERCRED`` that the process serving the socket
  runs as this user (no ``SO_PEERCRED``, as on macOS: no warm server), and
  the server drops a connection from any other user before forking;
- a job names a model as ``package.module:Class``, which the child imports:
  whoever may submit a job runs code as this user. A process of this user
  could do that anyway, but to submit a job it must also know the server's
  random secret (32 bytes, in a 0600 file of the folder, compared with
  ``hmac.compare_digest`` before anything else is read);
- ``netzbench warm --stop`` signals only processes that run as this user
  with the server's command line for that socket (``python -m
  netzbench.run.warm_server <socket> ...``, :mod:`.warm_server`); a stale
  pid file naming another process is removed, and the process left alone.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import queue as queue_mod
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from ..identity import PACKAGE_DIR, source_hash
from ..params import DEFAULTS, ParamsError
from ..settings import Execution
from . import wire
from .job import Job
from .runtime import (MAX_SOCKET_PATH, NotPrivate, parent_pid, private_folder, process_argv, process_cwd,
                      process_uid, read_secret, signal_verified)

log = logging.getLogger(__name__)

#: seconds a server stays after its last seed when params say nothing (``exec.warm_s``'s default)
DEFAULT_IDLE_S = DEFAULTS["exec"]["warm_s"]
#: seconds a new server may take to import torch and start listening
START_TIMEOUT_S = 120
#: environment variables that differ between stages of one pipeline and never reach a number
#: (``TORCHINDUCTOR_CACHE_DIR``: importing torch's compiler sets it, so it is there or not depending on
#: whether the stage had imported a model when it asked for the server)
_VOLATILE_ENV = ("PWD", "OLDPWD", "SHLVL", "_", "TORCHINDUCTOR_CACHE_DIR")
#: the server's module, as its command line names it (``warm --stop`` checks that line)
_MODULE = "netzbench.run.warm_server"
#: the first message each side sends (the secret; ``started``) is at most this long
HELLO_LIMIT = 4096
#: seconds a child waits for a client's secret, stdout and job before it gives up
HELLO_S = 30.0


class WarmUnavailable(RuntimeError):
    """No warm server could be reached or started; the caller uses its own process pool."""


def idle_seconds(execution: Execution) -> float:
    """How long a server stays after its last seed: ``$NETZBENCH_WARM_S``, else ``exec.warm_s``."""
    value = os.environ.get("NETZBENCH_WARM_S")
    if value not in (None, ""):
        try:
            seconds = float(value)
            if not -float("inf") < seconds < float("inf"):  # nan would mean 0 (max(0, nan)), inf never leave
                raise ValueError(value)
            return max(0.0, seconds)
        except ValueError:
            raise ParamsError(f"NETZBENCH_WARM_S must be a number of seconds (0: no warm server), got {value!r}") from None
    return float(execution.warm_s or 0)


# -- where and which server ----------------------------------------------------------------------

def runtime_dir() -> Path:
    """This user's private runtime folder (:func:`.runtime.private_folder`; not the repository's
    cache directory: a socket path must stay under ~100 bytes), checked again on every call."""
    try:
        return private_folder()
    except NotPrivate as exc:
        raise WarmUnavailable(f"{exc}; not using a warm server") from None


def _package_digest(h) -> None:
    h.update(source_hash([PACKAGE_DIR]).encode())
    for name in ("torch", "torch_geometric"):
        spec = importlib.util.find_spec(name)  # a top-level package: found without importing it
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        if origin is not None and origin.exists():
            st = origin.stat()
            h.update(f"{name}:{origin}:{st.st_size}:{st.st_mtime_ns}".encode())


def fingerprint(kind: str = "seeds") -> str:
    """What a server's children inherit and a forkserver's would: interpreter, import path, working
    directory, environment, netzbench source, torch and PyG; ``kind``: seeds or another (a module, see above)."""
    h = hashlib.sha256(b"" if kind == "seeds" else f"{kind}\0".encode())
    env = {k: v for k, v in os.environ.items() if k not in _VOLATILE_ENV and not k.startswith("DVC_")}
    h.update(json.dumps([sys.executable, sys.path, os.getcwd(), sorted(env.items())]).encode())
    _package_digest(h)
    return h.hexdigest()[:20]


def _connect(path: Path) -> tuple[socket.socket, int]:
    """A connection to the socket at ``path`` and the pid of the server behind it, which must run
    as this user (``WarmUnavailable`` otherwise: nothing is sent to or read from another user)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
        pid, uid, _ = wire.peer(conn)
    except OSError:
        conn.close()
        raise
    if uid != os.getuid():
        conn.close()
        raise WarmUnavailable(f"{path} is served by a process of uid {uid}, not of this user; not using it")
    return conn, pid


def _reachable(path: Path) -> bool:
    try:
        _connect(path)[0].close()  # the child forked for this connection sees EOF and leaves
        return True
    except (OSError, WarmUnavailable):
        return False


def ensure_server(idle_s: float, *, check: bool = False, learn: str | None = None) -> Path:
    """The socket of a server for this process's fingerprint, started if none is running
    (``check``: make sure it answers; otherwise an existing socket file is trusted). ``learn``: a model
    whose facts a server started here has a child learn (:mod:`.warm_server`); see :func:`start_server`."""
    return start_server(idle_s, check=check, learn=learn)[0]


def socket_path(kind: str = "seeds") -> Path:
    if os.name != "posix" or not hasattr(os, "fork"):
        raise WarmUnavailable("a warm server needs fork() and Unix sockets")
    if not wire.HAVE_PEERCRED:
        raise WarmUnavailable("this platform cannot tell which user serves a socket (no SO_PEERCRED)")
    sock = runtime_dir() / f"{fingerprint(kind)}.sock"
    if len(os.fsencode(sock)) > MAX_SOCKET_PATH:
        raise WarmUnavailable(f"the socket path {sock} is too long for a Unix socket (set TMPDIR to a shorter folder)")
    return sock


def start_server(idle_s: float, *, check: bool = False, learn: str | None = None,
                 kind: str = "seeds") -> tuple[Path, bool]:
    """:func:`ensure_server`, and whether this call started the server (so whether ``learn`` was passed on).
    ``kind``: a module whose children run a command line."""
    sock = socket_path(kind)
    folder, fp = sock.parent, sock.stem
    if sock.exists() and not check:
        return sock, False
    with open(folder / f"{fp}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one starter per fingerprint; the others wait and reuse it
        if sock.exists() and _reachable(sock):
            return sock, False
        sock.unlink(missing_ok=True)  # left by a server that was killed
        log = open(folder / f"{fp}.log", "wb")  # only what the server itself says (seeds print to their stage)
        with log:
            proc = subprocess.Popen(
                [sys.executable, "-m", _MODULE, str(sock), str(idle_s), json.dumps(sys.path), learn or "", kind],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, close_fds=True,
                start_new_session=True)  # outlives this stage; never holds a caller's output pipes
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if sock.exists():
                return sock, True
            if proc.poll() is not None:
                tail = (folder / f"{fp}.log").read_text(errors="replace")[-1500:]
                raise WarmUnavailable(f"the warm server exited with {proc.returncode}: {tail}")
            time.sleep(0.02)
        proc.kill()
        raise WarmUnavailable(f"the warm server did not start within {START_TIMEOUT_S} s")


def ahead_of_the_pool(execution: Execution) -> float | None:
    """``warm_s`` for a server started before the pool asks for one, with the environment and ``sys.path``
    set now as the pool sets them before it asks (the fingerprint must be the one it will ask for);
    None when seeds would not run in warm children (not the local executor, ``warm_s`` 0 or invalid)."""
    if execution.executor != "local":
        return None
    try:
        idle_s = idle_seconds(execution)
    except ParamsError:
        return None
    if idle_s <= 0:
        return None
    _as_the_pool_asks()
    return idle_s


def _as_the_pool_asks() -> None:
    """The environment and ``sys.path`` the pool sets before it asks for a server (its fingerprint)."""
    from .worker import huge_page_allocations
    from ..paths import repository_on_path

    huge_page_allocations()
    repository_on_path()  # importing a module:Class model puts the repository on sys.path: first, here


def start_in_background(execution: Execution, kind: str = "seeds") -> threading.Thread | None:
    """Start this process's server (``kind``: :func:`start_server`) in a thread while it does something slow;
    not where :func:`ahead_of_the_pool` says no. A failure is said by the pool's own :func:`ensure_server`."""
    idle_s = ahead_of_the_pool(execution)
    if idle_s is None:
        return None

    def start() -> None:
        try:
            start_server(idle_s, kind=kind)
        except Exception as exc:  # noqa: BLE001 - the pool asks again and says why
            log.debug(f"{kind} server not started early: {exc}")

    thread = threading.Thread(target=start, name="netzbench-warm-start", daemon=True)
    thread.start()
    return thread


def read_small(name: str, dir_fd: int | None = None) -> str | None:
    """The text of a short file (a pid), never following a link or blocking on a FIFO; None if unreadable."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        return os.read(fd, 64).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def _is_server(pid: int, sock: Path) -> bool:
    """Whether process ``pid`` runs as this user and is the warm server (:mod:`.warm_server`) of ``sock``."""
    argv = process_argv(pid)
    return process_uid(pid) == os.getuid() and argv is not None and argv[1:4] == ["-m", _MODULE, str(sock)]


def _scan() -> tuple[list[tuple[str, int]], list[tuple[Path, str]]]:
    """This user's running servers ``(fingerprint, pid)`` and the pid files that name none ``(file, content)``."""
    try:
        folder = runtime_dir()
    except WarmUnavailable:
        return [], []
    found, stale = [], []
    for pid_file in sorted(folder.glob("*.pid")):
        text = read_small(str(pid_file))
        if text is None:  # removed meanwhile: its server left
            continue
        if text.isdigit() and _is_server(int(text), pid_file.with_suffix(".sock")):
            found.append((pid_file.stem, int(text)))
        else:
            stale.append((pid_file, text))
    return found, stale


def servers() -> list[tuple[str, int]]:
    """``(fingerprint, pid)`` of this user's running warm servers (each checked: see :func:`_is_server`)."""
    return _scan()[0]


def kind_of(pid: int) -> str:
    """``"seeds"``, or the module server ``pid``'s children run (its command line)."""
    argv = process_argv(pid) or []
    return argv[7] if len(argv) > 7 else "seeds"


def checkout_of(pid: int) -> str | None:
    """The folder server ``pid`` was started in: the checkout whose stages it serves (its working
    directory, part of its fingerprint); None where ``/proc`` cannot tell."""
    return process_cwd(pid)


def here(pid: int) -> bool:
    """Whether server ``pid`` serves the checkout this process runs in."""
    folder = checkout_of(pid)
    return folder is not None and os.path.realpath(folder) == os.path.realpath(os.getcwd())


def listing() -> list[str]:
    """``netzbench warm``'s lines: each server of this user with the checkout it serves, and whether that is
    this one (and whether a stage started here now would use it: the same code, interpreter and environment)
    or another."""
    current, lines = fingerprint(), []
    for fp, pid in servers():
        kind = kind_of(pid).rpartition(".")[2].replace("_", " ")  # "<name> server" for netzbench.<name>
        whose = (("this checkout" + (f", a {kind}" if kind != "seeds" else "" if fp == current
                                     else ", other code or environment than here now"))
                 if here(pid) else "another checkout")
        lines.append(f"{fp}  pid {pid}  {checkout_of(pid) or '(checkout unknown)'}  ({whose})")
    return lines


def stop_servers(*, everywhere: bool = False) -> int:
    """Ask the warm servers of this checkout (``everywhere``: of every checkout of this user) to leave
    now (seeds running in their children finish); returns how many were asked. A pid file that names
    no server of ours (a process that took a dead server's pid) is removed and said so (logged); that
    process is not signalled."""
    found, stale = _scan()
    for pid_file, text in stale:
        pid_file.unlink(missing_ok=True)
        log.info(f"{pid_file}: pid {text} is not a warm server of this user; not signalled, stale pid file removed")
    asked = 0
    for fp, pid in found:
        if not everywhere and not here(pid):
            continue
        sock = runtime_dir() / f"{fp}.sock"
        asked += signal_verified(pid, signal.SIGTERM, lambda p: _is_server(p, sock))
    return asked


# -- the client ----------------------------------------------------------------------------------

def send_output(conn: socket.socket) -> None:
    """Pass this process's stdout and stderr to the child (the null device for one that is closed)."""
    fds, opened = [], []
    for fd in (1, 2):
        try:
            os.fstat(fd)
        except OSError:
            fd = os.open(os.devnull, os.O_WRONLY)
            opened.append(fd)
        fds.append(fd)
    try:
        socket.send_fds(conn, [b"f"], fds)
    finally:
        for fd in opened:
            os.close(fd)


def open_connection(sock: Path) -> tuple[socket.socket, int, int]:
    """A connection to the server at ``sock`` that has taken us: the folder checked again (one
    swapped for a link mid-stage is refused), the server's user verified, its secret sent and
    ``started`` received. Returns the connection, the child's pid and the server's."""
    if sock.parent != runtime_dir():
        raise WarmUnavailable(f"{sock} is not in this user's runtime folder")
    conn, server = _connect(sock)
    try:
        try:
            secret = read_secret(sock.with_suffix(".key"))
        except NotPrivate as exc:
            raise WarmUnavailable(str(exc)) from None
        wire.send(conn, {"secret": secret})
        msg = wire.recv(conn, limit=HELLO_LIMIT)
        if not (type(msg) is list and len(msg) == 2 and msg[0] == "started" and type(msg[1]) is int):
            raise wire.ProtocolError(f"expected 'started', got {str(msg)[:80]}")
    except BaseException:
        conn.close()
        raise
    return conn, msg[1], server


def _kill_child(child: int, server: int) -> None:
    """SIGKILL the server's child ``child`` (a seed that swallowed its alarm), if it still is one."""
    signal_verified(child, signal.SIGKILL, lambda pid: parent_pid(pid) == server and process_uid(pid) == os.getuid())


def _follow(conn: socket.socket, job: Job, child: int, server: int, out: queue_mod.Queue) -> tuple:
    """Pass the child's epochs on to ``out`` until its result; kill it at its deadline. Returns
    ``("done", job, result)`` or ``("lost", job, why)`` (a result JSON cannot carry)."""
    from .worker import kill_after, stopped_result

    after, deadline, armed = kill_after(job.timeout_s), None, None
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_child(child, server)
                return "done", job, stopped_result(job.timeout_s, armed)
            conn.settimeout(left)
        try:
            msg = wire.recv(conn)
        except socket.timeout:  # the deadline passed while nothing came
            continue
        kind = msg[0] if type(msg) is list and msg else None
        if kind == "epoch" and len(msg) == 3:
            out.put(("epoch", msg[1], msg[2]))
        elif kind == "limits":
            armed = time.time()
            deadline = None if after is None else time.monotonic() + after
        elif kind == "result" and len(msg) == 2 and type(msg[1]) is dict:
            return "done", job, msg[1]
        elif kind == "unencodable":
            return "lost", job, f"the warm server's child had a result JSON cannot carry exactly ({msg[1]})"
        else:
            raise wire.ProtocolError(f"unexpected message {str(msg)[:80]}")


def _run_one(job: Job, payload: bytes, sock: Path, idle_s: float, out: queue_mod.Queue) -> None:
    """Run ``job`` (``payload``: its frame) in a child of the server at ``sock``; put ``("epoch", i, n)``
    and one ``("done", job, result)`` (result None: the child died) or ``("lost", job, why)`` (no
    server to run it, or a result that cannot cross: the caller's pool runs it) on ``out``."""
    why = "no warm server answered"
    for attempt in range(5):
        try:
            conn, child, server = open_connection(ensure_server(idle_s, check=True) if attempt else sock)
        except WarmUnavailable as exc:  # e.g. the folder was swapped for a link: not a server to trust
            why = f"no warm server could take it ({exc})"
            continue
        except (OSError, EOFError, wire.ProtocolError):
            continue  # the server was leaving when we connected: ask again
        with conn:
            try:
                send_output(conn)
                wire.send_bytes(conn, payload)
                out.put(_follow(conn, job, child, server, out))
            except (EOFError, OSError, wire.ProtocolError):
                out.put(("done", job, None))
            return
    out.put(("lost", job, why))


def run_jobs_warm(jobs: list[Job], workers: int, idle_s: float, on_result, on_epochs=None) -> list[Job]:
    """Run ``jobs`` in children of the warm server, ``workers`` at a time. ``on_result(job, result)``
    and ``on_epochs(job_index, epoch)`` are called in this thread. A child that died is retried like
    a dead pool worker's job; returns the jobs no server could take or JSON cannot carry (the caller
    runs them in its pool)."""
    from .worker import MAX_RETRIES, died_result

    sock = ensure_server(idle_s)  # raises WarmUnavailable before any job is sent
    out: queue_mod.Queue = queue_mod.Queue()
    pending, lost, payloads = [], [], {}
    for job in jobs:
        try:
            payloads[id(job)] = wire.encode(job.to_wire())
        except wire.Unencodable:  # e.g. a model object from the Python API: the pool pickles it to its own worker
            lost.append(job)
        else:
            pending.append(job)
    attempts = {id(j): 0 for j in pending}
    running, said = 0, set()
    while pending or running:
        while pending and running < workers:
            job = pending.pop(0)
            attempts[id(job)] += 1
            threading.Thread(target=_run_one, args=(job, payloads[id(job)], sock, idle_s, out), daemon=True).start()
            running += 1
        msg = out.get()
        if msg[0] == "epoch":
            if on_epochs is not None:
                on_epochs(msg[1], msg[2])
            continue
        running -= 1
        kind, job, result = msg
        if kind == "lost":
            if result not in said:  # once per reason, not once per seed
                said.add(result)
                print(f"netzbench: {result}; its seeds run in this stage's own workers", file=sys.stderr)
            lost.append(job)
        elif result is not None:
            on_result(job, result)
        elif attempts[id(job)] > MAX_RETRIES:
            on_result(job, died_result(attempts[id(job)]))
        else:
            pending.append(job)
    return lost
