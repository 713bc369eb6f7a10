"""Result identity is one declaration (netzbench.identity) that dvc.yaml, the per-seed cache and the
imports of a real training run all agree with; the slow test checks it the hard way, module by module."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from netzbench import identity
from netzbench.params import merge

from helpers import REPO

SRC = REPO / "src" / "netzbench"
TINY = {"tasks": ["karate", "random_tsp"], "models": ["GCN"], "seeds": [0], "model": "user_models.example:MyGNN",
        "train": {"epochs": {"karate": 1, "random_tsp": 1}}, "exec": {"workers": 1},
        "report": {"rank_tasks": None}}


def _deps(stage: dict) -> list[str]:
    return [d for d in stage["deps"] if d.startswith("src/")]


def test_dvc_yaml_deps_are_the_declared_identity():
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    assert set(stages) == {"fetch", "train", "report"}  # one train stage: every task's roster and candidate
    assert "foreach" not in stages["train"] and stages["train"]["cmd"] == "netzbench train --all"
    assert sorted(_deps(stages["train"])) == sorted(identity.dvc_paths(identity.RESULT_CODE))
    assert "user_models" in stages["train"]["deps"] and "data" in stages["train"]["deps"]
    assert "tasks" in stages["train"]["params"]
    # whole folders, not persistent: DVC removes them before the stage runs (a task dropped leaves nothing)
    assert stages["train"]["outs"] == ["metrics/runs", "metrics/candidate"]
    assert sorted(_deps(stages["report"])) == sorted(identity.dvc_paths(identity.REPORT_CODE))


def test_declared_paths_and_modules_exist():
    for entry in identity.RESULT_CODE + identity.REPORT_CODE:
        assert (SRC / entry).exists(), entry
    for name in [*identity.EXECUTION_ONLY, *identity.DATA_STAGE]:
        rel = Path(*name.split(".")[1:])
        assert name == "netzbench" or (SRC / rel).is_dir() or (SRC / rel).with_suffix(".py").is_file(), name
    declared = set(identity.result_modules()) | set(identity.EXECUTION_ONLY) | set(identity.DATA_STAGE)
    assert len(declared) == len(identity.result_modules()) + len(identity.EXECUTION_ONLY) + len(identity.DATA_STAGE)


def test_classify():
    assert identity.classify("netzbench.training.loops") == "result"
    assert identity.classify("netzbench.families") == "result"
    assert identity.classify("netzbench.run.pool") == "execution"
    assert identity.classify("netzbench") == "execution"
    assert identity.classify("netzbench.catalog.table") == "data"
    assert identity.classify("netzbench.report.benchmark") is None  # not imported by training
    assert identity.classify("netzbench.trainingx") is None


def _project(root: Path) -> Path:
    """A working directory with the tiny params and the example user model."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(TINY))
    shutil.copytree(REPO / "user_models", root / "user_models", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _run(code: str, cwd: Path, env: dict | None = None) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


FETCH = """
    from netzbench.cli import main
    for task in ("karate", "random_tsp"):
        main(["fetch", task], standalone_mode=False)
"""
# the train and candidate stages of both tasks, in one process with the in-process executor (so the
# worker's imports are this process's), plus what the local executor's forkserver preloads
TRAIN_AND_LIST = """
    import json, sys, yaml
    params = yaml.safe_load(open("params.yaml"))
    params["exec"]["executor"] = "inprocess"
    yaml.safe_dump(params, open("params.yaml", "w"))
    from netzbench.cli import main
    for task in ("karate", "random_tsp"):
        main(["train", task, "GCN"], standalone_mode=False)
        main(["candidate", task], standalone_mode=False)
    import os, netzbench, netzbench.run.pool, netzbench.run.preload  # noqa: E401
    # PyG's generated layer modules are named after our classes (netzbench.models.fused_FusedGATConv_propagate)
    # but live in a temp folder: generated code, not ours, so not listed
    inside = os.path.dirname(netzbench.__file__)
    print(json.dumps({m: sys.modules[m].__file__ for m in sys.modules if (m == "netzbench" or m.startswith("netzbench."))
                      and (m == "netzbench" or sys.modules[m].__file__.startswith(inside))}))
"""


def training_run_modules(workdir: Path, env: dict | None = None) -> dict[str, str]:
    """Module name -> file of every netzbench module a training run imports."""
    _run(FETCH, workdir, env)
    return json.loads(_run(TRAIN_AND_LIST, workdir, env).splitlines()[-1])


def test_every_module_a_training_run_imports_is_declared(tmp_path):
    modules = training_run_modules(_project(tmp_path / "w"))
    undeclared = [m for m in modules if identity.classify(m) is None]
    assert not undeclared, f"declare these in netzbench.identity: {undeclared}"
    kinds = {m: identity.classify(m) for m in modules}
    for package in identity.result_modules():  # the run really exercised every part of the identity
        assert any(m == package or m.startswith(package + ".") for m in modules), package
    assert "netzbench.report" not in modules and "netzbench.stats" not in modules
    assert kinds["netzbench.run.plan"] == "execution" and kinds["netzbench.catalog.table"] == "data"


REPORT_AND_LIST = """
    import json, sys
    from netzbench.cli import main
    main(["report"], standalone_mode=False)
    print(json.dumps(sorted(m for m in sys.modules if m == "netzbench" or m.startswith("netzbench."))))
"""


def test_report_stage_deps_cover_what_the_report_imports(tmp_path):
    workdir = _project(tmp_path / "w")
    training_run_modules(workdir)
    modules = json.loads(_run(REPORT_AND_LIST, workdir).splitlines()[-1])
    assert (workdir / "reports/REPORT.md").is_file()
    report_code = ["netzbench." + e.removesuffix(".py") for e in identity.REPORT_CODE]
    uncovered = [m for m in modules if not any(m == r or m.startswith(r + ".") for r in report_code)
                 and identity.classify(m) != "execution"]
    assert not uncovered, f"the report imports {uncovered}, which its dvc.yaml deps do not cover"
    assert not any(m.startswith(("netzbench.training", "netzbench.catalog", "netzbench.models")) for m in modules)
    assert "torch" not in _run("import sys; import netzbench.report.stage; print(sorted(sys.modules))", workdir)


# ----------------------------------------------------------------------------- the hard way

PROBE = "\n_IDENTITY_PROBE = 1  # appended by tests/test_identity.py\n"

CHECK = """
    import json, sys
    from pathlib import Path
    from dvc.repo import Repo
    from netzbench.run.plan import plan_cell
    from netzbench.settings import Settings

    repo = Repo(".")
    params = Settings.load("params.yaml")
    cells = [("karate", "GCN", "roster", None), ("random_tsp", "GCN", "roster", None),
             ("karate", "user_models.example:MyGNN", "candidate", {})]
    out = {}
    for path in json.loads(sys.argv[1]):
        f = Path(path)
        original = f.read_bytes()
        f.write_bytes(original + %r)
        try:
            status = repo.status()
            changed = sorted(s for s in status if s == "train")
            uncached = sum(len(plan_cell(t, m, params, role=r, model_args=a).jobs)
                           for t, m, r, a in cells)
        finally:
            f.write_bytes(original)
        out[path] = {"dvc_changed": changed, "uncached": uncached}
    print(json.dumps(out))
""" % PROBE.encode()


@pytest.mark.slow
def test_the_hard_way_every_imported_module_edited_once(tmp_path):
    """Append a harmless statement to each module a training run imports: for result code both
    `dvc status` and the per-seed cache see a change; for execution-only and data-stage code neither."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.split()
    for rel in listed:
        if rel.startswith(("metrics/", "reports/", "plots/")) and rel != "reports/protocol_study.json" \
                or rel == "dvc.lock":
            continue
        if (REPO / rel).is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, repo / rel)
    (repo / "params.yaml").write_text(yaml.safe_dump(merge(yaml.safe_load((REPO / "params.yaml").read_text()), TINY)))
    env = {**os.environ, "PYTHONPATH": str(repo / "src"), "NETZBENCH_CACHE_DIR": str(repo / ".netzbench"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "tiny"], ["dvc", "repro", "-q"]):
        proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    listing_env = {**env, "NETZBENCH_CACHE_DIR": str(tmp_path / "listing-cache")}  # nothing cached: all code runs
    modules = training_run_modules(_project(tmp_path / "listing"), listing_env)
    assert all(Path(f).is_relative_to(repo / "src") for f in modules.values()), "the copy's package was not imported"
    files = {f: identity.classify(m) for m, f in modules.items()}
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(CHECK), json.dumps(sorted(files))], cwd=repo,
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.splitlines()[-1])
    wrong = []
    for path, kind in files.items():
        dvc, cache = bool(seen[path]["dvc_changed"]), seen[path]["uncached"] > 0
        if (kind == "result") != dvc or (kind == "result") != cache:
            wrong.append(f"{Path(path).relative_to(repo)} ({kind}): dvc sees a change: {dvc}, new cache keys: {cache}")
    assert not wrong, "\n".join(wrong)
    result_files = [p for p, k in files.items() if k == "result"]
    assert len(result_files) >= 10 and all(seen[p]["uncached"] == 3 for p in result_files)
    assert all(seen[p]["dvc_changed"] == ["train"] for p in result_files)  # one train stage for every task
