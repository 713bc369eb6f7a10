"""Synthetic run records for the results site's tests (tests/test_site.py, tests/test_site_browser.py):
four tasks with results (one lower-is-better), one whose data is unavailable, models under test, a
structure-free and a heuristic baseline, a candidate, and a collapsed, a degenerate and a leaking cell."""

from __future__ import annotations

import numpy as np

from netzbench.records import write_record
from netzbench.report.stage import run_report_stage

from helpers import as_settings, make_params

#: task -> (family, headline, direction, category, card)
TASKS = {
    "cora": ("node_cls", "test_acc", "higher", "social",
             {"nodes": 2708, "edges": 5278, "classes": 7, "majority_share": 0.302, "edge_homophily": 0.81,
              "warnings": []}),
    "mutag": ("graph_cls", "test_acc", "higher", "biology",
              {"graphs": 188, "nodes": 3371, "edges": 3721, "classes": 2, "majority_share": 0.665,
               "warnings": ["30 graph(s) have an identical copy"]}),
    "random_tsp": ("link_pred", "test_auc", "higher", "combinatorial", {"nodes": 200, "edges": 479, "warnings": []}),
    "zinc": ("graph_reg", "test_mae", "lower", "chemistry", {"graphs": 12000, "warnings": []}),
    "board_directors": ("link_pred", "test_auc", "higher", "finance", None),
    "euroroad": ("link_pred", "test_auc", "higher", "infrastructure", {"nodes": 1174, "edges": 1417, "warnings": []}),
}
#: the default benchmark's tasks (euroroad: :func:`write_records`'s ``paper_setting``)
DEFAULT_TASKS = ["cora", "mutag", "random_tsp", "zinc", "board_directors"]
MODELS = ["GCN", "GAT", "GIN", "GraphSAGE", "MLP", "CommonNeighbors"]
KINDS = {"MLP": "structure_free", "CommonNeighbors": "heuristic"}
CANDIDATE = "user_models.example:MyGNN"
#: the final value each model reaches per task (None: the model does not serve the task)
FINAL = {
    "cora": {"GCN": 0.81, "GAT": 0.70, "GIN": None, "GraphSAGE": 0.81, "MLP": 0.57, "CommonNeighbors": None,
             CANDIDATE: 0.79},
    "mutag": {"GCN": 0.70, "GAT": 0.66, "GIN": 0.86, "GraphSAGE": 0.72, "MLP": 0.69, "CommonNeighbors": None,
              CANDIDATE: 0.75},
    "random_tsp": {"GCN": 0.875, "GAT": 0.83, "GIN": None, "GraphSAGE": 0.89, "MLP": 0.88, "CommonNeighbors": 0.94,
                   CANDIDATE: 0.86},
    "zinc": {"GCN": 0.50, "GAT": 0.70, "GIN": 0.45, "GraphSAGE": 0.52, "MLP": 0.80, "CommonNeighbors": None,
             CANDIDATE: 0.60},
    # in the paper's Table 3: compared with it when the run's setting is the paper's (10 seeds, its epochs)
    "euroroad": {"GCN": 0.53, "GAT": 0.60, "GIN": None, "GraphSAGE": 0.52, "MLP": 0.48, "CommonNeighbors": 0.52},
}
CONSTANT = {"node_cls": ("test_majority_acc", 0.302), "graph_cls": ("test_majority_acc", 0.665),
            "link_pred": ("test_constant_auc", 0.5), "graph_reg": ("test_constant_mae", 1.2)}
SEEDS = list(range(5))
EPOCHS = 6


def _seed(task: str, model: str, final: float, seed: int, rng) -> dict:
    family, metric, direction = TASKS[task][:3]
    split = metric.replace("test_", "val_")
    start = (1.0 if direction == "lower" else 0.3) * final
    if model == "CommonNeighbors":  # a heuristic: one evaluation, no training
        test = [final + rng.normal(0, 0.005)]
    elif task == "mutag" and model == "GAT":  # collapsed and degenerate: one class, the same accuracy throughout
        test = [final] * EPOCHS
    else:
        test = [start + (final - start) * (e + 1) / EPOCHS + rng.normal(0, 0.01) for e in range(EPOCHS)]
    n = len(test)
    history = {"train_loss": [1.0 / (e + 1) for e in range(n)], metric: test,
               split: [v + rng.normal(0, 0.01) for v in test],
               "test_constant": [1.0 if (task, model) == ("mutag", "GAT") else 0.0] * n}
    entry = {"status": "ok", "epochs": list(range(1, n + 1)), "history": history, "seconds": 1.5,
             "num_params": 100, "peak_rss_mb": 1.0, "baseline": {CONSTANT[family][0]: CONSTANT[family][1]},
             "started_at": 1.7e9 + 10 * seed, "finished_at": 1.7e9 + 10 * seed + 1.5}
    if (task, model) == ("random_tsp", "GraphSAGE"):
        entry["leakage"] = ["structural_features"]
    return entry


def _record(task: str, model: str, seeds: dict, role: str = "roster") -> dict:
    family, metric, direction, category, card = TASKS[task]
    statuses = {e["status"] for e in seeds.values()}
    return {"schema_version": 1, "task": task, "family": family, "category": category, "model": model,
            "model_ref": model, "model_args": {}, "role": role, "baseline_kind": KINDS.get(model),
            "headline_metric": metric, "direction": direction,
            "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": EPOCHS,
                                "eval_every": 1},
            "config_hash": "x", "data_hash": "y", "code_version": "z", "threads": 1, "software": {},
            "status": statuses.pop() if len(statuses) == 1 else "partial", "seeds": seeds, "card": card}


def write_records(root, paper_setting: bool = False) -> dict:
    """The records under ``root`` (``metrics/runs``, ``metrics/candidate``); return the run's params.
    ``paper_setting``: a run the paper's Table 3 compares with instead (``euroroad`` only, the paper
    protocol, 10 seeds, the catalogue's epochs, no candidate)."""
    rng = np.random.default_rng(3)
    tasks, seeds_run = (["euroroad"], list(range(10))) if paper_setting else (DEFAULT_TASKS, SEEDS)
    for task in tasks:
        for model in MODELS + ([] if paper_setting else [CANDIDATE]):
            final = FINAL.get(task, {}).get(model)
            if task not in FINAL:
                seeds = {str(s): {"status": "unavailable", "reason": "no source reachable for board_directors"}
                         for s in seeds_run}
            elif final is None:
                seeds = {str(s): {"status": "incompatible", "reason": f"{model} does not serve this family"}
                         for s in seeds_run}
            else:
                seeds = {str(s): _seed(task, model, final, s, rng) for s in seeds_run}
            if model == CANDIDATE:
                write_record(root / "metrics/candidate" / f"{task}.json", _record(task, model, seeds, "candidate"))
            else:
                write_record(root / "metrics/runs" / task / f"{model}.json", _record(task, model, seeds))
    if paper_setting:
        return make_params(tasks=tasks, models=MODELS, seeds=seeds_run, protocol="paper")
    return make_params(tasks=tasks, models=MODELS, seeds=seeds_run, train={"epochs": {t: EPOCHS for t in tasks}})


def build_site(root, paper_setting: bool = False):
    """The report stage over :func:`write_records`' records under ``root``: ``(params, headline metrics)``."""
    params = write_records(root, paper_setting)
    return params, run_report_stage(as_settings(params), root=root)


VOID = {"meta", "link", "img", "br", "hr", "input", "source", "area", "base", "col", "wbr"}


class Node:
    """An element of a parsed page: its tag, attributes, children and text (:func:`parse`)."""

    def __init__(self, tag: str, attrs: dict, parent=None):
        self.tag, self.attrs, self.parent, self.children, self.parts = tag, attrs, parent, [], []

    @property
    def text(self) -> str:
        return "".join(p if isinstance(p, str) else p.text for p in self.parts)

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs) -> list["Node"]:
        """Every descendant with ``tag``, class ``cls`` and the ``attrs`` (``True``: present)."""
        out = []
        for child in self.children:
            if ((tag is None or child.tag == tag) and (cls is None or cls in child.classes())
                    and all((k in child.attrs) if v is True else child.attrs.get(k) == v
                            for k, v in attrs.items())):
                out.append(child)
            out += child.find_all(tag, cls, **attrs)
        return out

    def find(self, *args, **kwargs) -> "Node":
        found = self.find_all(*args, **kwargs)
        assert found, f"no {args} {kwargs} in <{self.tag}>"
        return found[0]


def parse(text: str) -> Node:
    """A page's element tree (the standard library's HTML parser; void elements closed at once)."""
    from html.parser import HTMLParser

    root = Node("#document", {})

    class Builder(HTMLParser):
        node = root

        def handle_starttag(self, tag, attrs):
            child = Node(tag, {k.replace("-", "_"): (v if v is not None else "") for k, v in attrs}, self.node)
            self.node.children.append(child)
            self.node.parts.append(child)
            if tag not in VOID:
                self.node = child

        def handle_endtag(self, tag):
            node = self.node
            while node is not root and node.tag != tag:
                node = node.parent
            if node is not root:
                self.node = node.parent

        def handle_data(self, data):
            self.node.parts.append(data)

    Builder(convert_charrefs=True).feed(text)
    return root
