"""Golden histories: a handful of short cells whose histories are pinned bit for bit.

Each cell is one seed of one model on small data that needs no download (a
synthetic generator, or raw fixture files declared as a custom task), trained
for a few epochs through the same path as ``netzbench train`` (the params
file, fetch, the planner, the in-process executor, the run record). Together
they cover the four families and a knowledge graph, full batch and
neighbour-sampled. The cells train in one child process under portable
arithmetic (``exec.arithmetic: portable``'s variables, set before torch is
imported), the mode the published run uses, whose bits are the same on the
x86-64 CPUs of one vendor (MKL picks its code by vendor too);
``tests/test_golden.py`` compares every value of every series with
``tests/fixtures/golden_histories.json``, where floats are written as
``float.hex`` (exact, readable), keyed by the capability torch reports in that
child and the CPU's vendor (``AVX2/intel``, ``AVX2/amd``; another architecture
has its own kernels and skips until its entry is added). An entry made under
qemu's emulation of the other vendor's CPU is checked by emulation
(``tests/test_arithmetic.py``), not against a native run.

Regenerate the fixture after a change that is meant to move results (and say
in the commit which cell moved and why)::

    PYTHONPATH=src python tests/golden.py                                  # this CPU
    PYTHONPATH=src python tests/golden.py --qemu EPYC-Milan-v1 --vendor amd  # an emulated AMD CPU

Each run replaces the entry it makes and keeps the others.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from helpers import as_settings

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "golden_histories.json"
SCHEMA = "netzbench.golden_histories/2"
#: CPUID vendor strings -> the fixture's names
VENDORS = {"GenuineIntel": "intel", "AuthenticAMD": "amd"}

#: raw fixture files (tests/raw_fixtures.py) declared as custom tasks
CUSTOM_TASKS = {
    "golden_tu": ("write_tu", "FIXMOL/raw", {"format": "tu", "family": "graph_cls"}),
    "golden_kg": ("write_triples", "kg", {"format": "triples", "family": "link_pred"}),
}

#: name -> (task, model, epochs, train overrides): one seed (0) each
CELLS = {
    "node_karate_gcn": ("karate", "GCN", 4, {}),
    "node_karate_sage_sampled": ("karate", "GraphSAGE", 3,
                                 {"sampling": {"mode": "neighbour", "fanouts": [3, 2], "batch_size": 8}}),
    "graph_cls_tu_gin": ("golden_tu", "GIN", 3, {}),
    "graph_reg_triangles_gcn": ("synthetic_triangles", "GCN", 2, {}),
    "link_random_tsp_gat": ("random_tsp", "GAT", 3, {}),
    "kg_triples_gcn": ("golden_kg", "GCN", 3, {}),
}


def capability() -> str:
    """The CPU capability torch computes with in this process (the fixture's key)."""
    import torch

    return torch.backends.cpu.get_cpu_capability()


def vendor() -> str:
    """This CPU's vendor (``intel``, ``amd``, or what /proc/cpuinfo says). ``GOLDEN_CPU_VENDOR`` overrides it:
    under qemu's user-mode emulation /proc/cpuinfo is still the host's."""
    if os.environ.get("GOLDEN_CPU_VENDOR"):
        return os.environ["GOLDEN_CPU_VENDOR"]
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("vendor_id"):
                found = line.split(":", 1)[1].strip()
                return VENDORS.get(found, found)
    except OSError:
        pass
    return "unknown"


def encode(history: dict[str, list[float]]) -> dict[str, list[str]]:
    return {series: [float(v).hex() for v in values] for series, values in sorted(history.items())}


def decode(history: dict[str, list[str]]) -> dict[str, list[float]]:
    return {series: [float.fromhex(v) for v in values] for series, values in history.items()}


@contextlib.contextmanager
def _inside(folder: Path):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _forget_custom_tasks() -> None:
    """Remove the golden custom tasks from the catalogue's tables (a test process goes on with others)."""
    from netzbench.catalog import custom
    from netzbench.catalog.table import DATASETS, TASKS

    for tid in CUSTOM_TASKS:
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)
        custom._REGISTERED.pop(tid, None)


def _project(root: Path, name: str) -> Path:
    """``root`` made a project for cell ``name``: its raw fixture files and its params file."""
    import raw_fixtures

    task, model, epochs, train = CELLS[name]
    custom = {}
    if task in CUSTOM_TASKS:
        writer, folder, entry = CUSTOM_TASKS[task]
        getattr(raw_fixtures, writer)(root / "raw" / folder)
        custom[task] = {**entry, "path": f"raw/{folder}"}
    params = {"tasks": [task], "models": [model], "seeds": [0], "custom_tasks": custom,
              "train": {"epochs": {task: epochs}, **train},
              "exec": {"executor": "inprocess", "workers": 1, "threads": 1, "device": "cpu", "arithmetic": "native"}}
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    return path


def history(name: str) -> tuple[list[int], dict[str, list[float]]]:
    """Train golden cell ``name`` afresh (its own folder and per-seed cache): its seed's evaluated epochs
    and history."""
    from netzbench.catalog.data import fetch_task
    from netzbench.config import load_config
    from netzbench.run.execute import train_cell

    task, model = CELLS[name][:2]
    cache = os.environ.get("NETZBENCH_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        root = Path(tmp)
        os.environ["NETZBENCH_CACHE_DIR"] = str(root / "cache")  # never a cached seed: it trains
        try:
            with _inside(root):
                params = load_config(_project(root, name))
                fetch_task(task, as_settings(params), "data")
                record = train_cell(task, model, as_settings(params), root / "record.json", progress=False)
        finally:
            _forget_custom_tasks()
            if cache is None:
                os.environ.pop("NETZBENCH_CACHE_DIR", None)
            else:
                os.environ["NETZBENCH_CACHE_DIR"] = cache
    seed = record["seeds"]["0"]
    if seed.get("status") != "ok":
        raise RuntimeError(f"golden cell {name}: the seed {seed.get('status')}: {seed.get('error')}")
    return seed["epochs"], seed["history"]


def train_all() -> dict:
    """Every golden cell trained in this process: {"capability", "torch", "cells": {name: {"epochs",
    "history" (encoded)}}}."""
    import torch

    cells = {}
    for name in CELLS:
        epochs, hist = history(name)
        cells[name] = {"epochs": epochs, "history": encode(hist)}
    return {"key": f"{capability()}/{vendor()}", "torch": torch.__version__, "cells": cells}


def train_portable(qemu: str | None = None, cpu_vendor: str | None = None, timeout: float = 900) -> dict:
    """:func:`train_all` in a child process under portable arithmetic (the variables must be set before
    torch is imported, so not in a process that has imported it already); on qemu's emulated CPU ``qemu``
    (``qemu-x86_64 -cpu``) of vendor ``cpu_vendor`` where given."""
    from netzbench.run.arithmetic import PORTABLE_ENV

    here = Path(__file__).resolve().parent
    env = {**os.environ, **PORTABLE_ENV, "NETZBENCH_WARM_S": "0",
           "PYTHONPATH": os.pathsep.join([str(here.parent / "src"), str(here), os.environ.get("PYTHONPATH", "")])}
    env.pop("GOLDEN_CPU_VENDOR", None)
    if cpu_vendor:
        env["GOLDEN_CPU_VENDOR"] = cpu_vendor
    prefix = ["qemu-x86_64", "-cpu", qemu] if qemu else []
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        out = Path(tmp) / "cells.json"
        done = subprocess.run([*prefix, sys.executable, str(Path(__file__).resolve()), "--child", str(out)],
                              env=env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"the golden cells failed to train:\n{done.stderr[-3000:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def read_fixture(path: Path = FIXTURE) -> dict:
    if not path.is_file():
        return {"schema": SCHEMA, "capabilities": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def generate(path: Path = FIXTURE, qemu: str | None = None, cpu_vendor: str | None = None) -> dict:
    """Train every golden cell under portable arithmetic (on this CPU, or on qemu's emulated ``qemu`` of vendor
    ``cpu_vendor``) and write their histories under the key of that run into ``path``."""
    trained = train_portable(qemu, cpu_vendor)
    fixture = read_fixture(path)
    if fixture.get("schema") != SCHEMA:
        fixture = {"schema": SCHEMA, "capabilities": {}}
    entry = {"torch": trained["torch"], "made_on": f"qemu {qemu}" if qemu else "native", "cells": trained["cells"]}
    fixture["capabilities"][trained["key"]] = entry
    fixture["capabilities"] = dict(sorted(fixture["capabilities"].items()))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(fixture, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return {**entry, "key": trained["key"]}


def main() -> None:
    import argparse

    sys.path.insert(0, str(Path(__file__).resolve().parent))  # raw_fixtures
    os.environ.setdefault("NETZBENCH_WARM_S", "0")
    if sys.argv[1:2] == ["--child"]:  # train_portable's child: the portable variables are set
        Path(sys.argv[2]).write_text(json.dumps(train_all()), encoding="utf-8")
        return
    parser = argparse.ArgumentParser(description="Regenerate the golden histories (tests/golden.py).")
    parser.add_argument("--qemu", help="train on this qemu-x86_64 CPU model (e.g. EPYC-Milan-v1)")
    parser.add_argument("--vendor", help="the emulated CPU's vendor (intel, amd): required with --qemu")
    args = parser.parse_args()
    if bool(args.qemu) != bool(args.vendor):
        parser.error("--qemu and --vendor go together")
    entry = generate(qemu=args.qemu, cpu_vendor=args.vendor)
    cells = entry["cells"]
    print(f"{FIXTURE}: {len(cells)} cells under {entry['key']} ({entry['made_on']}, torch {entry['torch']}):")
    for name, cell in cells.items():
        print(f"  {name}: epochs {cell['epochs']}, series {', '.join(cell['history'])}")


if __name__ == "__main__":
    main()
