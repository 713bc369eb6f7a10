"""End to end: a tiny profile through `dvc repro`, then a candidate with `dvc exp run`.

Copies the repository to a temporary directory, writes a small params.yaml
(2 offline tasks, 2 models, 3 seeds, 3 epochs), commits, runs the pipeline
and checks that the outputs exist, that a candidate trains only its own
cells, that added seeds reuse finished ones, and that DVC's metrics and plots
commands see the outputs. A second copy checks the one train stage: a stale
cell retrains alone, and a task dropped from params.yaml leaves no record.
"""

import json
import shutil
import subprocess

import pytest
import yaml

from helpers import REPO, logged
from netzbench.quick import PROFILE, prepare, run_quick
from netzbench.quick import env as workspace_env

pytestmark = pytest.mark.slow


def run(cmd, cwd, env):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def stages_run(output: str) -> set[str]:
    return {line.split("'")[1] for line in output.splitlines() if line.startswith("Running stage")}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    dst = tmp_path_factory.mktemp("e2e") / "repo"
    prepare(dst, REPO, {"tasks": ["random_tsp", "karate"], "models": ["GCN", "GraphSAGE"], "seeds": [0, 1, 2],
                        "epochs": {"random_tsp": 3, "karate": 3}})
    return dst, workspace_env(dst)


def test_the_quick_profile_runs_end_to_end(tmp_path):
    """`netzbench quick`: the documented first look, every stage in a throwaway copy."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    with logged() as said:
        out = run_quick(tmp_path / "quick")
    report = json.loads((out["dir"] / "metrics/report.json").read_text())
    assert report["n_tasks"] == len(PROFILE["tasks"]) and report["k"] == 4  # GIN serves one task only
    assert (out["report"]).read_text().startswith("# netzbench report")
    assert any(m.startswith("quick profile: done in") for m in said)


def _seeds_cached(dst, task, model) -> list[bool]:
    record = json.loads((dst / f"metrics/runs/{task}/{model}.json").read_text())
    return [record["seeds"][s].get("cached", False) for s in sorted(record["seeds"])]


def _edit_params(dst, edit) -> None:
    params = yaml.safe_load((dst / "params.yaml").read_text())
    edit(params)
    (dst / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def test_the_one_train_stage_retrains_a_stale_cell_alone_and_drops_removed_tasks(tmp_path):
    """One `train` stage for every task: a change that stales one cell (karate/GCN, the only node-level cell
    that trains: CommonNeighbors serves link prediction only) retrains that cell's seeds and recalls every
    other from the per-seed cache; a task dropped from params.yaml leaves nothing in metrics/."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    dst = prepare(tmp_path / "repo", REPO, {"tasks": ["karate", "random_tsp"], "models": ["GCN", "CommonNeighbors"],
                                            "seeds": [0, 1], "epochs": {"karate": 2, "random_tsp": 2}})
    env = workspace_env(dst)
    assert stages_run(run(["dvc", "repro"], dst, env)) == {"fetch", "train", "report"}
    assert _seeds_cached(dst, "karate", "GCN") == _seeds_cached(dst, "random_tsp", "GCN") == [False, False]

    _edit_params(dst, lambda p: p["train"].update(node_cls={"lr": 0.02, "weight_decay": 0.0005}))
    assert stages_run(run(["dvc", "repro"], dst, env)) == {"fetch", "train", "report"}
    assert _seeds_cached(dst, "karate", "GCN") == [False, False]  # the stale cell: trained again
    assert _seeds_cached(dst, "random_tsp", "GCN") == _seeds_cached(dst, "random_tsp", "CommonNeighbors") \
        == [True, True]  # the others: from the per-seed cache
    assert json.loads((dst / "metrics/runs/karate/CommonNeighbors.json").read_text())["status"] == "incompatible"

    _edit_params(dst, lambda p: p.update(tasks=["karate"]))
    assert stages_run(run(["dvc", "repro"], dst, env)) == {"fetch", "train", "report"}
    assert sorted(p.name for p in (dst / "metrics/runs").iterdir()) == ["karate"]
    assert sorted(p.name for p in (dst / "metrics/candidate").iterdir()) == ["karate.json"]
    assert _seeds_cached(dst, "karate", "GCN") == [True, True]
    report = json.loads((dst / "metrics/report.json").read_text())
    assert report["n_tasks"] == 1 and "random_tsp" not in json.dumps(report["cells"])


def test_repro_then_candidate_then_more_seeds(repo):
    dst, env = repo
    out = run(["dvc", "repro"], dst, env)
    assert stages_run(out) == {"fetch", "train", "report"}  # one train stage for every task
    for rel in ["metrics/report.json", "reports/benchmark.json", "reports/benchmark.histories.json.gz",
                "reports/REPORT.md", "plots/critical_difference.png",
                "plots/critical_difference.svg", "plots/mean_ranks.csv", "plots/mean_ranks.png",
                "reports/site/index.html", "reports/site/tasks/karate.html",
                "metrics/runs/karate/GCN.json", "metrics/candidate/karate.json", "data/karate/meta.json"]:
        assert (dst / rel).is_file(), rel
    report = json.loads((dst / "metrics/report.json").read_text())
    assert report["k"] == 2 and report["n_tasks"] == 2
    assert set(report["mean_ranks"]) == {"GCN", "GraphSAGE"}
    assert sorted(report["mean_ranks"].values()) in ([1.0, 2.0], [1.5, 1.5], [1.25, 1.75])
    assert report["candidate"]["name"] is None
    assert 0.0 <= report["cells"]["karate"]["GCN"]["mean"] <= 1.0 and report["cells"]["karate"]["GCN"]["n_seeds"] == 3
    assert (dst / "plots/critical_difference.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "# netzbench report" in (dst / "reports/REPORT.md").read_text()
    assert json.loads((dst / "metrics/candidate/karate.json").read_text())["status"] == "no_candidate"

    run(["git", "add", "-A"], dst, env)
    run(["git", "commit", "-qm", "baseline results"], dst, env)
    noop = run(["dvc", "repro"], dst, env)
    assert stages_run(noop) == {"fetch"}  # only the source re-check

    out = run(["dvc", "exp", "run", "-S", "model=user_models.example:MyGNN"], dst, env)
    assert stages_run(out) == {"fetch", "train", "report"}  # fetch: always re-checked
    for task in ("karate", "random_tsp"):  # the stage ran for the candidate: every roster seed recalled
        for model in ("GCN", "GraphSAGE"):
            rec = json.loads((dst / f"metrics/runs/{task}/{model}.json").read_text())
            assert all(s.get("cached") for s in rec["seeds"].values()), (task, model)
    report = json.loads((dst / "metrics/report.json").read_text())
    cand = report["candidate"]
    assert cand["name"] == "user_models.example:MyGNN" and cand["n_tasks"] == 2
    assert cand["wins"] + cand["losses"] + cand["ties"] == 4
    assert 1.0 <= cand["mean_rank"] <= 3.0
    rec = json.loads((dst / "metrics/candidate/karate.json").read_text())
    assert rec["role"] == "candidate" and rec["status"] == "ok" and set(rec["seeds"]) == {"0", "1", "2"}

    metrics = json.loads(run(["dvc", "metrics", "show", "--json"], dst, env).split("\n", 0)[0])
    assert metrics  # parsed JSON
    params_diff = run(["dvc", "params", "diff", "--json"], dst, env)
    assert "model" in params_diff
    plots = json.loads(run(["dvc", "plots", "diff", "HEAD", "--json"], dst, env))
    listed = json.dumps(plots)
    for name in ("plots/critical_difference.png", "plots/mean_ranks.png", "plots/mean_ranks.csv"):
        assert name in listed, name

    out = run(["dvc", "exp", "run", "-S", "model=null", "-S", "seeds=[0,1,2,3]"], dst, env)
    assert "train" in stages_run(out)
    rec = json.loads((dst / "metrics/runs/karate/GCN.json").read_text())
    assert [rec["seeds"][s].get("cached", False) for s in ("0", "1", "2", "3")] == [True, True, True, False]

    # a smaller benchmark with one flag per key and no other edit: the tasks have no `train.epochs` entry,
    # so each trains its catalogue budget, written into data/<task>/meta.json by fetch
    out = run(["dvc", "exp", "run", "-S", "tasks=[karate_link_pred,synthetic_triangles]", "-S", "seeds=[0,1]",
               "-S", "models=[GCN]"], dst, env)
    assert {"train", "report"} <= stages_run(out)
    # the tasks dropped leave no record behind (DVC removes the stage's folders before it runs)
    assert sorted(p.name for p in (dst / "metrics/runs").iterdir()) == ["karate_link_pred", "synthetic_triangles"]
    assert sorted(p.name for p in (dst / "metrics/candidate").iterdir()) == ["karate_link_pred.json",
                                                                            "synthetic_triangles.json"]
    for task in ("karate_link_pred", "synthetic_triangles"):
        budget = json.loads((dst / f"data/{task}/meta.json").read_text())["epochs"]
        rec = json.loads((dst / f"metrics/runs/{task}/GCN.json").read_text())
        assert rec["status"] == "ok" and set(rec["seeds"]) == {"0", "1"}
        assert rec["hyperparameters"]["epochs"] == rec["task_spec"]["epochs"] == budget
        assert rec["epochs_source"] == "catalogue"
    report = json.loads((dst / "metrics/report.json").read_text())
    assert report["n_tasks"] == 2 and report["k"] == 1

    # the experiments side by side (issue 28): each row says which tasks it ran, within 100 columns
    rows = json.loads(run(["netzbench", "exps", "--json"], dst, env))
    exps = [r for r in rows if r["kind"] == "experiment"]
    assert len(exps) == 3 and [r["kind"] for r in rows[:2]] == ["workspace", "commit"]
    by_candidate = {r["candidate"]: r for r in exps}
    mygnn = by_candidate["MyGNN"]
    assert mygnn["same_tasks_as_baseline"] and mygnn["tasks"] == ["random_tsp", "karate"]
    assert (mygnn["wins"], mygnn["losses"], mygnn["ties"]) == (cand["wins"], cand["losses"], cand["ties"])
    assert mygnn["rank"] == pytest.approx(cand["mean_rank"], abs=1e-4)
    small = [r for r in exps if r["tasks"] == ["karate_link_pred", "synthetic_triangles"]]
    assert len(small) == 1 and small[0]["seeds"] == 2 and not small[0]["same_tasks_as_baseline"]
    table = run(["netzbench", "exps", "--width", "100"], dst, env)
    assert max(len(line) for line in table.splitlines()) <= 100
    assert "karate_link_pred" in table and "as its baseline (2)" in table
