"""The executor on a machine shared with other users (issue 24): the warm server cannot be hijacked,
planted paths never stop training, only our own servers are signalled, a seed that swallows its
timeout is stopped from outside, and no seed leaves files in the temporary folder.

The attacks are real: another user is a forked child running as uid 65534 ("nobody"), and each
payload would write a marker file if it ran; the tests assert it never appears. They need root
(to become that user) and are skipped otherwise.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from dataclasses import replace
from pathlib import Path

import pytest

from netzbench.run import runtime, warm, wire, worker
from netzbench.run.execute import train_cell

from helpers import as_settings, make_params, misbehaving_workdir, same_bits

NOBODY = 65534
needs_root = pytest.mark.skipif(os.getuid() != 0, reason="becoming another user (uid 65534) needs root")
CLI = str(Path(sys.executable).parent / "netzbench")

#: models for these tests, next to the misbehaving ones (``sharedlab.extra``); they read their
#: settings from ``nzs.json`` in the working directory (a pool worker has the environment of the
#: forkserver, which the first test that used it started)
EXTRA_MODELS = textwrap.dedent("""
    import json
    import os
    import time

    import torch

    from .models import Linear

    def setting(name):
        with open("nzs.json") as f:
            return json.load(f)[name]

    class SwallowsExceptions(Linear):
        '''Seed 1 loops forever and catches every Exception (the in-process alarm still stops it).'''
        def forward(self, x, edge_index):
            while torch.initial_seed() == 1:
                try:
                    time.sleep(0.05)
                except Exception:
                    pass
            return self.lin(x)

    class SwallowsEverything(Linear):
        '''Seed 1 notes its pid per attempt, then loops forever catching even the alarm: only a kill stops it.'''
        def forward(self, x, edge_index):
            if torch.initial_seed() == 1:
                with open(setting("attempts"), "a") as f:
                    f.write(f"{os.getpid()} ")
            while torch.initial_seed() == 1:
                try:
                    time.sleep(0.05)
                except BaseException:
                    pass
            return self.lin(x)

    class SwapsTheRuntimeFolder(Linear):
        '''On the first forward anywhere, moves the runtime folder away and puts a link to another
        user's folder in its place (what that user can do where the parent folder lets them).'''
        def forward(self, x, edge_index):
            done = setting("swap_done")
            if not os.path.exists(done):
                open(done, "w").close()
                real = setting("swap_real")
                os.rename(real, real + ".moved")
                os.symlink(setting("swap_evil"), real)
            return self.lin(x)
""")


class _Touch:
    """Unpickling this runs ``touch <marker>``: the attacker's payload."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def _pickle_frame(marker: Path) -> bytes:
    data = pickle.dumps(_Touch(str(marker)))
    return struct.pack("!Q", len(data)) + data


def _wait(condition, timeout=30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def as_nobody(fn, *args) -> int:
    """Fork a child that runs ``fn(*args)`` as uid/gid 65534 and exits; returns its pid."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            fn(*args)
            code = 0
        except BaseException:  # noqa: BLE001 - report, never return into pytest in the child
            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie not yet reaped by its parent counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _reap(pid: int, kill: bool = True) -> int:
    if kill:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return os.waitpid(pid, 0)[1]


@pytest.fixture
def evil():
    """A folder of the other user's, where it can reach it (``/tmp/nze-*``, uid 65534)."""
    folder = Path(tempfile.mkdtemp(prefix="nze-", dir="/tmp"))
    folder.chmod(0o755)
    os.chown(folder, NOBODY, NOBODY)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _serve_pickles(sock_path: str, marker: str) -> None:
    """The attacker's server: greets every caller with a pickle that touches ``marker`` (what the old
    client unpickled first), then reads whatever comes."""
    frame = _pickle_frame(Path(marker))
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    os.chmod(sock_path, 0o777)
    srv.listen(16)
    while True:
        conn, _ = srv.accept()
        try:
            conn.sendall(frame)
            conn.settimeout(1)
            conn.recv(1 << 16)
        except OSError:
            pass
        conn.close()


def _stage_fingerprint(params: dict) -> str:
    """The fingerprint a stage of this process computes for its server (after it set its environment)."""
    from netzbench.paths import repository_on_path
    from netzbench.run.arithmetic import configure

    repository_on_path()  # as resolving a 'package.module:Class' model does (sys.path is in the fingerprint)
    configure(params["exec"]["arithmetic"])
    worker.huge_page_allocations()
    return warm.fingerprint()


@pytest.fixture
def private_runtime(monkeypatch):
    """``$XDG_RUNTIME_DIR`` of this test's own (short, 0700); its servers are stopped afterwards."""
    folder = tempfile.mkdtemp(prefix="nzs-", dir="/tmp")
    monkeypatch.setenv("XDG_RUNTIME_DIR", folder)
    yield Path(folder)
    for _, pid in warm.servers():
        os.kill(pid, signal.SIGTERM)
        _wait(lambda: runtime.process_argv(pid) is None, 10)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def shared_tmp(monkeypatch):
    """A temporary folder like ``/tmp`` (1777, root's) as this process's and its children's tempdir,
    with no ``$XDG_RUNTIME_DIR``: the runtime folder is ``<it>/netzbench-<uid>``."""
    from multiprocessing.util import get_temp_dir

    get_temp_dir()  # the pool's forkserver keeps its socket there: not in this folder, removed at the end
    folder = Path(tempfile.mkdtemp(prefix="nzt-", dir="/tmp"))
    folder.chmod(0o1777)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    root = misbehaving_workdir(tmp_path, monkeypatch, "sharedlab")
    (root / "sharedlab" / "extra.py").write_text(EXTRA_MODELS)
    return root


def _statuses(record: dict) -> dict:
    return {seed: r["status"] for seed, r in record["seeds"].items()}


# -- the runtime folder --------------------------------------------------------------------------

@needs_root
@pytest.mark.parametrize("plant", ["symlink", "file", "others_folder", "open_folder"])
def test_an_unsafe_runtime_path_is_refused_and_left_as_it_is(shared_tmp, plant):
    path = shared_tmp / f"netzbench-{os.getuid()}"
    elsewhere = shared_tmp / "elsewhere"
    elsewhere.mkdir(mode=0o700)

    def plant_it():
        if plant == "symlink":
            os.symlink(elsewhere, path)
        elif plant == "file":
            path.write_text("")
        else:
            os.mkdir(path, 0o700)

    if plant == "open_folder":  # our own, but writable by anyone: whatever is in it may not be ours
        os.mkdir(path)
        os.chmod(path, 0o777)
    else:
        assert os.waitpid(as_nobody(plant_it), 0)[1] == 0
    before = os.lstat(path)
    with pytest.raises(warm.WarmUnavailable) as info:
        warm.runtime_dir()
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    expected = {"symlink": "is a symbolic link", "file": "is not a folder",
                "others_folder": f"belongs to uid {NOBODY}", "open_folder": "open to its group or others"}[plant]
    assert expected in message
    after = os.lstat(path)  # never chmod'ed, chown'ed or replaced
    assert (after.st_mode, after.st_uid, after.st_ino) == (before.st_mode, before.st_uid, before.st_ino)


def test_the_runtime_folder_is_created_private_and_reused(private_runtime):
    folder = warm.runtime_dir()
    assert folder == private_runtime / "netzbench"
    st = os.lstat(folder)
    assert st.st_uid == os.getuid() and (st.st_mode & 0o777) == 0o700
    assert warm.runtime_dir() == folder


def test_an_unsafe_xdg_runtime_dir_is_passed_over(shared_tmp, monkeypatch):
    open_xdg = shared_tmp / "xdg"
    open_xdg.mkdir()
    open_xdg.chmod(0o755)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(open_xdg))
    assert warm.runtime_dir() == shared_tmp / f"netzbench-{os.getuid()}"


def test_a_parent_others_can_rename_in_is_refused(monkeypatch, tmp_path):
    parent = tmp_path / "scratch"
    parent.mkdir()
    parent.chmod(0o777)  # writable by anyone, not sticky: anyone may move our folder away
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(parent))
    with pytest.raises(warm.WarmUnavailable, match="not sticky"):
        warm.runtime_dir()
    assert not (parent / f"netzbench-{os.getuid()}").exists()


@needs_root
@pytest.mark.parametrize("plant", ["file", "others_folder", "open_folder"])
def test_train_works_whatever_is_planted_at_the_runtime_path(workdir, shared_tmp, monkeypatch, capsys, plant):
    path = shared_tmp / f"netzbench-{os.getuid()}"
    if plant == "open_folder":
        os.mkdir(path)
        os.chmod(path, 0o777)
    else:
        planter = (lambda: path.write_text("")) if plant == "file" else (lambda: os.mkdir(path, 0o700))
        assert os.waitpid(as_nobody(planter), 0)[1] == 0
    monkeypatch.setenv("NETZBENCH_WARM_S", "5")
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    rec = train_cell("random_tsp", "GCN", as_settings(p), "g.json", progress=False)
    assert _statuses(rec) == {"0": "ok"}
    err = capsys.readouterr().err
    assert f"no warm worker server ({path}" in err and "starting this stage's own workers" in err


@needs_root
def test_the_command_line_trains_past_a_planted_file(workdir, shared_tmp):
    """The issue's case: another user's plain file at the path made every `netzbench train` fail."""
    import yaml

    path = shared_tmp / f"netzbench-{os.getuid()}"
    assert os.waitpid(as_nobody(lambda: path.write_text("")), 0)[1] == 0
    (workdir / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["random_tsp"], "models": ["GCN"], "seeds": [0],
        "train": {"epochs": {"random_tsp": 2}}, "exec": {"workers": 1}}))
    env = {**os.environ, "NETZBENCH_WARM_S": "5"}
    done = subprocess.run([CLI, "train", "random_tsp", "GCN", "--out", "g.json"], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "is not a folder" in done.stderr and "starting this stage's own workers" in done.stderr
    assert json.loads((workdir / "g.json").read_text())["seeds"]["0"]["status"] == "ok"


# -- hijacking the warm server -------------------------------------------------------------------

@needs_root
def test_a_runtime_link_another_user_swaps_never_reaches_their_socket(workdir, shared_tmp, evil, monkeypatch, capsys,
                                                                      tmp_path_factory):
    """The issue's attack: another user's link at the runtime path, swapped back and forth between a
    folder of ours and theirs, where their socket greets each caller with a pickle."""
    monkeypatch.setenv("NETZBENCH_WARM_S", "5")
    p = make_params(seeds=[0, 1], train={"epochs": {"random_tsp": 2}}, exec={"workers": 2})
    fp = _stage_fingerprint(p)
    marker = workdir / "hijacked"
    ours = tempfile.mkdtemp(dir=shared_tmp)  # 0700, ours: a link to it passes a check that follows links
    link = shared_tmp / f"netzbench-{os.getuid()}"

    def toggle():
        while True:
            for target in (ours, evil):
                os.symlink(target, f"{link}.new")
                os.replace(f"{link}.new", link)  # its own link, in a sticky folder: allowed
                time.sleep(0.05)

    server = as_nobody(_serve_pickles, str(evil / f"{fp}.sock"), str(marker))
    toggler = as_nobody(toggle)
    try:
        assert _wait(lambda: (evil / f"{fp}.sock").exists() and link.is_symlink(), 10)
        rec = train_cell("random_tsp", "GCN", as_settings(p), "g.json", progress=False)
    finally:
        _reap(toggler)
        _reap(server)
    assert not marker.exists(), "the attacker's pickle ran in the victim's stage"
    assert _statuses(rec) == {"0": "ok", "1": "ok"}
    assert "is a symbolic link" in capsys.readouterr().err
    # and the seeds are what this stage's own workers train
    monkeypatch.setenv("NETZBENCH_WARM_S", "0")
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("pool-cache")))
    pool = train_cell("random_tsp", "GCN", as_settings(p), "p.json", progress=False)
    assert {s: r["history"] for s, r in rec["seeds"].items()} == {s: r["history"] for s, r in pool["seeds"].items()}


@needs_root
def test_a_folder_swapped_mid_stage_is_refused_before_the_next_connection(workdir, private_runtime, evil, monkeypatch,
                                                                         capsys, tmp_path):
    monkeypatch.setenv("NETZBENCH_WARM_S", "5")
    real = warm.runtime_dir()
    (workdir / "nzs.json").write_text(json.dumps({"swap_real": str(real), "swap_evil": str(evil),
                                                  "swap_done": str(tmp_path / "swapped")}))
    p = make_params(seeds=[0, 1, 2], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    fp = _stage_fingerprint(p)
    marker = tmp_path / "hijacked"
    server = as_nobody(_serve_pickles, str(evil / f"{fp}.sock"), str(marker))
    try:
        assert _wait(lambda: (evil / f"{fp}.sock").exists(), 10)
        rec = train_cell("random_tsp", "sharedlab.extra:SwapsTheRuntimeFolder", as_settings(p), "s.json", role="candidate",
                         progress=False)
    finally:
        _reap(server)
        if real.is_symlink():  # put our folder back, so that the fixture stops its server
            real.unlink()
            os.rename(f"{real}.moved", real)
    assert (tmp_path / "swapped").exists(), "the folder was never swapped: the test tested nothing"
    assert not marker.exists(), "the attacker's pickle ran in the victim's stage"
    assert _statuses(rec) == {"0": "ok", "1": "ok", "2": "ok"}
    err = capsys.readouterr().err
    assert "is a symbolic link" in err and "run in this stage's own workers" in err


@needs_root
def test_the_client_refuses_a_socket_another_user_serves(private_runtime, evil, tmp_path):
    marker = tmp_path / "hijacked"
    sock = evil / "x.sock"
    server = as_nobody(_serve_pickles, str(sock), str(marker))
    try:
        assert _wait(sock.exists, 10)
        with pytest.raises(warm.WarmUnavailable, match=f"uid {NOBODY}, not of this user"):
            warm._connect(sock)
        with pytest.raises(warm.WarmUnavailable, match="not in this user's runtime folder"):
            warm.open_connection(sock)
    finally:
        _reap(server)
    assert not marker.exists()


def _attack(sock: Path, first: bytes, then: bytes) -> bytes:
    """Speak to the server at ``sock`` as far as it lets us: send ``first`` (unless the server speaks
    first, as the pickle protocol did), and once it answers, stdout/stderr and ``then`` (the job).
    Returns all the server said before it closed."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(sock))
        conn.settimeout(1)
        try:
            said = conn.recv(1 << 16)
        except OSError:  # silent: it waits for the client's first word
            said = None
        conn.settimeout(5)
        try:
            if said is None:
                conn.sendall(first)  # a server that closes at once makes this a broken pipe
                said = conn.recv(1 << 16)
            if said:
                socket.send_fds(conn, [b"f"], [1, 2])
                conn.sendall(then)
                while chunk := conn.recv(1 << 16):
                    said += chunk
        except OSError:
            pass
    return said or b""


def _frame(obj) -> bytes:
    data = json.dumps(obj).encode()
    return struct.pack("!Q", len(data)) + data


@needs_root
def test_the_server_runs_nothing_for_a_process_without_its_secret_or_of_another_user(workdir, private_runtime, evil,
                                                                                     tmp_path):
    from netzbench.run.plan import plan_cell

    marker = tmp_path / "hijacked"
    # a job that runs the attacker's code if the server accepts it: importing its model touches the marker
    (tmp_path / "sharedevil").mkdir()
    (tmp_path / "sharedevil" / "__init__.py").write_text("")
    (tmp_path / "sharedevil" / "models.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    job = plan_cell("random_tsp", "GCN", as_settings(p)).jobs[0]
    job = replace(job, spec={**job.spec, "model": "sharedevil.models:Payload"}, arithmetic="native", threads=1,
                  sys_path=[str(tmp_path), *job.sys_path]).to_wire()
    sock = warm.ensure_server(30)

    pickled = _attack(sock, _pickle_frame(marker), _pickle_frame(marker))  # the same user, a pickle
    no_secret = _attack(sock, _frame(job), _frame(job))  # the same user, a plain job
    wrong_secret = _attack(sock, _frame({"secret": "0" * 64}), _frame(job))
    secret = sock.with_suffix(".key").read_text()
    # another user who even knows the secret: let it reach the socket for this once
    said = evil / "said"

    def as_other_user():
        said.write_bytes(_attack(sock, _frame({"secret": secret}), _frame(job)))

    for path in (private_runtime, sock.parent):
        path.chmod(0o711)
    sock.chmod(0o777)
    try:
        assert os.waitpid(as_nobody(as_other_user), 0)[1] == 0
    finally:
        for path in (private_runtime, sock.parent):
            path.chmod(0o700)
    time.sleep(1)  # a child that took the job would have imported the model by now
    assert not marker.exists(), "the server ran a job it should have refused"
    assert (pickled, no_secret, wrong_secret, said.read_bytes()) == (b"", b"", b"", b"")
    # the server still serves its own client
    conn, child, server = warm.open_connection(sock)
    conn.close()
    assert runtime.process_uid(server) == os.getuid() and child != server


def test_a_job_json_cannot_carry_is_left_to_the_pool(workdir, private_runtime):
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    from netzbench.run.plan import plan_cell

    job = plan_cell("random_tsp", "GCN", as_settings(p)).jobs[0]
    job = replace(job, spec={**job.spec, "model_args": {"pair": (1, 2)}})  # as a tuple from the Python API would be
    results = []
    left = warm.run_jobs_warm([job], 1, 5, lambda j, r: results.append(r))
    assert left == [job] and results == []


def test_a_job_the_pool_cannot_pickle_fails_alone(workdir):
    """The pool sends each job to its own process: one that cannot go is recorded, the others run."""
    from netzbench.run import pool
    from netzbench.run.arithmetic import configure
    from netzbench.run.plan import plan_cell

    p = make_params(seeds=[0, 1], train={"epochs": {"random_tsp": 2}}, exec={"workers": 2})
    configure(p["exec"]["arithmetic"])
    jobs = plan_cell("random_tsp", "GCN", as_settings(p)).jobs
    jobs[0] = replace(jobs[0], model_spec=lambda: None)  # as a notebook's inline factory would be
    results = {}
    pool.run_jobs(jobs, 2, lambda job, result: results.__setitem__(job.spec["seed"], result))
    assert results[0]["status"] == "failed" and "pickle" in results[0]["error"].lower()
    assert results[1]["status"] == "ok"


# -- stopping servers ----------------------------------------------------------------------------

def test_warm_stop_never_signals_a_process_a_stale_pid_file_names(private_runtime):
    folder = warm.runtime_dir()
    bystander = subprocess.Popen(["sleep", "60"])
    pid_file = folder / "0123456789abcdef0123.pid"
    pid_file.write_text(str(bystander.pid))
    try:
        done = subprocess.run([CLI, "warm", "--stop"], capture_output=True, text=True, timeout=60, check=True)
        time.sleep(0.3)
        assert bystander.poll() is None, "warm --stop killed a process that is not its server"
        assert not pid_file.exists()
        assert f"pid {bystander.pid} is not a warm server of this user; not signalled" in done.stderr
        assert "asked 0 warm server(s)" in done.stderr
    finally:
        bystander.kill()
        bystander.wait()


def test_a_stale_pid_file_does_not_list_as_a_server(private_runtime):
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # a live python, not a server
    try:
        (warm.runtime_dir() / "0123456789abcdef0123.pid").write_text(str(bystander.pid))
        assert warm.servers() == []
    finally:
        bystander.kill()
        bystander.wait()


# -- timeouts a model swallows -------------------------------------------------------------------

@pytest.mark.parametrize("warm_s", ["0", "5"], ids=["pool", "warm"])
def test_a_seed_that_swallows_its_alarm_is_killed_and_recorded_as_timed_out(workdir, private_runtime, monkeypatch,
                                                                             tmp_path, warm_s):
    monkeypatch.setenv("NETZBENCH_WARM_S", warm_s)
    (workdir / "nzs.json").write_text(json.dumps({"attempts": str(tmp_path / "attempts")}))
    # 15 s: room for seeds 0 and 2 to finish on a loaded machine (limits are armed before the data loads and
    # the imports; 5 s was too little with other training sharing the two cores)
    p = make_params(seeds=[0, 1, 2], train={"epochs": {"random_tsp": 2}}, exec={"workers": 2, "timeout_s": 15})
    t0 = time.monotonic()
    rec = train_cell("random_tsp", "sharedlab.extra:SwallowsEverything", as_settings(p), "t.json", role="candidate",
                     progress=False)
    elapsed = time.monotonic() - t0
    assert rec["seeds"]["1"]["status"] == "failed"
    assert rec["seeds"]["1"]["error"] == "timeout: stopped after exec.timeout_s = 15 s"
    assert rec["seeds"]["0"]["status"] == rec["seeds"]["2"]["status"] == "ok"
    attempts = (tmp_path / "attempts").read_text().split()
    assert len(attempts) == 1, "a timed-out seed was retried like a crash"
    assert _wait(lambda: _gone(int(attempts[0])), 10), "the stuck seed's process still runs"
    assert elapsed < 60, f"the stuck seed held the cell for {elapsed:.0f} s"


@pytest.mark.parametrize("warm_s", ["0", "5"], ids=["pool", "warm"])
def test_except_exception_no_longer_swallows_the_alarm(workdir, private_runtime, monkeypatch, warm_s):
    monkeypatch.setenv("NETZBENCH_WARM_S", warm_s)
    p = make_params(seeds=[1], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1, "timeout_s": 1})
    rec = train_cell("random_tsp", "sharedlab.extra:SwallowsExceptions", as_settings(p), "e.json", role="candidate",
                     progress=False)
    seed = rec["seeds"]["1"]
    assert seed["status"] == "failed" and seed["error"] == "timeout: stopped after exec.timeout_s = 1 s"
    assert "SeedTimeout" in seed["traceback"]  # stopped by its own alarm, inside the process, not killed


def test_seed_timeout_is_not_an_exception():
    assert not issubclass(worker.SeedTimeout, Exception) and issubclass(worker.SeedTimeout, BaseException)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0, -1, "soon", True])
def test_a_limit_that_is_no_number_is_an_error_not_no_limit(value):
    with pytest.raises(ValueError, match="exec.timeout_s must be null"):
        worker.apply_limits(value, None)
    with pytest.raises(ValueError, match="exec.max_rss_gb must be null"):
        worker.apply_limits(None, value)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer was armed on the way
    assert worker.kill_after(value) is None


def test_a_nan_timeout_that_got_past_params_fails_the_seed(workdir):
    from netzbench.run.execute import run_plans
    from netzbench.run.plan import plan_cell

    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    plan = plan_cell("random_tsp", "GCN", as_settings(p))
    plan.jobs[0] = replace(plan.jobs[0], timeout_s=math.nan)
    run_plans([plan], as_settings(p), progress=False)
    result = plan.results[0, 0]
    assert result["status"] == "failed" and "exec.timeout_s must be null (no limit) or a finite number" in result["error"]


# -- no files left in the temporary folder -------------------------------------------------------

def _left_in(folder: Path) -> list[str]:
    """What a run left in ``folder``: every file, and every folder but the (empty) cache folder that
    importing PyG makes torch create once per process (``torchinductor_<user>``)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if not (p.is_dir() and p.parent == folder and p.name.startswith("torchinductor_")))


def test_a_stage_leaves_nothing_in_the_temporary_folder(workdir, tmp_path):
    """PyG writes a generated module per seed; the stage's scratch folder takes it and goes."""
    import yaml

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (workdir / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["random_tsp"], "models": ["GCN"], "seeds": [0, 1],
        "train": {"epochs": {"random_tsp": 2}}, "exec": {"workers": 2}}))
    env = {**os.environ, "TMPDIR": str(tmp), "NETZBENCH_WARM_S": "0"}
    done = subprocess.run([CLI, "train", "random_tsp", "GCN", "--out", "g.json"], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _left_in(tmp) == []


def test_warm_children_leave_nothing_in_the_temporary_folder(workdir, private_runtime, monkeypatch, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))  # the server's (and so its children's) temporary folder
    monkeypatch.setenv("NETZBENCH_WARM_S", "5")
    p = make_params(seeds=[0, 1], train={"epochs": {"random_tsp": 2}}, exec={"workers": 2})
    rec = train_cell("random_tsp", "GCN", as_settings(p), "g.json", progress=False)
    assert _statuses(rec) == {"0": "ok", "1": "ok"} and warm.servers()
    assert _left_in(tmp) == []
    mine = f"{runtime.SCRATCH_PREFIX}{os.getpid()}-"
    assert not [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(mine)]


@needs_root
def test_scratch_folders_of_dead_stages_are_removed_and_no_others(shared_tmp):
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        orphan = shared_tmp / f"{runtime.SCRATCH_PREFIX}{dead.pid}-abc"
        live = shared_tmp / f"{runtime.SCRATCH_PREFIX}{alive.pid}-abc"
        others = shared_tmp / f"{runtime.SCRATCH_PREFIX}{dead.pid}-nobody"
        for folder in (orphan, live):
            folder.mkdir()
            (folder / "torch_geometric_propagate_x.py").write_text("")
        assert os.waitpid(as_nobody(others.mkdir), 0)[1] == 0
        with runtime.scratch_folder() as scratch:
            assert Path(scratch).parent == shared_tmp and Path(scratch).is_dir()
        assert not orphan.exists() and live.exists() and others.exists()
        assert not Path(scratch).exists()
    finally:
        alive.kill()
        alive.wait()


# -- the wire format -----------------------------------------------------------------------------

def test_results_cross_the_wire_exactly():
    negative_nan = struct.unpack("!d", bytes.fromhex("fff8000000000000"))[0]
    payload_nan = struct.unpack("!d", bytes.fromhex("7ff0000000000001"))[0]
    result = {"status": "ok", "epochs": 3, "num_params": 2**70, "small": -2**63, "flag": True, "none": None,
              "history": {"loss": [0.1, math.nan, negative_nan, payload_nan, math.inf, -math.inf, -0.0, 0.0,
                                   5e-324, 1.7976931348623157e308, 1 / 3]},
              "text": "ünïcode \ud800 \u0000nan", "nested": [[[]], {}]}
    assert same_bits(wire.decode(wire.encode(result)), result)
    left, right = socket.socketpair()
    with left, right:
        wire.send(left, ["result", result])
        assert same_bits(wire.recv(right), ["result", result])


@pytest.mark.parametrize("value, where", [((1, 2), "$.a"), ({1: "x"}, "$.a"), (object(), "$.a"), ({1.5}, "$.a"),
                                          ({wire.NAN_TAG: "7ff8000000000000"}, "$.a"), ("huge int", "$")],
                         ids=["tuple", "int key", "object", "set", "tag", "huge int"])
def test_what_json_would_change_is_refused(value, where):
    if value == "huge int":
        value = 10**5000  # JSON (Python's int-to-text limit) would refuse to write it
    with pytest.raises(wire.Unencodable) as info:
        wire.encode({"a": value})
    assert str(info.value).startswith(where)


def test_frames_that_are_too_large_or_not_json_are_refused():
    left, right = socket.socketpair()
    with left, right:
        left.sendall(struct.pack("!Q", 10**9))
        with pytest.raises(wire.ProtocolError, match="at most 4096"):
            wire.recv(right, limit=4096)
    for junk in (pickle.dumps({"a": 1}), b"\xff\xfe", b'{"\\u0000nan": 5}'):
        with pytest.raises(wire.ProtocolError):
            wire.decode(junk)
