"""Fetching, checksums, safe extraction and deterministic processing."""

import dataclasses
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from netzbench.catalog import data as catdata
from netzbench.graphs import layout
from netzbench.paths import cache_root
from netzbench.catalog.fetch import (ChecksumMismatch, DatasetUnavailable, UnsafeArchive, obtain_raw,
                                     safe_extract, sha256_file)
from netzbench.catalog.table import DATASETS, TASKS, RawFile, Source, TaskSpec, get_task, UnknownTaskError

from helpers import as_settings, logged, make_params


def fetch(task, tmp_path, **params):
    return catdata.fetch_task(task, as_settings(make_params(**params)), tmp_path / "data")


def test_cora_from_mirror_matches_manifest_and_planetoid_split(tmp_path, mirror):
    meta = fetch("cora", tmp_path)
    assert meta["status"] == "ok"
    assert meta["counts"]["num_nodes"] == 2708
    assert meta["counts"]["num_edges"] == 10556 // 2  # manifest counts directed edges; we count pairs
    arrays = layout.task_arrays(tmp_path / "data" / "cora", 0)
    assert arrays["train_mask"].sum() == 140 and arrays["val_mask"].sum() == 500 and arrays["test_mask"].sum() == 1000
    assert arrays["x"].shape == (2708, 1433)
    assert set(meta["raw_sha256"]) == {f"ind.cora.{s}" for s in ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")}
    # where the bytes came from is logged outside the DVC output
    assert "mirror" not in json.dumps(meta)
    log = Path(cache_root()) / "logs" / "fetch.jsonl"
    assert "mirror:" in log.read_text()


def test_mutag_collection(tmp_path, mirror):
    meta = fetch("mutag", tmp_path)
    assert meta["counts"]["num_graphs"] == 188
    arrays = layout.task_arrays(tmp_path / "data" / "mutag", 0)
    assert len(arrays["node_ptr"]) == 189 and arrays["node_ptr"][-1] == arrays["x"].shape[0]
    assert sorted(np.unique(arrays["y"])) == [0, 1]


def test_processing_is_byte_identical_from_mirror_and_from_url(tmp_path, mirror, monkeypatch):
    """Same raw bytes -> same data/<task>/, whatever the source (file:// exercises the real downloader)."""
    fetch("cora", tmp_path)
    first = layout.data_hash(tmp_path / "data" / "cora")
    cora = DATASETS["cora"]
    src = cora.sources[0]
    url_src = dataclasses.replace(src, url=(mirror / "cora" / "raw").as_uri() + "/{file}",
                                  files=tuple(dataclasses.replace(f, mirror_path=None) for f in src.files))
    monkeypatch.setitem(DATASETS, "cora", dataclasses.replace(cora, sources=(url_src,)))
    monkeypatch.delenv("NETZBENCH_MIRROR")
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "other-cache"))
    meta = catdata.fetch_task("cora", as_settings(make_params()), tmp_path / "data2")
    assert meta["status"] == "ok"
    assert layout.data_hash(tmp_path / "data2" / "cora") == first
    assert (tmp_path / "data2" / "cora" / "graph.npz").read_bytes() == (tmp_path / "data" / "cora" / "graph.npz").read_bytes()
    log = (tmp_path / "other-cache" / "logs" / "fetch.jsonl").read_text()
    assert "url:file://" in log


def _fake_dataset(monkeypatch, tmp_path, sha: str | None, content: bytes = b"hello"):
    mirror = tmp_path / "fake-mirror"
    (mirror / "fake").mkdir(parents=True)
    (mirror / "fake" / "edges.txt").write_bytes(content)
    ds = dataclasses.replace(DATASETS["cora"], id="fake", mirror="fake",
                             sources=(Source("files", "https://example.invalid/{file}", "planetoid",
                                             (RawFile("edges.txt", "edges.txt", sha),)),))
    monkeypatch.setitem(DATASETS, "fake", ds)
    monkeypatch.setitem(TASKS, "fake", TaskSpec("fake", "fake", "node_cls", 3, "planetoid", "test"))
    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    return ds, mirror


def test_checksum_mismatch_fails_loudly_and_leaves_nothing(tmp_path, monkeypatch):
    ds, mirror = _fake_dataset(monkeypatch, tmp_path, sha="0" * 64)
    with pytest.raises(ChecksumMismatch) as err:
        fetch("fake", tmp_path)
    msg = str(err.value)
    assert "edges.txt" in msg and "0" * 64 in msg and sha256_file(mirror / "fake" / "edges.txt") in msg
    assert not (tmp_path / "data" / "fake").exists()
    assert not list((tmp_path / "data").glob(".fake*"))  # no half-written output
    raw_dir = Path(cache_root()) / "downloads" / "fake" / "raw"
    assert not any(raw_dir.iterdir())  # the bad file was not kept
    # a mismatch fails whatever on_missing says
    with pytest.raises(ChecksumMismatch):
        fetch("fake", tmp_path, data={"on_missing": "skip"})


def test_unavailable_is_recorded_with_skip_and_fatal_with_fail(tmp_path, monkeypatch):
    ds, mirror = _fake_dataset(monkeypatch, tmp_path, sha=None)
    (mirror / "fake" / "edges.txt").unlink()
    meta = fetch("fake", tmp_path, data={"on_missing": "skip"})
    assert meta["status"] == "unavailable" and "edges.txt" in meta["reason"]
    assert json.loads((tmp_path / "data" / "fake" / "meta.json").read_text())["status"] == "unavailable"
    with pytest.raises(DatasetUnavailable) as err:
        fetch("fake", tmp_path, data={"on_missing": "fail"})
    assert "fake" in str(err.value) and "NETZBENCH_MIRROR" in str(err.value)
    with pytest.raises(layout.TaskUnavailable):
        layout.task_arrays(tmp_path / "data" / "fake", 0)


def test_unreachable_url_is_unavailable_naming_the_url(tmp_path, monkeypatch):
    ds, _ = _fake_dataset(monkeypatch, tmp_path, sha=None)
    monkeypatch.delenv("NETZBENCH_MIRROR")
    bad = dataclasses.replace(ds, sources=(dataclasses.replace(ds.sources[0], url=(tmp_path / "nowhere").as_uri() + "/{file}"),))
    with pytest.raises(DatasetUnavailable) as err:
        obtain_raw(bad, None, tmp_path / "dl")
    first = ds.sources[0].files[0].name
    assert (tmp_path / "nowhere").as_uri() + "/" + first in str(err.value)  # the file that failed, by its address
    assert "{file}" not in str(err.value)  # not the source's template (it reached REPORT.md once)


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.mark.parametrize("evil", ["../escape.txt", "/abs/escape.txt", "a/../../escape.txt"])
def test_zip_slip_is_refused_and_nothing_is_written(tmp_path, evil):
    archive = _zip(tmp_path / "evil.zip", {"ok.txt": b"fine", evil: b"pwned"})
    target = tmp_path / "out"
    with pytest.raises(UnsafeArchive, match="outside"):
        safe_extract(archive, target)
    assert not (tmp_path / "escape.txt").exists()
    assert not (target / "ok.txt").exists()


def test_tar_with_link_is_refused(tmp_path):
    import tarfile

    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tf:
        info = tarfile.TarInfo("link")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        tf.addfile(info)
    with pytest.raises(UnsafeArchive, match="link"):
        safe_extract(archive, tmp_path / "out")


def test_archive_size_bound_and_corrupt_archive(tmp_path):
    archive = _zip(tmp_path / "big.zip", {"a.txt": b"x" * 1000})
    with pytest.raises(UnsafeArchive, match="more than"):
        safe_extract(archive, tmp_path / "out", max_bytes=100)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(archive.read_bytes()[:60])
    with pytest.raises(UnsafeArchive):
        safe_extract(broken, tmp_path / "out2")
    ok = safe_extract(archive, tmp_path / "out3")
    assert [p.name for p in ok] == ["a.txt"]


def test_synthetic_instances_are_a_function_of_the_seed(tmp_path):
    meta = fetch("random_tsp", tmp_path)
    assert meta["synthetic"] and meta["generator_params"]["num_nodes"] == 200
    d = tmp_path / "data" / "random_tsp"
    a0 = layout.task_arrays(d, 0)
    assert np.array_equal(a0["edge_index"], layout.task_arrays(d, 0)["edge_index"])
    a1 = layout.task_arrays(d, 1)
    assert not np.array_equal(a0["x"], a1["x"])
    # the tour is a Hamiltonian cycle: every city has degree >= 2 in the graph
    deg = np.bincount(a0["edge_index"].reshape(-1), minlength=200)
    assert deg.min() >= 2
    fetch("ising_lattice", tmp_path)
    ising = layout.task_arrays(tmp_path / "data" / "ising_lattice", 3)
    assert ising["edge_index"].shape[1] == 2 * 20 * 20  # periodic square lattice
    assert set(np.unique(ising["x"])) <= {-1.0, 1.0}


def test_karate_is_builtin(tmp_path):
    meta = fetch("karate", tmp_path)
    assert meta["counts"] == {"num_nodes": 34, "num_edges": 78, "num_features": 34, "num_classes": 4}
    arrays = layout.task_arrays(tmp_path / "data" / "karate", 0)
    assert "train_mask" not in arrays  # replaced by the per-seed stratified split


def test_karate_is_the_graph_pyg_ships_without_importing_it():
    """The arrays are PyG's KarateClub's, bit for bit (its training mask aside), and making them imports no
    torch_geometric (a fetch stage of karate alone does not pay PyG's import)."""
    from torch_geometric.datasets import KarateClub

    from netzbench.catalog.loaders import karate
    from netzbench.graphs.convert import single_graph_arrays

    ours, counts = karate()
    theirs = single_graph_arrays(KarateClub()[0])
    theirs["y"] = theirs["y"].astype(np.int64)
    assert sorted(ours) == sorted(k for k in theirs if not k.endswith("mask"))
    for key, value in ours.items():
        assert value.dtype == theirs[key].dtype and np.array_equal(value, theirs[key]), key
    assert counts == {"num_nodes": 34, "num_edges": 78, "num_features": 34, "num_classes": 4}
    code = "import sys; from netzbench.catalog.loaders import karate; karate(); print('torch_geometric' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_unknown_task_lists_choices():
    with pytest.raises(UnknownTaskError) as err:
        get_task("corra")
    assert "cora" in str(err.value)


def test_cached_download_is_revalidated_and_a_changed_upstream_is_caught(tmp_path, monkeypatch):
    """A loopback HTTP server plays the upstream: 304 keeps the cache, changed bytes fail their checksum."""
    import functools
    import http.server
    import threading

    from netzbench.catalog.fetch import ChecksumMismatch, obtain_raw, upstream_state

    site = tmp_path / "site"
    site.mkdir()
    (site / "edges.txt").write_bytes(b"0 1\n1 2\n")
    good = sha256_file(site / "edges.txt")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{{file}}"
        ds = dataclasses.replace(DATASETS["cora"], id="served", mirror=None,
                                 sources=(Source("files", url, "edgelist", (RawFile("edges.txt", None, good),)),))
        first = obtain_raw(ds, None, tmp_path / "dl")
        assert first.origin.startswith("url:") and first.sha256["edges.txt"] == good
        again = obtain_raw(ds, None, tmp_path / "dl")
        assert again.origin == "cache (unchanged)"  # HTTP 304: nothing downloaded
        import os
        import time

        (site / "edges.txt").write_bytes(b"0 1\n1 3\n")  # upstream changed
        future = time.time() + 10
        os.utime(site / "edges.txt", (future, future))
        assert upstream_state(ds.sources[0], tmp_path / "dl" / "served" / "raw") == "changed"
        with pytest.raises(ChecksumMismatch, match="edges.txt"):
            obtain_raw(ds, None, tmp_path / "dl")
        # the verified cached copy was not overwritten by the bad bytes
        assert sha256_file(tmp_path / "dl" / "served" / "raw" / "edges.txt") == good
    finally:
        server.shutdown()


def test_archive_source_with_a_file_published_on_its_own(tmp_path):
    """ZINC-style: the archive holds some raw files, another one has its own URL."""
    from netzbench.catalog.fetch import obtain_raw

    site = tmp_path / "site"
    site.mkdir()
    _zip(site / "bundle.zip", {"inner/a.txt": b"alpha"})
    (site / "b.index").write_bytes(b"1\n2\n")
    files = (RawFile("a.txt"), RawFile("b.index", url=(site / "b.index").as_uri()))
    ds = dataclasses.replace(DATASETS["cora"], id="bundled", mirror=None,
                             sources=(Source("zip", (site / "bundle.zip").as_uri(), "test", files),))
    bundle = obtain_raw(ds, None, tmp_path / "dl")
    assert (bundle.raw_dir / "a.txt").read_bytes() == b"alpha"
    assert (bundle.raw_dir / "b.index").read_bytes() == b"1\n2\n"


def test_a_change_of_source_alone_changes_nothing(tmp_path, mirror, monkeypatch):
    """A mirror that lacks a dataset (or no network) never deletes or degrades verified data: the
    verified raw files in the download cache are used, and without them the earlier data/<task>/ stays."""
    fetch("cora", tmp_path)
    graph = (tmp_path / "data" / "cora" / "graph.npz").read_bytes()
    meta = (tmp_path / "data" / "cora" / "meta.json").read_bytes()
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    monkeypatch.setenv("NETZBENCH_MIRROR", str(empty))
    again = catdata.fetch_task("cora", as_settings(make_params()), tmp_path / "data")
    assert again["status"] == "ok"
    assert (tmp_path / "data" / "cora" / "graph.npz").read_bytes() == graph
    assert (tmp_path / "data" / "cora" / "meta.json").read_bytes() == meta
    # a fresh data folder is rebuilt from the verified download cache, byte for byte
    fresh = catdata.fetch_task("cora", as_settings(make_params()), tmp_path / "data2")
    assert fresh["status"] == "ok" and (tmp_path / "data2" / "cora" / "graph.npz").read_bytes() == graph
    assert "cache (verified; no source reachable)" in (Path(cache_root()) / "logs" / "fetch.jsonl").read_text()
    # no download cache either: the earlier data/<task>/ is kept as it is, said loudly
    import shutil

    shutil.rmtree(Path(cache_root()) / "downloads" / "cora")
    with logged() as said:
        kept = catdata.fetch_task("cora", as_settings(make_params()), tmp_path / "data")
    assert kept["status"] == "ok" and (tmp_path / "data" / "cora" / "graph.npz").read_bytes() == graph
    assert any(m.startswith("WARNING: cora: no source") and "kept the verified" in m for m in said)
    # and only with no verified copy anywhere is the task unavailable
    gone = catdata.fetch_task("cora", as_settings(make_params()), tmp_path / "data3")
    assert gone["status"] == "unavailable"


def test_unverifiable_cached_files_are_not_trusted_as_a_fallback(tmp_path, monkeypatch):
    """A cached raw file without a catalogue hash counts as verified only with the hash recorded when it
    arrived from a source; a tampered one is not used."""
    ds, mirror = _fake_dataset(monkeypatch, tmp_path, sha=None)
    first = obtain_raw(ds, mirror, tmp_path / "dl")
    assert first.origin.startswith("mirror:")
    (mirror / "fake" / "edges.txt").unlink()
    assert obtain_raw(ds, mirror, tmp_path / "dl").origin == "cache (verified; no source reachable)"
    (tmp_path / "dl" / "fake" / "raw" / "edges.txt").write_bytes(b"tampered")
    with pytest.raises(DatasetUnavailable):
        obtain_raw(ds, mirror, tmp_path / "dl")


def test_published_reasons_carry_no_absolute_mirror_path(tmp_path, monkeypatch):
    """The reason of an unavailable task lands in meta.json, run records and REPORT.md: the mirror is
    shown relative to the repository (or by its last parts), never as this machine's absolute path."""
    from netzbench.paths import shown

    repo = tmp_path / "work" / "repo"
    repo.mkdir(parents=True)
    (repo / "dvc.yaml").write_text("stages: {}\n")
    mirror = tmp_path / "work" / "shared" / "datasets"
    mirror.mkdir(parents=True)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NETZBENCH_MIRROR", str(mirror))
    meta = catdata.fetch_task("euroroad", as_settings(make_params()), repo / "data")
    assert meta["status"] == "unavailable"
    assert "mirror ../shared/datasets:" in meta["reason"] and str(tmp_path) not in meta["reason"]
    assert shown("/opt/data/mirror") == ".../data/mirror"  # far from the repository: its last parts


def _count_processing(monkeypatch, dataset: str) -> list[str]:
    """The names of the processor each time fetch runs ``dataset``'s (a wrapper under the same name, so the
    fetch fingerprint, which holds the name, is that of the real processor)."""
    import functools

    calls = []
    ds = DATASETS[dataset]
    real = ds.processor
    counted = functools.wraps(real)(lambda *a, **kw: calls.append(ds.processor_ref) or real(*a, **kw))
    monkeypatch.setitem(DATASETS, dataset, dataclasses.replace(ds, processor=counted))
    return calls


def test_a_recheck_with_the_same_raw_bytes_neither_processes_nor_rewrites(tmp_path, mirror, monkeypatch):
    """Fetch re-runs on every `dvc repro`: when the raw files, the spec and the processing code are those
    data/<task>/ was built from, it is left as it is (no processing, same files and times)."""
    import os

    fetch("cora", tmp_path)
    graph = tmp_path / "data" / "cora" / "graph.npz"
    stamp = os.stat(graph).st_mtime_ns
    calls = _count_processing(monkeypatch, "cora")
    again = fetch("cora", tmp_path)
    assert again["status"] == "ok" and calls == [] and os.stat(graph).st_mtime_ns == stamp
    # a changed data folder (e.g. an older version checked out) is processed again
    (tmp_path / "data" / "cora" / "meta.json").write_text(
        (tmp_path / "data" / "cora" / "meta.json").read_text().replace('"license"', '"license_"', 1))
    fetch("cora", tmp_path)
    assert calls and '"license_"' not in (tmp_path / "data" / "cora" / "meta.json").read_text()


def test_a_recheck_of_a_builtin_dataset_does_not_process_until_the_package_changes(tmp_path, monkeypatch):
    """Karate ships inside PyG: a re-check reads PyG's version, not PyG (importing it costs seconds)."""
    import os

    first = fetch("karate", tmp_path)
    graph = tmp_path / "data" / "karate" / "graph.npz"
    stamp = os.stat(graph).st_mtime_ns
    calls = _count_processing(monkeypatch, "karate")
    assert fetch("karate", tmp_path) == first and calls == [] and os.stat(graph).st_mtime_ns == stamp
    # another PyG release could ship other bytes: built again
    monkeypatch.setattr(catdata, "_builtin_source", lambda: {"torch_geometric": "99.0"})
    assert fetch("karate", tmp_path)["counts"] == first["counts"] and calls == ["netzbench.catalog.loaders:karate"]
