"""The quick profile: the whole pipeline, end to end, in a few minutes (``netzbench quick``).

A first look for a new user and a smoke test for CI: four tasks that need no
download (one per family: Karate node classification, Random TSP and Ising
link prediction, synthetic triangle counting as graph regression), the five
models, three seeds and short epoch budgets, run by ``dvc repro`` in a
throwaway copy of the repository (``.netzbench/quick/`` by default), so the
published results and ``params.yaml`` of the repository are never touched.
The copy has its own git repository and per-seed cache; run it again and
only what changed retrains.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from .paths import workspace_root
from .report.reproduction import STUDY_SCHEMA

log = logging.getLogger(__name__)

#: the profile: what it trains (epochs: short budgets, enough for the learning curves to move)
PROFILE = {
    "tasks": ["karate", "random_tsp", "ising_lattice", "synthetic_triangles"],
    "models": ["GCN", "GAT", "GIN", "GraphSAGE", "GraphTransformer"],
    "seeds": [0, 1, 2],
    "epochs": {"karate": 50, "random_tsp": 30, "ising_lattice": 20, "synthetic_triangles": 8},
}
#: published results of the repository's own run: not part of the profile's workspace
_SKIP_PREFIXES = ("metrics/", "reports/", "plots/", "data/")


def _tracked_files(repo: Path) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    return [rel for rel in listed if rel and rel != "dvc.lock"
            and (not rel.startswith(_SKIP_PREFIXES) or rel == "reports/protocol_study.json")]


def prepare(target: Path, repo: Path | None = None, profile: dict | None = None) -> Path:
    """Copy the repository's code into ``target`` (kept: its cache, data and git history) with the
    ``params.yaml`` of ``profile`` (default :data:`PROFILE`), and commit it; return ``target``."""
    repo = repo or workspace_root()
    profile = profile or PROFILE
    target.mkdir(parents=True, exist_ok=True)
    for rel in _tracked_files(repo):
        src = repo / rel
        if src.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / rel)
    params = yaml.safe_load((repo / "params.yaml").read_text(encoding="utf-8"))
    params.update(tasks=profile["tasks"], models=profile["models"], seeds=profile["seeds"])
    params["train"]["epochs"] = dict(profile["epochs"])
    if "search" in profile:  # a search selects on validation: the graph task needs a validation set of its own
        params["search"] = dict(profile["search"])
        params["protocol_overrides"] = {**(params.get("protocol_overrides") or {}), "graph_split": "80_10_10"}
    for block in ("controls", "seed_plan"):  # what `netzbench controls` and `netzbench seeds` read
        if block in profile:
            params[block] = {**params.get(block, {}), **profile[block]}
    params["report"]["rank_exclude"] = []
    params["report"].pop("rank_tasks", None)
    (target / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False), encoding="utf-8")
    # the repository's protocol study belongs to its own run: the profile's report starts without one
    (target / "reports").mkdir(exist_ok=True)
    (target / "reports/protocol_study.json").write_text(json.dumps({"schema": STUDY_SCHEMA, "seeds": [],
                                                                     "tasks": {}}), encoding="utf-8")
    environ = env(target)
    if not (target / ".git").is_dir():
        _run(["git", "init", "-q"], target, environ)
    _run(["git", "add", "-A"], target, environ)
    _run(["git", "commit", "-qm", "quick profile", "--allow-empty"], target, environ)
    return target


def env(target: Path) -> dict:
    """The environment the profile's commands run in: this interpreter's tools first, a git identity,
    the workspace's own per-seed cache."""
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "GIT_AUTHOR_NAME": "netzbench", "GIT_AUTHOR_EMAIL": "quick@netzbench.invalid",
            "GIT_COMMITTER_NAME": "netzbench", "GIT_COMMITTER_EMAIL": "quick@netzbench.invalid",
            "NETZBENCH_CACHE_DIR": str(target / ".netzbench")}


def _run(cmd: list[str], cwd: Path, env: dict, *, stream: bool = False) -> None:
    """Run ``cmd``; ``stream``: its output goes straight to ours (else kept, and shown if it fails)."""
    if not stream:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return
    done = subprocess.run(cmd, cwd=cwd, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed in {cwd} (exit code {done.returncode}); see the output above")


#: ``netzbench quick --questions``: the profile with a search of two learning rates (the same candidates for
#: every model: tuning-budget curves), then structure controls and seed rounds, then the report again
QUESTIONS = {"search": {"space": {"lr": [0.01, 0.003]}, "method": "grid"},
             "controls": {"tasks": ["karate", "synthetic_triangles"], "models": ["GCN", "GraphSAGE"]},
             "seed_plan": {"target_effect": 0.02, "looks": [3, 5]}}


def run_quick(target: str | os.PathLike = ".netzbench/quick", questions: bool = False) -> dict:
    """Prepare the profile's workspace and run ``dvc repro`` there; return where the report is and the time.
    ``questions``: also answer the three questions (:data:`QUESTIONS`), which REPORT.md's section 14 shows."""
    for tool in ("git", "dvc"):
        if shutil.which(tool, path=env(Path(target))["PATH"]) is None:
            raise RuntimeError(f"`{tool}` is not on PATH: the quick profile runs the DVC pipeline")
    t0 = time.perf_counter()
    profile = {**PROFILE, **QUESTIONS} if questions else PROFILE
    target = prepare(Path(target).resolve(), profile=profile)
    log.info(f"quick profile: {len(PROFILE['tasks'])} tasks x {len(PROFILE['models'])} models x "
             f"{len(PROFILE['seeds'])} seeds in {target}")
    _run(["dvc", "repro"], target, env(target), stream=True)
    if questions:  # both read their blocks of the workspace's params.yaml (QUESTIONS)
        _run(["netzbench", "controls"], target, env(target), stream=True)
        _run(["netzbench", "seeds"], target, env(target), stream=True)
        _run(["netzbench", "report"], target, env(target), stream=True)  # section 14 from what they wrote
    seconds = time.perf_counter() - t0
    log.info(f"quick profile: done in {seconds:.0f} s; read {target / 'reports/REPORT.md'}")
    return {"dir": target, "report": target / "reports/REPORT.md", "seconds": seconds}
