"""The warm worker server: seeds forked from one process that imported torch once, across stages.

Every test here turns the server on (the suite's default is off, so that each test's own cache
directory does not leave a server behind), in a runtime folder of its own, and stops the servers it
started.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from netzbench.run import warm, wire
from netzbench.run.execute import train_cell

from helpers import as_settings, make_params, misbehaving_workdir

def _wait(condition, timeout=30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its parent) counts as gone
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def private_runtime(monkeypatch):
    """A runtime folder of this test's own (``$XDG_RUNTIME_DIR``, short for the socket path): the
    servers it starts are its alone, so tests running at once in other processes never stop them."""
    folder = tempfile.mkdtemp(prefix="nzw-", dir="/tmp")
    monkeypatch.setenv("XDG_RUNTIME_DIR", folder)
    yield Path(folder)
    for _, pid in warm.servers():
        os.kill(pid, signal.SIGTERM)
        _wait(lambda: not _alive(pid), 10)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def warm_on(monkeypatch, private_runtime):
    """Servers on (5 s idle) for this test; every server it started is stopped afterwards."""
    monkeypatch.setenv("NETZBENCH_WARM_S", "5")
    yield


@pytest.fixture
def workdir(tmp_path, monkeypatch, private_runtime):
    return misbehaving_workdir(tmp_path, monkeypatch, "warmlab")


def _histories(record: dict) -> dict:
    return {seed: r["history"] for seed, r in record["seeds"].items()}


def test_warm_children_train_what_the_pool_trains(workdir, warm_on, tmp_path_factory, monkeypatch):
    p = make_params(seeds=[0, 1, 2], train={"epochs": {"random_tsp": 6}}, exec={"workers": 2})
    warm_rec = train_cell("random_tsp", "GCN", as_settings(p), "w.json", progress=False)
    assert warm.servers(), "the cell did not start a warm server"
    monkeypatch.setenv("NETZBENCH_WARM_S", "0")
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("pool-cache")))  # train again
    pool_rec = train_cell("random_tsp", "GCN", as_settings(p), "p.json", progress=False)
    assert not any(r.get("cached") for r in pool_rec["seeds"].values())
    assert all(r["status"] == "ok" for r in warm_rec["seeds"].values())
    assert _histories(warm_rec) == _histories(pool_rec)


def test_the_next_stage_reuses_the_server_and_another_environment_gets_its_own(workdir, warm_on, monkeypatch):
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    train_cell("random_tsp", "GCN", as_settings(p), "a.json", progress=False)
    fp = warm.fingerprint()
    first = dict(warm.servers())[fp]
    train_cell("random_tsp", "GIN", as_settings(p), "b.json", progress=False)
    assert dict(warm.servers())[fp] == first  # the same server forked GIN's seed
    monkeypatch.setenv("NETZBENCH_SOME_SETTING", "another value")  # a worker would see another environment
    train_cell("random_tsp", "GraphSAGE", as_settings(p), "c.json", progress=False)
    other = warm.fingerprint()
    assert other != fp and dict(warm.servers())[other] != first


def test_an_idle_server_leaves_and_tidies_up(workdir):
    sock = warm.ensure_server(2)
    pid = dict(warm.servers())[warm.fingerprint()]
    assert _wait(lambda: not _alive(pid)), "the server stayed past its idle time"
    assert not sock.exists() and not sock.with_suffix(".pid").exists()


def test_a_child_whose_client_is_gone_stops(workdir, warm_on):
    """A stage killed mid-seed: its child stops at the next epoch instead of training on."""
    from netzbench.run.arithmetic import configure as configure_arithmetic
    from netzbench.run.plan import plan_cell

    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 500}}, exec={"workers": 1})
    plan = plan_cell("random_tsp", "warmlab.models:SlowEpochs", as_settings(p), role="candidate")
    job = plan.jobs[0]
    configure_arithmetic(p["exec"]["arithmetic"])  # as run_plans does before it asks for a server
    conn, child, _ = warm.open_connection(warm.ensure_server(5))  # connected, secret sent, "started" received
    socket.send_fds(conn, [b"f"], [1, 2])
    wire.send(conn, job.to_wire())
    assert [wire.recv(conn)[0] for _ in range(2)] == ["limits", "epoch"]
    conn.close()
    assert _wait(lambda: not _alive(child)), "the child trained on without a client"


def test_progress_arrives_from_warm_children(workdir, warm_on, capsys):
    p = make_params(seeds=[0, 1], train={"epochs": {"random_tsp": 3}}, exec={"workers": 2})
    rec = train_cell("random_tsp", "warmlab.models:SlowEpochs", as_settings(p), "s.json", role="candidate",
                     progress=True)
    assert {r["status"] for r in rec["seeds"].values()} == {"ok"}
    assert "6/6" in capsys.readouterr().err


def test_what_a_seed_prints_reaches_the_stage(workdir, warm_on, capfd):
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    rec = train_cell("random_tsp", "warmlab.models:Chatty", as_settings(p), "h.json", role="candidate",
                     progress=False)
    assert rec["seeds"]["0"]["status"] == "ok"
    assert "a word from the model" in capfd.readouterr().err


def test_a_dying_child_is_retried_then_recorded_and_a_timeout_applies(workdir, warm_on):
    p = make_params(seeds=[0, 1, 2], train={"epochs": {"random_tsp": 3}}, exec={"workers": 2})
    rec = train_cell("random_tsp", "warmlab.models:CrashOnSeedOne", as_settings(p), "c.json", role="candidate",
                     progress=False)
    assert rec["seeds"]["1"]["status"] == "failed" and "died 3 time(s)" in rec["seeds"]["1"]["error"]
    assert rec["seeds"]["0"]["status"] == rec["seeds"]["2"]["status"] == "ok"
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 500}}, exec={"workers": 1, "timeout_s": 2})
    rec = train_cell("random_tsp", "warmlab.models:SlowEpochs", as_settings(p), "t.json", role="candidate",
                     progress=False)
    assert rec["seeds"]["0"]["status"] == "failed" and "timeout" in rec["seeds"]["0"]["error"]


def test_without_a_server_the_stage_starts_its_own_workers(workdir, warm_on, monkeypatch, capsys):
    def refuse():
        raise warm.WarmUnavailable("no private directory here")

    monkeypatch.setattr(warm, "runtime_dir", refuse)
    p = make_params(seeds=[0], train={"epochs": {"random_tsp": 2}}, exec={"workers": 1})
    rec = train_cell("random_tsp", "GCN", as_settings(p), "f.json", progress=False)
    assert rec["seeds"]["0"]["status"] == "ok"
    assert "no warm worker server (no private directory here)" in capsys.readouterr().err


def test_the_command_line_lists_and_stops_servers(workdir, warm_on, tmp_path, monkeypatch):
    """Each server is listed with the checkout it serves; --stop stops this checkout's, --stop --all the rest."""
    other = tmp_path / "other-checkout"
    other.mkdir()
    monkeypatch.chdir(other)
    warm.ensure_server(30)  # a server another checkout's stage started
    theirs = dict(warm.servers())[warm.fingerprint()]
    monkeypatch.chdir(workdir)
    warm.ensure_server(30)
    env = {**os.environ, "NETZBENCH_WARM_S": "30"}
    cli = str(Path(sys.executable).parent / "netzbench")
    listed = subprocess.run([cli, "warm"], capture_output=True, text=True, env=env, check=True).stdout
    pid = dict(warm.servers())[warm.fingerprint()]
    assert f"pid {pid}  {os.path.realpath(workdir)}  (this checkout" in listed  # pytest's sys.path is not the CLI's
    assert f"pid {theirs}  {os.path.realpath(other)}  (another checkout)" in listed
    stopped = subprocess.run([cli, "warm", "--stop"], capture_output=True, text=True, env=env, check=True)
    assert "asked 1 warm server(s) of this checkout" in stopped.stderr
    assert _wait(lambda: not _alive(pid)) and _alive(theirs)  # another checkout's server is left alone
    stopped = subprocess.run([cli, "warm", "--stop", "--all"], capture_output=True, text=True, env=env, check=True)
    assert "asked 1 warm server(s) of every checkout" in stopped.stderr
    assert _wait(lambda: not _alive(theirs))


@pytest.mark.parametrize("value, message", [(-1, "exec.warm_s"), ("soon", "exec.warm_s")])
def test_bad_warm_values(value, message):
    from netzbench.params import ParamsError

    with pytest.raises(ParamsError, match=message):
        make_params(exec={"warm_s": value})


def _execution(**values):
    from helpers import make_settings

    return make_settings(exec=values).execution


def test_a_bad_environment_value_is_named(monkeypatch):
    from netzbench.params import ParamsError

    monkeypatch.setenv("NETZBENCH_WARM_S", "a while")
    with pytest.raises(ParamsError, match="NETZBENCH_WARM_S"):
        warm.idle_seconds(_execution(warm_s=60))
    monkeypatch.delenv("NETZBENCH_WARM_S")
    assert warm.idle_seconds(_execution(warm_s=60)) == 60 and warm.idle_seconds(_execution(warm_s=0)) == 0
    assert warm.idle_seconds(_execution()) == warm.DEFAULT_IDLE_S  # params without the key


def test_separate_stage_processes_share_one_server(workdir, warm_on):
    """What consecutive `dvc repro` / `dvc exp run`s do: one `netzbench train` process after another, each a
    new Python."""
    import yaml

    (workdir / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["random_tsp"], "models": ["GCN", "GIN"], "seeds": [0, 1],
        "train": {"epochs": {"random_tsp": 2}}, "exec": {"workers": 2}}))
    cli = str(Path(sys.executable).parent / "netzbench")
    env = {**os.environ, "NETZBENCH_WARM_S": "10"}
    before = dict(warm.servers())
    pids = []
    for model in ("GCN", "GIN"):
        done = subprocess.run([cli, "train", "random_tsp", model, "--out", f"{model}.json"], cwd=workdir,
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "no warm worker server" not in done.stderr
        pids.append({fp: pid for fp, pid in warm.servers() if fp not in before})
    assert len(pids[0]) == 1 and pids[1] == pids[0]  # the second stage found the first one's server


def _started_at(pid: int) -> float:
    """Unix time at which process ``pid`` started, to 10 ms (Linux /proc: its start and the uptime now, both
    since boot; /proc/stat's boot time is whole seconds)."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    age = float(Path("/proc/uptime").read_text().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")
    return time.time() - age


def _candidate_pipeline(workdir) -> dict:
    """params.yaml of a one-task pipeline with a candidate never imported before; the stages' environment."""
    import yaml

    (workdir / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["random_tsp"], "models": ["GCN"], "seeds": [0], "model": "warmlab.models:Linear",
        "train": {"epochs": {"random_tsp": 2}}, "exec": {"workers": 1}}))
    return {**os.environ, "NETZBENCH_WARM_S": "15", "NETZBENCH_CACHE_DIR": str(workdir / "cache")}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process start times from /proc")
def test_a_train_stage_starts_the_server_while_it_imports_a_new_candidate(workdir, warm_on):
    """The candidate's import (torch, seconds) and the server's start overlap: the server process began
    before the candidate's facts were written, and it is the one the seeds used (one server: the
    early start asked for the fingerprint the pool asks for)."""
    env = _candidate_pipeline(workdir)
    cli = str(Path(sys.executable).parent / "netzbench")
    before = dict(warm.servers())
    done = subprocess.run([cli, "train", "--all"], cwd=workdir, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no warm worker server" not in done.stderr
    new = {fp: pid for fp, pid in warm.servers() if fp not in before and warm.kind_of(pid) == "seeds"}
    assert len(new) == 1, new
    (entry,) = (workdir / "cache" / "models").glob("*.json")
    assert _started_at(next(iter(new.values()))) < entry.stat().st_mtime
    assert json.loads((workdir / "metrics/candidate/random_tsp.json").read_text())["status"] == "ok"


def test_the_fetch_stage_prewarms_a_new_candidate_for_the_train_stage(workdir, warm_on):
    """`netzbench fetch --all` with a candidate never imported: a detached process starts the server, whose
    child learns the candidate's facts; the train stage finds both and starts no server of its own."""
    env = _candidate_pipeline(workdir)
    cli = str(Path(sys.executable).parent / "netzbench")
    before = dict(warm.servers())
    done = subprocess.run([cli, "fetch", "--all"], cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    entries = workdir / "cache" / "models"
    assert _wait(lambda: list(entries.glob("*.json")), 120), "the candidate's facts were not learned"
    (entry,) = entries.glob("*.json")
    assert json.loads(entry.read_text())["task_types"] == ["link_pred"]
    servers = {fp: pid for fp, pid in warm.servers() if fp not in before}
    assert len(servers) == 1
    done = subprocess.run([cli, "train", "--all"], cwd=workdir, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no warm worker server" not in done.stderr
    assert {fp: pid for fp, pid in warm.servers() if fp not in before} == servers  # the same server trained


def test_a_server_started_to_learn_a_model_learns_it_in_a_child(workdir, warm_on, monkeypatch, tmp_path):
    """The server imports no user module itself (its children must start as a forkserver's would): a child
    it forks imports the model and writes the facts; this process never imported it."""
    from netzbench import model_traits

    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    sys.modules.pop("warmlab.models", None)
    sock, started = warm.start_server(5, learn="warmlab.models:CrashOnSeedOne")
    assert started
    assert _wait(lambda: model_traits.answered("warmlab.models:CrashOnSeedOne"), 60)
    assert model_traits.remembered("warmlab.models:CrashOnSeedOne") and "warmlab.models" not in sys.modules
    assert warm.start_server(5, learn="warmlab.models:Linear") == (sock, False)  # running: nothing to start


