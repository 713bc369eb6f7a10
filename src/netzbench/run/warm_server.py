"""The warm server's process: what ``python -m netzbench.run.warm_server <socket> <idle s> <sys.path> [<model
to learn> [<kind>]]`` runs (a kind other than ``seeds``: the module a server of that kind imports and its
children run, :func:`serve`).

It imports what the pool's forkserver preloads, listens on the socket, and
forks a child per connection of this user (``SO_PEERCRED``; any other user's
connection is closed before a byte is read). A child first reads the
client's secret (at most :data:`.warm.HELLO_LIMIT` bytes of JSON, compared
with ``hmac.compare_digest``) and leaves without a word if it is wrong; then
it takes the client's stdout and stderr and the job, runs
:func:`.worker.run_seed` once and reports over the socket (:mod:`.warm`
describes the protocol). Every file of the server (socket, pid file,
secret) is handled through a descriptor of its folder, so a folder name
swapped while it runs is never followed. It leaves after ``idle_s`` seconds
without children, on SIGTERM, or when its socket is replaced.
"""

from __future__ import annotations

import hmac
import json
import os
import select
import signal
import socket
import sys
import time
from pathlib import Path

from . import wire
from .job import Job
from .runtime import why_unsafe, write_secret
from .warm import HELLO_LIMIT, HELLO_S, read_small


class _SocketProgress:
    """Stands in for the pool's progress queue in a child: epochs go to the client over the socket."""

    def __init__(self, conn: socket.socket):
        self.conn = conn

    def tell(self, msg: list) -> None:
        try:
            wire.send(self.conn, msg)
        except OSError:  # the client is gone (killed, interrupted): nobody wants this seed any more
            os._exit(3)

    def put_nowait(self, msg) -> None:
        self.tell(["epoch", *msg])


def _child(conn: socket.socket, secret: str, kind: str = "seeds") -> None:
    """One connection: the client's secret first (anything else, and the child leaves without a
    word), then its stdout and stderr and the job; epochs and the result go back (another kind's
    child: its module's ``run(conn, job)``)."""
    conn.settimeout(HELLO_S)  # a client that connects and says nothing does not keep the server
    try:
        hello = wire.recv(conn, limit=HELLO_LIMIT)
    except (EOFError, OSError, wire.ProtocolError):  # a reachability check, a client that gave up, not a client
        return
    given = hello.get("secret") if type(hello) is dict else None
    if type(given) is not str or not given.isascii() or not hmac.compare_digest(given, secret):
        return
    wire.send(conn, ["started", os.getpid()])
    try:
        _, fds, _, _ = socket.recv_fds(conn, 1, 2)  # the client's stdout and stderr
        job = wire.recv(conn)
    except (EOFError, OSError, wire.ProtocolError):
        return
    if len(fds) != 2:
        return
    conn.settimeout(None)
    for target, fd in zip((1, 2), fds):  # what a seed prints goes where a pool worker's would: the stage's output
        os.dup2(fd, target)
        os.close(fd)
    if kind != "seeds":
        sys.modules[kind].run(conn, job)  # imported by serve()
        return
    from .worker import init_worker, run_seed

    job = Job.from_wire(job)
    progress = _SocketProgress(conn)
    init_worker(progress, on_limits=lambda: progress.tell(["limits"]))
    result = run_seed(job)
    try:
        data = wire.encode(["result", result])
    except wire.Unencodable as exc:  # the client runs the seed in its own pool rather than get it changed
        data = wire.encode(["unencodable", str(exc)])
    wire.send_bytes(conn, data)


def _leave(signum, frame):
    raise SystemExit(0)


def _inode(name: str, folder: int) -> int | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False).st_ino
    except FileNotFoundError:
        return None


def _fork(listener: socket.socket, run, *args) -> int:
    """A child that runs ``run(*args)`` and exits (1 on any exception), without the server's listener and
    its SIGTERM handler; returns its pid."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            listener.close()
            run(*args)
        except BaseException:  # noqa: BLE001 - said by what the child leaves (no result, an error entry)
            code = 1
        finally:
            os._exit(code)
    return pid


def _learn(model: str) -> None:
    from ..model_traits import learn

    learn(model)


def serve(sock_path: str, idle_s: float, sys_path: list[str], learn: str | None = None,
          kind: str = "seeds") -> None:
    """Import what the forkserver preloads, listen on ``sock_path``, fork a child per connection of
    this user, and leave after ``idle_s`` seconds without children or when the socket is taken away.
    ``learn``: a ``module:Class`` model whose traits a first child imports and remembers
    (:func:`netzbench.model_traits.learn`, for :mod:`.prewarm`): torch is loaded by then, and the server
    itself never imports a user's module (its children must start as a forkserver's would).
    Another ``kind``: the module (named by the process of this user that started the server, never over
    the socket) that the server imports instead and whose ``run(conn, job)`` each child calls."""
    sys.path[:] = sys_path  # the caller's, not ``-m``'s working directory first
    if kind != "seeds":
        import importlib

        importlib.import_module(kind)  # its imports are the preload; the name comes from our own caller
        learn = None
    else:
        from . import preload  # noqa: F401 - torch, PyG, the worker and model modules

    path = Path(sock_path)
    # every file of the server is opened in its folder by descriptor: a name swapped later is not followed
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    if why_unsafe(os.fstat(folder)) is not None:
        raise SystemExit(f"{path.parent} {why_unsafe(os.fstat(folder))}: not serving")
    name, stem, me = path.name, path.stem, str(os.getpid())
    secret = write_secret(f"{stem}.key", folder)  # before the socket appears: a client reads it once connected
    staging = f"{stem}.{me}.tmp"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path.with_name(staging)))
    listener.listen(64)
    fd = os.open(f"{stem}.pid.{me}.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder)
    with os.fdopen(fd, "w") as f:
        f.write(me)
    os.replace(f"{stem}.pid.{me}.tmp", f"{stem}.pid", src_dir_fd=folder, dst_dir_fd=folder)
    os.replace(staging, name, src_dir_fd=folder, dst_dir_fd=folder)  # clients see the socket only once it listens
    inode = _inode(name, folder)
    signal.signal(signal.SIGTERM, _leave)  # tidy up (socket, pid file) when asked to stop
    children: set[int] = set()
    if learn:  # its entry says why when it fails; the train stage then raises the error itself
        children.add(_fork(listener, _learn, learn))
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
            if _inode(name, folder) != inode or now - last > idle_s:
                break
            ready, _, _ = select.select([listener], [], [], 0.5)
            if not ready:
                continue
            conn, _ = listener.accept()
            try:
                uid = wire.peer(conn)[1]
            except OSError:
                uid = None
            if uid != os.getuid():  # another user's process: no child, not a byte read
                conn.close()
                continue
            pid = _fork(listener, _child, conn, secret, kind)  # a child that fails: the client sees EOF, no result
            conn.close()
            children.add(pid)
            last = time.monotonic()
    finally:
        if _inode(name, folder) == inode:
            os.unlink(name, dir_fd=folder)
        if read_small(f"{stem}.pid", folder) == me:
            for leftover in (f"{stem}.pid", f"{stem}.key", f"{stem}.lock"):
                # a starter waiting on the removed lock file may start a second server: harmless, the
                # later socket replaces the earlier one and the earlier server leaves (not ours any more)
                try:
                    os.unlink(leftover, dir_fd=folder)
                except FileNotFoundError:
                    pass
            try:
                if os.stat(f"{stem}.log", dir_fd=folder, follow_symlinks=False).st_size == 0:
                    os.unlink(f"{stem}.log", dir_fd=folder)
            except FileNotFoundError:
                pass
        listener.close()  # connections still in the backlog see EOF before "started": clients retry
        os.close(folder)


if __name__ == "__main__":
    serve(sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3]), (sys.argv[4] if len(sys.argv) > 4 else "") or None,
          sys.argv[5] if len(sys.argv) > 5 else "seeds")
