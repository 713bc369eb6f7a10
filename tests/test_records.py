"""The run record: one module reads (validated, file named in every error) and writes (atomically) it."""

import json

import pytest

from netzbench.errors import RecordError
from netzbench.records import cell_status, read_record, seed_history, validate_record, write_record
from netzbench.report import BenchmarkReport


def _record(**over):
    rec = {"schema_version": 1, "task": "karate", "family": "node_cls", "category": "social",
           "task_spec": {"family": "node_cls", "split": "stratified_per_seed_50_25_25"}, "model": "GCN",
           "model_ref": "GCN", "headline_metric": "test_acc", "direction": "higher",
           "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 2, "eval_every": 1},
           "config_hash": "c", "data_hash": "d", "code_version": "v", "threads": 1, "software": {}, "status": "ok",
           "seeds": {"0": {"status": "ok", "history": {"test_acc": [0.5, float("nan")], "val_acc": [0.4, 0.6]},
                           "epochs": [1, 2], "seconds": 1.0, "num_params": 10, "peak_rss_mb": 1.0}}}
    rec.update(over)
    return rec


def test_round_trip_nan_as_null(tmp_path):
    path = tmp_path / "runs" / "karate" / "GCN.json"
    write_record(path, _record())
    assert json.loads(path.read_text())["seeds"]["0"]["history"]["test_acc"] == [0.5, None]
    back = read_record(path)
    h = seed_history(back["seeds"]["0"])
    assert h["test_acc"][0] == 0.5 and h["test_acc"][1] != h["test_acc"][1]  # NaN again
    assert [p.name for p in path.parent.iterdir()] == ["GCN.json"]  # no temporary file left behind


@pytest.mark.parametrize("content, message", [
    (None, "no run record here"),
    ("{\"task\": ", "not JSON"),
    (json.dumps({"task": "karate"}), "not a valid run record"),
    (json.dumps(_record(direction="sideways")), "direction"),
])
def test_every_read_error_names_the_file(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(RecordError, match=message) as info:
        read_record(path)
    assert str(path) in str(info.value)


def test_missing_ok_and_placeholders(tmp_path):
    assert read_record(tmp_path / "none.json", missing_ok=True) is None
    write_record(tmp_path / "c.json", {"status": "no_candidate", "task": "karate"})
    assert read_record(tmp_path / "c.json")["status"] == "no_candidate"
    with pytest.raises(RecordError, match="needs a `task`"):
        validate_record({"status": "in_roster"}, "x.json")


def test_write_refuses_an_invalid_record(tmp_path):
    with pytest.raises(RecordError, match="seeds"):
        write_record(tmp_path / "r.json", _record(seeds={"zero": {"status": "ok"}}))
    assert not (tmp_path / "r.json").exists()


def test_cell_status():
    assert cell_status(["ok", "ok"]) == "ok"
    assert cell_status([{"status": "ok"}, {"status": "failed"}]) == "partial"
    assert cell_status([]) == "missing"
    assert cell_status(["incompatible"]) == "incompatible"


def test_the_report_reads_through_the_same_door(tmp_path):
    runs = tmp_path / "runs"
    write_record(runs / "karate" / "GCN.json", _record())
    (runs / "karate" / "GAT.json").write_text("{ torn")
    with pytest.raises(RecordError, match="GAT.json"):
        BenchmarkReport.from_runs(runs, tasks=["karate"], models=["GCN", "GAT"], params=None)
    (runs / "karate" / "GAT.json").unlink()
    rep = BenchmarkReport.from_runs(runs, tasks=["karate"], models=["GCN", "GAT"], params=None)
    assert rep.cell_status("karate", "GAT") == "missing" and rep.cell_status("karate", "GCN") == "ok"
    assert rep.task_info["karate"].category == "social"


BROKEN = [
    lambda r: r["seeds"]["0"]["history"]["val_acc"].__setitem__(1, "0.6"),     # a string in a series
    lambda r: r["seeds"]["0"]["history"]["val_acc"].insert(0, [0.1]),          # a list in a series
    lambda r: r["seeds"]["0"]["history"]["test_acc"].append(True),             # a boolean is no number
    lambda r: r["seeds"]["0"]["epochs"].__setitem__(0, 0),                     # below the minimum
    lambda r: r["hyperparameters"].__setitem__("epochs", "2"),
    lambda r: r["seeds"]["0"]["history"].__setitem__("val_acc", "0.4"),        # a series that is no list
]


@pytest.mark.parametrize("damage", [*BROKEN, None])
def test_the_fast_item_check_reports_what_jsonschema_reports(damage):
    """History series skip jsonschema's descent per value (records._plain_items): the verdict and the
    error chosen are those of the stock validator, for a broken value anywhere (None: a valid record,
    a null in a series)."""
    import jsonschema

    from netzbench.records import _validator, schema

    rec = _record()
    rec["seeds"]["0"]["history"]["test_acc"][1] = None
    if damage is not None:
        damage(rec)
    stock = jsonschema.validators.validator_for(schema())(schema())
    ours = _validator(None)
    assert type(ours) is not type(stock)  # the extended validator is the one in use

    def verdict(v):
        errors = list(v.iter_errors(rec))
        best = jsonschema.exceptions.best_match(iter(errors))
        return sorted((list(e.absolute_path), e.message) for e in errors), \
            None if best is None else (list(best.absolute_path), best.message)

    assert verdict(ours) == verdict(stock)
    assert (verdict(ours)[1] is None) == (damage is None)


def _mutations(node, path=()):
    """``(path, how, value)`` for every key and the first two items of every list under ``node``: removed,
    or replaced by a value of each JSON type (and an out-of-range number)."""
    if isinstance(node, dict):
        items = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node[:2]))
    else:
        return
    for key, child in items:
        if isinstance(node, dict):
            yield (*path, key), "delete", None
        for value in (None, "x", "12\n", True, -1, 1.5, 10**30, [], {}, {"extra": 1}):
            yield (*path, key), "set", value
        yield from _mutations(child, (*path, key))


def _mutated(record, path, how, value):
    out = json.loads(json.dumps(record))
    node = out
    for key in path[:-1]:
        node = node[key]
    if how == "delete":
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def _site_record(tmp_path):
    from site_records import write_records

    write_records(tmp_path)
    return [json.loads(p.read_text()) for p in sorted((tmp_path / "metrics").rglob("*.json"))]


def test_the_fast_validator_never_passes_what_jsonschema_refuses(tmp_path):
    """records._check trusts jsonschema_rs only when it says "valid" (the reference, jsonschema, decides
    every other case with its own message). Every single-value damage of a record and of a seed entry
    (each key removed, each value replaced by each JSON type) that jsonschema refuses is refused by the
    fast validator too, and every record jsonschema passes passes it: the fast path is in use, and what
    it lets through is what the reference lets through."""
    import jsonschema

    from netzbench.records import _fast_pass, _nan_to_none, _validator

    records = [_nan_to_none(_record())]  # as write_record checks it (a NaN it cannot take: the reference decides)
    records += [r for r in _site_record(tmp_path) if r.get("status") not in ("no_candidate", "in_roster")]
    assert len(records) > 5
    checked = refused = 0
    for rec in records[:2]:  # the hand-made one and a site record (each key of either damaged)
        cases = [(rec, None)] + [(_mutated(rec, *m), None) for m in _mutations(rec)]
        seed = next(iter(rec["seeds"].values()))
        cases += [(seed, "seed")] + [(_mutated(seed, *m), "seed") for m in _mutations(seed)]
        for instance, definition in cases:
            valid = jsonschema.exceptions.best_match(_validator(definition).iter_errors(instance)) is None
            fast = _fast_pass(instance, definition)
            assert not fast or valid, (definition, json.dumps(instance)[:300])
            if valid:  # it may refuse more only where its regex `$` is stricter ("12\n" as a seed key)
                assert fast or "12\n" in json.dumps(instance), (definition, json.dumps(instance)[:300])
            checked += 1
            refused += not valid
    assert checked > 500 and refused > 150
    for rec in records:
        assert _fast_pass(rec, None)
    assert not _fast_pass(_record(), None) and _validator(None).is_valid(_record())  # a NaN: jsonschema decides
