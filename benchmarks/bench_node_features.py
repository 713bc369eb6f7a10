"""Node features for labelled networks that come without any (prints figures; not a test).

Declares the mirror's labelled contact networks as ``custom_tasks`` (node classification, the
class from the SocioPatterns metadata) under each ``features:`` choice (catalog/positional.py) and
trains the roster's GCN, GraphSAGE and MLP through the pipeline (``netzbench fetch`` + ``netzbench
train``, protocol strict, 100 epochs, stratified 50/25/25 per seed), printing the mean test accuracy
at the last epoch with its spread over seeds beside the majority-class share.

- ``hospital_contacts``: 75 people of a Lyon hospital ward, class = role (ADM, MED, NUR, PAT);
- ``high_school_contacts``: 329 students of Thiers high school, class = one of 9 classes (sections).

Usage (from the repository root)::

    NETZBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_node_features.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import yaml

from arithmetic_first import configure_arithmetic

NETWORKS = {"hospital_contacts": "hospital_contacts", "high_school_contacts": "high_school_contacts"}
FEATURES = ("structural", "identity", "laplacian:16")
MODELS = ("GCN", "GraphSAGE", "MLP")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=100)
    args = ap.parse_args()
    configure_arithmetic("native")  # what its params say (exec.arithmetic: native), before torch
    mirror = Path(os.environ.get("NETZBENCH_MIRROR", "../shared/datasets")).resolve()
    from click.testing import CliRunner

    from netzbench.cli import main as cli

    with tempfile.TemporaryDirectory(prefix="netzbench-features-") as tmp:
        root = Path(tmp)
        tasks = {f"{net}__{feat.replace(':', '')}": {"path": str(mirror / folder), "format": "sociopatterns",
                                                      "family": "node_cls", "label": "class", "features": feat}
                 for net, folder in NETWORKS.items() for feat in FEATURES}
        params = {"tasks": list(tasks), "models": list(MODELS), "seeds": list(range(args.seeds)),
                  "protocol": "strict", "custom_tasks": tasks,
                  "exec": {"workers": 1, "executor": "inprocess", "arithmetic": "native"},
                  "train": {"epochs": {t: args.epochs for t in tasks}}}
        (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        os.chdir(root)
        runner = CliRunner()
        print(f"{'network':<22} {'features':<14} {'nodes':>5} {'classes':>7} {'majority':>8}  "
              + "  ".join(f"{m:>15}" for m in MODELS))
        for tid in tasks:
            out = runner.invoke(cli, ["fetch", tid])
            assert out.exit_code == 0, out.output
            meta = json.loads((root / "data" / tid / "meta.json").read_text())
            y = np.load(root / "data" / tid / "graph.npz")["y"]
            cells = []
            for model in MODELS:
                out = runner.invoke(cli, ["train", tid, model])
                assert out.exit_code == 0, out.output
                rec = json.loads((root / "metrics/runs" / tid / f"{model}.json").read_text())
                acc = [s["history"]["test_acc"][-1] for s in rec["seeds"].values()]
                cells.append(f"{np.mean(acc):.3f} +- {np.std(acc, ddof=1):.3f}")
            net, feat = tid.split("__")
            print(f"{net:<22} {feat:<14} {meta['counts']['num_nodes']:>5} {meta['counts']['num_classes']:>7} "
                  f"{np.bincount(y).max() / y.size:>8.3f}  " + "  ".join(f"{c:>15}" for c in cells))


if __name__ == "__main__":
    main()
