"""The named contracts: a seed job (:class:`Job`) and the run record (:class:`RunRecord`).

A job must reach a worker unchanged by every carrier (pickle, the warm server's JSON), and
planning it must not move a per-seed key; a record must come back from its dict exactly, and
be refused, naming the field, when it breaks the schema.
"""

import dataclasses
import json
import pickle

import pytest

from netzbench.catalog.data import fetch_task
from netzbench.errors import RecordError
from netzbench.identity import seed_key
from netzbench.records import ABSENT, RunRecord, read_record, write_record
from netzbench.run import wire
from netzbench.run.execute import train_cell
from netzbench.run.job import WIRE_FIELDS, Job
from netzbench.run.plan import plan_cell

from helpers import as_settings, make_params

SEARCH = {"space": {"lr": [0.01, 0.05]}}


@pytest.fixture(scope="module")
def data_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    fetch_task("karate", as_settings(make_params(tasks=["karate"])), root)
    return root


def _plan(data_root, **over):
    return plan_cell("karate", "GCN", as_settings(make_params(tasks=["karate"], seeds=[0, 1], **over)), data_root=data_root,
                     quiet=True)


# -- Job ---------------------------------------------------------------------------------------

def test_a_job_survives_pickle_and_the_warm_wire(data_root):
    job = _plan(data_root, search=SEARCH).jobs[-1].placed(3, "/tmp/scratch")
    assert pickle.loads(pickle.dumps(job)) == job
    back = Job.from_wire(wire.decode(wire.encode(job.to_wire())))
    assert back == job and back.spec["hp"]["lr"] == 0.05 and back.trial == 1
    assert (back.job_index, back.tmp_dir) == (3, "/tmp/scratch")


def test_the_warm_server_still_reads_a_job_of_the_plain_dict_era(data_root):
    """A stage started before the change sends the dict plan_cell and the pool used to build."""
    job = _plan(data_root).jobs[0]
    old = {"data_dir": job.data_dir, "meta": job.meta, "cwd": job.cwd, "sys_path": job.sys_path,
           "threads": job.threads, "device": job.device, "timeout_s": job.timeout_s, "max_rss_gb": job.max_rss_gb,
           "arithmetic": job.arithmetic, "spec": job.spec, "candidate": job.trial, "plan": 2, "job_index": 5,
           "tmp_dir": "/tmp/s"}
    assert Job.from_wire(wire.decode(wire.encode(old))) == dataclasses.replace(job, plan=2).placed(5, "/tmp/s")


def test_what_only_a_pickle_carries_never_crosses_the_wire(data_root):
    job = _plan(data_root).jobs[0]
    assert "model_spec" not in WIRE_FIELDS and "data_bytes" not in WIRE_FIELDS
    for extra in ({"model_spec": object()}, {"data_bytes": b"npz"}):
        with pytest.raises(wire.Unencodable, match=next(iter(extra))):
            dataclasses.replace(job, **extra).to_wire()
    with pytest.raises(wire.Unencodable, match="pair"):  # a tuple in the spec is refused by the encoder
        wire.encode(dataclasses.replace(job, spec={**job.spec, "model_args": {"pair": (1, 2)}}).to_wire())


@pytest.mark.parametrize("change", [lambda m: m.update(model_spec=None), lambda m: m.update(surprise=1),
                                    lambda m: m.pop("spec")],
                         ids=["local-only field", "unknown field", "missing field"])
def test_a_frame_that_is_not_a_job_is_refused(data_root, change):
    message = _plan(data_root).jobs[0].to_wire()
    change(message)
    with pytest.raises(wire.ProtocolError, match="not a job"):
        Job.from_wire(message)
    with pytest.raises(wire.ProtocolError, match="JSON object"):
        Job.from_wire([message])


def test_placing_a_job_copies_it(data_root):
    job = _plan(data_root).jobs[0]
    placed = job.placed(4, "/tmp/x")
    assert (job.job_index, job.tmp_dir) == (None, None) and (placed.job_index, placed.tmp_dir) == (4, "/tmp/x")
    assert placed.placed(5).tmp_dir == "/tmp/x"  # placed again (the in-process executor): the folder stays
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.job_index = 1


def test_a_job_spec_is_exactly_what_its_seed_key_hashes(data_root):
    plan = _plan(data_root, search=SEARCH)
    rec = plan.record
    assert len(plan.jobs) == 4 and sorted((j.spec["seed"], j.trial) for j in plan.jobs) == sorted(plan.keys)
    for job in plan.jobs:
        extra = {} if rec["arithmetic"] == "native" else {"arithmetic": rec["arithmetic"]}
        key = seed_key(**job.spec, data=rec["data_hash"], code=rec["code_version"], threads=rec["threads"], **extra)
        assert plan.keys[job.spec["seed"], job.trial] == key


def test_where_a_job_runs_from_does_not_move_its_key(data_root, tmp_path, monkeypatch):
    here = _plan(data_root)
    monkeypatch.chdir(tmp_path)
    there = _plan(data_root)
    assert {j.cwd for j in here.jobs} != {j.cwd for j in there.jobs}
    assert here.keys == there.keys and [j.spec for j in here.jobs] == [j.spec for j in there.jobs]
    other = _plan(data_root, exec={"threads": 2})
    assert set(other.keys.values()).isdisjoint(here.keys.values())  # a field the key hashes does move it


# -- RunRecord ---------------------------------------------------------------------------------

def test_a_decided_record_keeps_its_fields_and_their_order(data_root):
    plan = plan_cell("karate", "GIN", as_settings(make_params(tasks=["karate"])), data_root=data_root, quiet=True)
    record = plan.finish()
    assert plan.outcome == "incompatible" and record.status == "incompatible"
    d = record.to_dict()
    assert list(d) == [*plan.record, "seeds", "status", "reason"]
    assert "card" not in d and record.card is ABSENT and not record.card  # absent, not null
    assert RunRecord.from_dict(d) == record and RunRecord.from_dict(d).to_dict() == d


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(threads="two"), "at threads: 'two' is not of type 'integer'"),
    (lambda d: d.update(direction="sideways"), "at direction"),
    (lambda d: d.update(seeds={"zero": {"status": "ok"}}), "at seeds"),
    (lambda d: d.pop("task"), "'task' is a required property"),
])
def test_an_invalid_record_is_refused_naming_the_field(data_root, change, field):
    d = plan_cell("karate", "GIN", as_settings(make_params(tasks=["karate"])), data_root=data_root, quiet=True).finish().to_dict()
    change(d)
    with pytest.raises(RecordError, match=field) as info:
        RunRecord.from_dict(d, "x.json")
    assert str(info.value).startswith("x.json: not a valid run record")


def test_a_placeholder_is_not_a_run_record():
    with pytest.raises(RecordError, match="placeholder"):
        RunRecord.from_dict({"status": "no_candidate", "task": "karate"})


def test_fields_this_version_does_not_name_come_back_as_they_were(data_root, tmp_path):
    d = plan_cell("karate", "GIN", as_settings(make_params(tasks=["karate"])), data_root=data_root, quiet=True).finish().to_dict()
    d["from_the_future"] = {"x": 1}
    record = RunRecord.from_dict(d)
    assert record.extra == {"from_the_future": {"x": 1}} and record.to_dict() == d
    write_record(tmp_path / "r.json", record)
    assert read_record(tmp_path / "r.json") == d


def test_a_trained_record_round_trips_and_is_written_the_same_either_way(data_root, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = make_params(tasks=["karate"], seeds=[0, 1], exec={"executor": "inprocess", "arithmetic": "native"})
    returned = train_cell("karate", "GCN", as_settings(p), "a.json", data_root=data_root, progress=False)
    written = json.loads((tmp_path / "a.json").read_text())
    assert written["status"] == "ok" and RunRecord.from_dict(written).to_dict() == written
    assert read_record("a.json") == written
    write_record("b.json", RunRecord.from_dict(returned))  # the type and its dict write the same bytes
    write_record("c.json", returned)
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "c.json").read_bytes()
    assert json.loads((tmp_path / "b.json").read_text())["seeds"] == written["seeds"]


def test_the_record_says_how_the_cell_batched(data_root):
    """REPORT.md's training line reads the batch size from the records (issue 27), so each record has it."""
    from netzbench.training.graph_level import BATCH_SIZE

    node = _plan(data_root).record
    assert "batch_size" in node and node["batch_size"] is None  # full batch
    fetch_task("synthetic_triangles", as_settings(make_params(tasks=["synthetic_triangles"])), data_root)
    graph = plan_cell("synthetic_triangles", "GIN", as_settings(make_params(tasks=["synthetic_triangles"], seeds=[0])),
                      data_root=data_root, quiet=True)
    assert graph.record["family"] == "graph_reg" and graph.record["batch_size"] == BATCH_SIZE["graph_reg"]
