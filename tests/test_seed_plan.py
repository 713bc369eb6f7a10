"""`netzbench seeds` (issue 30): seeds in rounds, only where a comparison is still open."""

from __future__ import annotations

import json

from click.testing import CliRunner

from netzbench.cli import main
from netzbench.seed_plan import run_seed_plan
from netzbench.stats import decide, pocock_level

from helpers import as_settings, make_params


def test_rounds_train_only_the_cells_of_open_comparisons_and_count_what_they_saved(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = make_params(tasks=["karate"], models=["GCN", "GraphSAGE", "MLP", "CommonNeighbors"], seeds=[0],
                         train={"epochs": {"karate": 3}}, exec={"workers": 2})
    plan = run_seed_plan(as_settings(params), target_effect=0.05, looks=[3, 5], progress=False)
    on_disk = json.loads((tmp_path / "reports/seed_plan.json").read_text())
    assert on_disk["comparisons"] == json.loads(json.dumps(plan["comparisons"]))
    # CommonNeighbors cannot serve node classification, MLP is a baseline: one comparison, GCN vs GraphSAGE
    (comp,) = plan["comparisons"]
    assert (comp["model_a"], comp["model_b"]) == ("GCN", "GraphSAGE")
    assert comp["decision"] in ("different", "equivalent", "undecided")
    assert comp["n"] in (3, 5) and comp["level"] == pocock_level(0.05, [3, 5])
    assert set(plan["cells"]["karate"]) == {"GCN", "GraphSAGE"}
    assert plan["cells"]["karate"]["GCN"] == comp["n"]  # no more seeds than the comparison needed
    runs = plan["seed_runs"]
    assert runs["cap"] == 10 and runs["used"] == 2 * comp["n"] and runs["saved"] == 10 - runs["used"]
    # the decision is decide()'s on the seeds the report reads (recomputed from fresh records)
    from netzbench.report import BenchmarkReport
    from netzbench.report.runs import report_from_records
    from netzbench.run.execute import run_plans
    from netzbench.run.plan import plan_cell

    full = make_params(tasks=["karate"], models=["GCN", "GraphSAGE"], seeds=list(range(comp["n"])),
                       train={"epochs": {"karate": 3}}, exec={"workers": 2})
    plans = {m: plan_cell("karate", m, as_settings(full), data_root="data", quiet=True) for m in ("GCN", "GraphSAGE")}
    run_plans([p for p in plans.values() if p.jobs], as_settings(full), progress=False)  # every seed cached by the rounds
    assert not any(p.jobs for p in plans.values())
    values = report_from_records(BenchmarkReport, {"karate": {m: p.finish().to_dict() for m, p in plans.items()}},
                                 full["seeds"]).final_metrics()["karate"]
    again = decide(values["GCN"], values["GraphSAGE"], [3, 5], 0.05, 0.05)
    assert again.decision == comp["decision"] or (again.decision == "more" and comp["decision"] == "undecided")


def test_the_command_checks_the_looks_first(tmp_path):
    r = CliRunner()
    out = r.invoke(main, ["seeds", "--target-effect", "0.01", "--looks", "5,3", "--params", str(tmp_path / "p.yaml")])
    assert out.exit_code == 2 and "increasing seed counts" in out.output
    out = r.invoke(main, ["seeds", "--target-effect", "0", "--looks", "3,5"])
    assert out.exit_code == 2


def test_the_command_reads_the_seed_plan_block_and_its_options_win(tmp_path, monkeypatch):
    import yaml

    import netzbench.seed_plan as seed_plan

    calls = []
    monkeypatch.setattr(seed_plan, "run_seed_plan", lambda params, **kw: calls.append(kw))
    monkeypatch.chdir(tmp_path)
    params = {"tasks": ["karate"], "models": ["GCN", "GraphSAGE"],
              "seed_plan": {"target_effect": 0.03, "looks": [2, 4], "alpha": 0.1}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    r = CliRunner()
    assert r.invoke(main, ["seeds"]).exit_code == 0
    assert (calls[-1]["target_effect"], calls[-1]["looks"], calls[-1]["alpha"]) == (0.03, [2, 4], 0.1)
    assert r.invoke(main, ["seeds", "--target-effect", "0.01", "--looks", "3,6", "--alpha", "0.05"]).exit_code == 0
    assert (calls[-1]["target_effect"], calls[-1]["looks"], calls[-1]["alpha"]) == (0.01, [3, 6], 0.05)
    params["seed_plan"] = {"target_effect": None}  # looks and alpha default: 3,5,10,20 and report.alpha
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    out = r.invoke(main, ["seeds"])
    assert out.exit_code == 2 and "seed_plan.target_effect" in out.output and len(calls) == 2
    assert r.invoke(main, ["seeds", "--target-effect", "0.02"]).exit_code == 0
    assert (calls[-1]["looks"], calls[-1]["alpha"]) == ([3, 5, 10, 20], None)
    params["seed_plan"] = {"looks": [5, 3]}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    out = r.invoke(main, ["seeds", "--target-effect", "0.02"])
    assert out.exit_code == 2 and "`seed_plan.looks` must be increasing seed counts" in out.output
