"""Neighbour-sampled training on a graph of ogbn-products size, one epoch per model (issue 29).

Writes a stand-in of ogbn-products' recorded size (:data:`netzbench.catalog.sizes.SIZES`: 2,449,029 nodes,
61,859,140 undirected pairs = 123.7 M message-passing edges, 100 features, 47 classes; random pairs and
features from :mod:`netzbench.catalog.standin`), with ogbn-products' split proportions (8 % training,
1.6 % validation, the rest test: 196,615 / 39,323 / 2,213,091 nodes), then trains each model for
``--epochs`` epochs with ``train.sampling: {mode: neighbour, fanouts: [15, 10], batch_size: 1024}``,
each in a fresh process (its own peak memory, ``VmHWM``; address space capped at ``--memory-gb`` so
an allocation past it fails that model, not the machine). Evaluation is ``--eval``: ``layerwise`` (the
default: exact, one layer at a time over ranges of nodes), ``full`` (exact, the whole graph at once: a
full forward pass of an attention model keeps per-edge, per-head tensors, 124 M edges x heads floats
each, which does not fit in 24 GB) or ``sampled`` (every node on a sampled neighbourhood, in chunks).

Prints the device (the CPU: every model trains there, one thread) and the CPU arithmetic mode (set before
torch is imported, ``arithmetic_first``), then per model: seconds for the epoch(s) (training and
evaluation), the process's peak memory, the test accuracy, the run record's ``sampling``.

Usage: ``.venv/bin/python benchmarks/bench_products.py [--models GCN GraphSAGE GraphTransformer GAT]
[--eval layerwise] [--scale 1.0]`` on an idle machine (``--scale 0.01`` for a quick look at a graph a hundredth the size).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arithmetic_first import configure_arithmetic

SAMPLING = {"mode": "neighbour", "min_edges": 0, "fanouts": [15, 10], "batch_size": 1024}
SPLIT = (0.0803, 0.0161)  # ogbn-products: 196,615 training and 39,323 validation nodes of 2,449,029


def write_graph(path: Path, scale: float) -> dict:
    import numpy as np

    from netzbench.catalog.sizes import SIZES
    from netzbench.catalog.standin import scaled, standin_arrays

    size = scaled(SIZES["ogbn_products"], scale) if scale != 1.0 else dict(SIZES["ogbn_products"])
    t = time.perf_counter()
    arrays, _ = standin_arrays("node_cls", size, seed=0)
    n = int(arrays["num_nodes"])
    order = np.random.default_rng(1).permutation(n)
    cut = int(SPLIT[0] * n), int((SPLIT[0] + SPLIT[1]) * n)
    for name, idx in (("train_mask", order[:cut[0]]), ("val_mask", order[cut[0]:cut[1]]), ("test_mask", order[cut[1]:])):
        mask = np.zeros(n, dtype=bool)
        mask[idx] = True
        arrays[name] = mask
    np.savez(path, **arrays)
    return {"nodes": n, "pairs": int(arrays["edge_index"].shape[1] // 2), "features": int(arrays["x"].shape[1]),
            "classes": int(arrays["y"].max()) + 1, "seconds": time.perf_counter() - t}


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else the architecture."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.machine() or "unknown"


def child(path: str, model: str, epochs: int, evaluation: str, memory_gb: float) -> None:
    cap = int(memory_gb * 2 ** 30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    import numpy as np
    import torch

    from netzbench.models.registry import resolve_model
    from netzbench.training.seed import fit_seed

    torch.set_num_threads(1)
    arrays = dict(np.load(path))
    hp = {"hidden_channels": 64, "lr": 0.01, "weight_decay": 5e-4, "epochs": epochs, "eval_every": 1,
          "sampling": {**SAMPLING, "eval": evaluation}}
    marks = []
    t = time.perf_counter()
    try:
        res = fit_seed(resolve_model(model), "node_cls", "dataset_masks", arrays, 0, hp,
                       on_epoch=lambda e: marks.append(time.perf_counter() - t))
        out = {"status": "ok", "seconds": res["seconds"], "epoch_marks": marks, "peak_gb": res["peak_rss_mb"] / 1024,
               "test_acc": res["history"]["test_acc"][-1], "sampling": res["sampling"]}
    except MemoryError as exc:
        from netzbench.training.seed import peak_rss_mb

        out = {"status": "out of memory", "error": str(exc)[:80], "peak_gb": peak_rss_mb() / 1024,
               "seconds": time.perf_counter() - t}
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=["GCN", "GraphSAGE", "GraphTransformer", "GAT"])
    ap.add_argument("--eval", default="layerwise", choices=["layerwise", "full", "sampled"])
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--memory-gb", type=float, default=22.0)
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    mode = configure_arithmetic(params=None)  # the default mode, before torch; the children inherit it
    if args.child:
        path, model, evaluation, epochs = args.child
        child(path, model, int(epochs), evaluation, args.memory_gb)
        return
    with tempfile.TemporaryDirectory(prefix="netzbench-products-") as tmp:
        path = Path(tmp) / "graph.npz"
        info = write_graph(path, args.scale)
        print(f"stand-in: {info['nodes']:,} nodes, {info['pairs']:,} undirected pairs "
              f"({2 * info['pairs']:,} message-passing edges), {info['features']} features, {info['classes']} "
              f"classes; written in {info['seconds']:.0f} s. sampling {SAMPLING['fanouts']}, batch "
              f"{SAMPLING['batch_size']}, one thread, {args.epochs} epoch(s)", flush=True)
        print(f"device: cpu ({cpu_name()}); CPU arithmetic: {mode}\n", flush=True)
        print("| model | evaluation | seconds (epochs: training + evaluation) | peak memory | test acc | status |")
        print("|---|---|---:|---:|---:|---|", flush=True)
        for model in args.models:
            evaluation = args.eval
            cmd = [sys.executable, __file__, "--memory-gb", str(args.memory_gb), "--child", str(path), model,
                   evaluation, str(args.epochs)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if not lines:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:100]
                print(f"| {model} | {evaluation} | - | - | - | failed (rc {proc.returncode}): {tail} |", flush=True)
                continue
            r = json.loads(lines[-1])
            marks = ", ".join(f"{m:.0f}" for m in r.get("epoch_marks", [])) or f"{r['seconds']:.0f}"
            acc = f"{r['test_acc']:.3f}" if "test_acc" in r else "-"
            print(f"| {model} | {evaluation} | {marks} | {r['peak_gb']:.1f} GB | {acc} | {r['status']} |", flush=True)


if __name__ == "__main__":
    main()
