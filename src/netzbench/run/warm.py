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

The wire protocol is length-prefixed pickles over a Unix socket in a
directory only this user can open: the child says ``started``, the client
passes its stdout and stderr (so what a seed prints reaches the stage's
output, as from a pool worker) and the job, and the child reports ``epoch``
messages and then the ``result``.
A child whose client is gone stops at its next epoch report.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import pickle
import queue as queue_mod
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..identity import PACKAGE_DIR, source_hash
from ..params import DEFAULTS, ParamsError

#: seconds a server stays after its last seed when params say nothing (``exec.warm_s``'s default)
DEFAULT_IDLE_S = DEFAULTS["exec"]["warm_s"]
#: seconds a new server may take to import torch and start listening
START_TIMEOUT_S = 120
#: environment variables that differ between stages of one pipeline and never reach a number
_VOLATILE_ENV = ("PWD", "OLDPWD", "SHLVL", "_")
_HEADER = struct.Struct("!Q")


class WarmUnavailable(RuntimeError):
    """No warm server could be reached or started; the caller uses its own process pool."""


def idle_seconds(exec_params: dict) -> float:
    """How long a server stays after its last seed: ``$NETZBENCH_WARM_S``, else ``exec.warm_s``."""
    value = os.environ.get("NETZBENCH_WARM_S")
    if value not in (None, ""):
        try:
            return max(0.0, float(value))
        except ValueError:
            raise ParamsError(f"NETZBENCH_WARM_S must be a number of seconds (0: no warm server), got {value!r}") from None
    warm = exec_params.get("warm_s", DEFAULT_IDLE_S)
    return float(warm or 0)


# -- framing -------------------------------------------------------------------------------------

def _send(conn: socket.socket, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    conn.sendall(_HEADER.pack(len(data)) + data)


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = conn.recv(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv(conn: socket.socket):
    (size,) = _HEADER.unpack(_recv_exact(conn, _HEADER.size))
    return pickle.loads(_recv_exact(conn, size))


# -- where and which server ----------------------------------------------------------------------

def runtime_dir() -> Path:
    """``<tmp>/netzbench-warm-<uid>``, private to this user (a socket path must stay under ~100 bytes,
    so not the repository's cache directory)."""
    path = Path(tempfile.gettempdir()) / f"netzbench-warm-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    st = path.stat()
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise WarmUnavailable(f"{path} is not private to this user; not using a warm server")
    return path


def _package_digest(h) -> None:
    h.update(source_hash([PACKAGE_DIR]).encode())
    for name in ("torch", "torch_geometric"):
        spec = importlib.util.find_spec(name)  # a top-level package: found without importing it
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        if origin is not None and origin.exists():
            st = origin.stat()
            h.update(f"{name}:{origin}:{st.st_size}:{st.st_mtime_ns}".encode())


def fingerprint() -> str:
    """What a server's children inherit and a forkserver's would: interpreter, import path, working
    directory, environment, netzbench source and the installed torch and PyG."""
    h = hashlib.sha256()
    env = {k: v for k, v in os.environ.items() if k not in _VOLATILE_ENV and not k.startswith("DVC_")}
    h.update(json.dumps([sys.executable, sys.path, os.getcwd(), sorted(env.items())]).encode())
    _package_digest(h)
    return h.hexdigest()[:20]


def _connect(path: Path) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        raise
    return conn


def _reachable(path: Path) -> bool:
    try:
        _connect(path).close()  # the child forked for this connection sees EOF and leaves
        return True
    except OSError:
        return False


def ensure_server(idle_s: float, *, check: bool = False) -> Path:
    """The socket of a server for this process's fingerprint, started if none is running
    (``check``: make sure it answers; otherwise an existing socket file is trusted)."""
    if os.name != "posix" or not hasattr(os, "fork"):
        raise WarmUnavailable("a warm server needs fork() and Unix sockets")
    folder = runtime_dir()
    fp = fingerprint()
    sock = folder / f"{fp}.sock"
    if sock.exists() and not check:
        return sock
    with open(folder / f"{fp}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one starter per fingerprint; the others wait and reuse it
        if sock.exists() and _reachable(sock):
            return sock
        sock.unlink(missing_ok=True)  # left by a server that was killed
        log = open(folder / f"{fp}.log", "wb")  # only what the server itself says (seeds print to their stage)
        with log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "netzbench.run.warm", str(sock), str(idle_s), json.dumps(sys.path)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, close_fds=True,
                start_new_session=True)  # outlives this stage; never holds a caller's output pipes
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if sock.exists():
                return sock
            if proc.poll() is not None:
                tail = (folder / f"{fp}.log").read_text(errors="replace")[-1500:]
                raise WarmUnavailable(f"the warm server exited with {proc.returncode}: {tail}")
            time.sleep(0.02)
        proc.kill()
        raise WarmUnavailable(f"the warm server did not start within {START_TIMEOUT_S} s")


def servers() -> list[tuple[str, int]]:
    """``(fingerprint, pid)`` of this user's running warm servers."""
    try:
        folder = runtime_dir()
    except WarmUnavailable:
        return []
    found = []
    for pid_file in sorted(folder.glob("*.pid")):
        try:
            pid = int(pid_file.read_text())
            os.kill(pid, 0)
        except (ValueError, OSError):
            continue
        found.append((pid_file.stem, pid))
    return found


def stop_servers() -> int:
    """Ask every warm server of this user to leave now (seeds running in its children finish);
    returns how many were asked."""
    found = servers()
    for _, pid in found:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    return len(found)


# -- the server ----------------------------------------------------------------------------------

class _SocketProgress:
    """Stands in for the pool's progress queue in a child: epochs go to the client over the socket."""

    def __init__(self, conn: socket.socket):
        self.conn = conn

    def put_nowait(self, msg) -> None:
        try:
            _send(self.conn, ("epoch", *msg))
        except OSError:  # the client is gone (killed, interrupted): nobody wants this seed any more
            os._exit(3)


def _child(conn: socket.socket) -> None:
    from .worker import init_worker, run_seed

    _send(conn, ("started", os.getpid()))
    try:
        _, fds, _, _ = socket.recv_fds(conn, 1, 2)  # the client's stdout and stderr
        job = _recv(conn)
    except EOFError:  # a reachability check, or a client that gave up
        return
    for target, fd in zip((1, 2), fds):  # what a seed prints goes where a pool worker's would: the stage's output
        os.dup2(fd, target)
        os.close(fd)
    init_worker(_SocketProgress(conn))
    _send(conn, ("result", run_seed(job)))


def _leave(signum, frame):
    raise SystemExit(0)


def serve(sock_path: str, idle_s: float, sys_path: list[str]) -> None:
    """Import what the forkserver preloads, listen on ``sock_path``, fork a child per connection,
    and leave after ``idle_s`` seconds without children or when the socket is taken away."""
    sys.path[:] = sys_path  # the caller's, not ``-m``'s working directory first
    from . import preload  # noqa: F401 - torch, PyG, the worker and model modules

    path = Path(sock_path)
    staging = path.with_suffix(f".{os.getpid()}.tmp")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(staging))
    listener.listen(64)
    pid_file = path.with_suffix(".pid")
    pid_file.write_text(str(os.getpid()))
    os.replace(staging, path)  # clients see the socket only once it listens
    inode = path.stat().st_ino
    signal.signal(signal.SIGTERM, _leave)  # tidy up (socket, pid file) when asked to stop
    children: set[int] = set()
    last = time.monotonic()
    try:
        while True:
            for pid in list(children):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done:
                    children.discard(pid)
            now = time.monotonic()
            if children:
                last = now
            try:
                ours = path.stat().st_ino == inode
            except FileNotFoundError:
                ours = False
            if not ours or now - last > idle_s:
                break
            ready, _, _ = select.select([listener], [], [], 0.5)
            if not ready:
                continue
            conn, _ = listener.accept()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    listener.close()
                    _child(conn)
                except BaseException:  # noqa: BLE001 - the client sees EOF without a result
                    code = 1
                finally:
                    os._exit(code)
            conn.close()
            children.add(pid)
            last = time.monotonic()
    finally:
        try:
            if path.stat().st_ino == inode:
                path.unlink()
        except FileNotFoundError:
            pass
        if pid_file.exists() and pid_file.read_text() == str(os.getpid()):
            pid_file.unlink()
            # a starter waiting on the removed lock file may start a second server: harmless, the
            # later socket replaces the earlier one and the earlier server leaves (not ours any more)
            path.with_suffix(".lock").unlink(missing_ok=True)
            log = path.with_suffix(".log")
            if log.exists() and log.stat().st_size == 0:
                log.unlink()
        listener.close()  # connections still in the backlog see EOF before "started": clients retry


# -- the client ----------------------------------------------------------------------------------

def _send_output(conn: socket.socket) -> None:
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


def _run_one(job: dict, sock: Path, idle_s: float, out: queue_mod.Queue) -> None:
    """Run ``job`` in a child of the server at ``sock``; put ``("epoch", i, n)`` and one
    ``("done", job, result)`` (result None: the child died) or ``("lost", job, None)`` (no server to
    run it) on ``out``."""
    for attempt in range(5):
        try:
            conn = _connect(ensure_server(idle_s, check=True) if attempt else sock)
        except (OSError, WarmUnavailable):
            continue
        with conn:
            try:
                if _recv(conn)[0] != "started":
                    continue
            except (EOFError, OSError):
                continue  # the server was leaving when we connected: ask again
            try:
                _send_output(conn)
                _send(conn, job)
                while True:
                    msg = _recv(conn)
                    if msg[0] == "epoch":
                        out.put(msg)
                    else:
                        out.put(("done", job, msg[1]))
                        return
            except (EOFError, OSError):
                out.put(("done", job, None))
                return
    out.put(("lost", job, None))


def run_jobs_warm(jobs: list[dict], workers: int, idle_s: float, on_result, on_epochs=None) -> list[dict]:
    """Run ``jobs`` in children of the warm server, ``workers`` at a time. ``on_result(job, result)``
    and ``on_epochs(job_index, epoch)`` are called in this thread. A child that died is retried like
    a broken pool's job; returns the jobs no server could take (the caller runs them in its pool)."""
    from .worker import MAX_RETRIES, died_result

    sock = ensure_server(idle_s)  # raises WarmUnavailable before any job is sent
    out: queue_mod.Queue = queue_mod.Queue()
    pending = list(jobs)
    attempts = {id(j): 0 for j in jobs}
    running, lost = 0, []
    while pending or running:
        while pending and running < workers:
            job = pending.pop(0)
            attempts[id(job)] += 1
            threading.Thread(target=_run_one, args=(job, sock, idle_s, out), daemon=True).start()
            running += 1
        msg = out.get()
        if msg[0] == "epoch":
            if on_epochs is not None:
                on_epochs(msg[1], msg[2])
            continue
        running -= 1
        kind, job, result = msg
        if kind == "lost":
            lost.append(job)
        elif result is not None:
            on_result(job, result)
        elif attempts[id(job)] > MAX_RETRIES:
            on_result(job, died_result(attempts[id(job)]))
        else:
            pending.append(job)
    return lost


if __name__ == "__main__":
    serve(sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3]))
