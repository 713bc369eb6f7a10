"""Two processes training the same cell at once train each seed once: the second waits for the first's
per-seed lock and reuses its result (issue 14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import yaml

from netzbench.run.cache import SeedCache

TRAIN = textwrap.dedent("""
    import sys
    from netzbench.cli import main
    main(["train", "karate", "GCN", "--out", sys.argv[1]], standalone_mode=False)
""")


def test_two_trains_of_one_cell_train_each_seed_once(tmp_path):
    seeds = [0, 1, 2, 3]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["karate"], "models": ["GCN"], "seeds": seeds, "train": {"epochs": {"karate": 60}},
        "exec": {"workers": 1}}))
    env = {**os.environ, "NETZBENCH_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-c", "from netzbench.cli import main; main(['fetch', 'karate'], "
                    "standalone_mode=False)"], cwd=tmp_path, env=env, check=True, capture_output=True)
    procs = [subprocess.Popen([sys.executable, "-c", TRAIN, f"run{i}.json"], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i in (0, 1)]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    records = [json.loads((tmp_path / f"run{i}.json").read_text()) for i in (0, 1)]
    for s in map(str, seeds):
        entries = [r["seeds"][s] for r in records]
        assert all(e["status"] == "ok" for e in entries)
        assert entries[0]["history"] == entries[1]["history"]
        # trained by exactly one of the two processes; the other recalled the stored result
        assert sorted(bool(e.get("cached")) for e in entries) == [False, True], (s, outputs)


def test_a_lock_is_exclusive_and_freed_by_unlock(tmp_path):
    cache = SeedCache(tmp_path)
    fd = cache.try_lock("k1")
    assert fd is not None
    other = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        from netzbench.run.cache import SeedCache
        print(SeedCache({str(tmp_path)!r}).try_lock("k1") is None)
    """)], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == "True"  # another process cannot take it
    assert cache.try_lock("k2") is not None  # other keys are free
    cache.unlock(fd)
    again = cache.try_lock("k1")
    assert again is not None
    cache.unlock(again)
