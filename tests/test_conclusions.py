"""Every conclusion with its robustness: claims, the protocols they hold under, REPORT.md's first section."""

import json

import numpy as np
import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.conclusions import claim_id, collect, variant_values
from netzbench.report.facts import collect_facts
from netzbench.report.markdown import render_markdown
from netzbench.report.reproduction import STUDY_SCHEMA, study_effects
from netzbench.report.stage import report_metrics

from helpers import REPO

SEEDS = list(range(6))
FEW = [0, 1, 2]
MODELS = ["A", "B", "H", "F"]  # two models under test, a link heuristic, a structure-free baseline
KINDS = {"H": "heuristic", "F": "structure_free"}


def _noise(seed, n=6):
    return np.random.default_rng(seed).normal(0, 0.01, n)


#: the main run (= the study's paper protocol): on t1 the heuristic H beats the best GNN A, A beats B;
#: on t2 A beats B by a small margin, significant on 6 seeds but not on the first 3
PAPER = {"t1": {"A": 0.81 + _noise(1), "B": 0.71 + _noise(2), "H": 0.91 + _noise(3), "F": 0.60 + _noise(4)},
         "t2": {"A": 0.80 + np.array([0.02, 0.01, -0.005, 0.02, 0.015, 0.02]), "B": np.full(6, 0.80),
                "F": 0.50 + _noise(5)}}


def _report(final):
    hist = {t: {m: [{"train_loss": [1.0, 0.5], "test_auc": [v - 0.1, v]} for v in vals] for m, vals in bm.items()}
            for t, bm in final.items()}
    cells = {t: {m: {"baseline_kind": KINDS[m]} for m in bm if m in KINDS} for t, bm in final.items()}
    tasks = {t: {"metric": "test_auc", "direction": "higher", "family": "link_pred"} for t in final}
    return BenchmarkReport(SEEDS, hist, {"protocol": "paper", "protocol_overrides": {}}, tasks=tasks, cells=cells)


def _lists(final, pick=None):
    return {t: {m: [float(x) for x in (np.asarray(v)[pick] if pick else v)] for m, v in bm.items()}
            for t, bm in final.items()}


def _study():
    paper = _lists(PAPER)
    strict = json.loads(json.dumps(paper))
    strict["t1"]["H"] = [v - 0.16 for v in paper["t1"]["H"]]  # strict: the heuristic falls behind A
    same = _lists(PAPER, FEW)["t1"]  # link_split: on seeds 0-2 exactly the paper protocol
    flipped = dict(same, B=[a + 0.02 for a in same["A"]])  # link_negatives: B overtakes A on seeds 0-2
    return {"schema": STUDY_SCHEMA, "seeds": SEEDS, "variant_seeds": FEW, "models": MODELS, "tasks": {
        "t1": {"switches": ["link_split", "link_negatives"], "metric": "test_auc", "direction": "higher",
               "headlines": {"strict": {"metric": "test_mrr", "direction": "higher"}},
               "variants": {"paper": paper["t1"], "strict": strict["t1"], "link_split=10_10": same,
                            "link_negatives=fresh": flipped}},
        "t2": {"switches": ["graph_split"], "metric": "test_auc", "direction": "higher",
               "variants": {"paper": paper["t2"], "strict": paper["t2"],
                            "graph_split=80_10_10": _lists(PAPER, FEW)["t2"]}}}}


def _facts(study):
    return collect_facts(_report(PAPER), None, MODELS, study=study)


def _by_id(facts):
    return {c["id"]: c for c in facts.conclusions["claims"]}


def test_claims_and_where_they_hold():
    facts = _facts(_study())
    claims = _by_id(facts)
    assert len(claims) == len(facts.conclusions["claims"])  # ids are unique
    best = claims[claim_id("best_model", "t1", "A")]
    assert best["holds_under"] == ["paper", "strict", "link_split=10_10"]
    assert best["fails_under"] == ["link_negatives=fresh"] and best["status"] == "switch_dependent"
    verdict = claims[claim_id("gnn_vs_baseline", "t1", "A", "H")]
    assert verdict["outcome"] == ["A", "H", "baseline_better"] and verdict["selected_before_test"]
    assert verdict["status"] == "protocol_dependent" and ": H better, p_Holm = " in verdict["outcomes"]["paper"]
    assert verdict["outcomes"]["strict"].startswith("A (0.8") and ": A better, p_Holm" in verdict["outcomes"]["strict"]
    assert verdict["text"].endswith("(selected on the tested values)")
    # B overtakes A under link_negatives: the heuristic still beats the best GNN, but the claim names A, which
    # is not the best GNN there, so it fails (judged on the models it names, not on the verdict's label)
    assert verdict["fails_under"] == ["strict", "link_negatives=fresh"]
    assert verdict["holds_under"] == ["paper", "link_split=10_10"]
    pair = claims[claim_id("significant_pair", "t1", "A", "B")]
    assert pair["fails_under"] == ["link_negatives=fresh"] and "strict" in pair["holds_under"]
    # graph_split does not apply to t1: its claims are not tested there
    assert all("graph_split=80_10_10" not in c["outcomes"] for c in claims.values() if c["task"] == "t1")
    free = claims[claim_id("gnn_vs_structure_free", "t1", "A", "F")]  # B is the best GNN under link_negatives
    assert free["status"] == "switch_dependent" and free["fails_under"] == ["link_negatives=fresh"]
    assert free["outcome"] == ["A", "F", "A"] and free["text"].startswith("`t1`: the best GNN (A) is significantly")
    order = claims[claim_id("mean_rank_order", None, "A", "B")]
    assert order["text"].startswith("A ranks ahead of B") and order["fails_under"] == ["link_negatives=fresh"]
    assert claims[claim_id("friedman")]["outcome"] == "no_reject"  # k = 2, N = 2: chi2 = 2, p = 0.157
    assert {c["kind"] for c in claims.values()} >= {"best_model", "gnn_vs_baseline", "gnn_vs_structure_free",
                                                    "significant_pair", "mean_rank_order", "friedman"}


def test_fewer_seeds_are_compared_on_those_seeds():
    claims = _by_id(_facts(_study()))
    # t2's A > B is significant on 6 seeds, not on seeds 0-2: the paper protocol itself does not make it there,
    # so the variant is undecided -- never a failure that only reflects the fewer seeds
    weak = claims[claim_id("significant_pair", "t2", "A", "B")]
    assert weak["undecided"] == ["graph_split=80_10_10"] and weak["fails_under"] == []
    assert weak["status"] == "robust" and "seeds 0–2: not significant" in weak["outcomes"]["graph_split=80_10_10"]
    assert "paper protocol on these seeds: not significant" in weak["outcomes"]["graph_split=80_10_10"]
    # t1's claims on seeds 0-2 under link_split are the paper protocol's own values: they hold
    strong = claims[claim_id("significant_pair", "t1", "A", "B")]
    assert "link_split=10_10" in strong["holds_under"]
    assert "seeds 0–2: A better" in strong["outcomes"]["link_split=10_10"]


def test_each_variant_reads_its_own_headline():
    study = _study()
    report = _report(PAPER)
    _, heads = variant_values(report, study, "strict", SEEDS)
    assert heads["t1"] == ("test_mrr", "higher", None) and heads["t2"] == ("test_auc", "higher", None)
    final, _ = variant_values(report, study, "link_split=10_10", FEW)
    assert np.allclose(final["t1"]["A"], PAPER["t1"]["A"][:3])
    assert np.allclose(final["t2"]["A"], PAPER["t2"]["A"][:3])  # a task the switch cannot move: paper values
    study["tasks"]["t1"]["variants"]["strict"]["A"] = [0.5] * 5
    with pytest.raises(ValueError, match=r"t1/strict/A has 5 values for the 6 seeds"):
        variant_values(report, study, "strict", SEEDS)


def test_report_section_and_marks():
    facts = _facts(_study())
    md = render_markdown(facts)
    assert md.index("## What holds under every protocol") < md.index("## 1. Protocol")
    top = md[md.index("## What holds"):md.index("## 1. Protocol")]
    assert "**Hold under `paper` and `strict`**" in top and "**Depend on the protocol**" in top
    assert "- Best model: `t1` A ⚐ (not under `link_negatives=fresh`)" in top
    assert ("- `t1`: the best baseline (H, link heuristic) is significantly better than the best GNN (A) (selected on "
            "the tested values) — not under `strict`: A (0.8") in top
    assert "seeds 0–2" in top
    # where the claims are stated: the verdict ⚑, the best cell and the pair ⚐, the robust pair unmarked
    verdict_row = next(line for line in md.splitlines() if line.startswith("| `t1` | A (0.8"))
    assert "no: the baseline is better ⚑" in verdict_row
    assert "| `t1` | **A** ⚐ | B |" in md and "| `t2` | **A** | B |" in md
    best_row = next(line for line in md.splitlines() if "| `t1` |" in line and "**0.8" in line)
    assert "** ⚐" in best_row
    assert "⚑: does not hold under the `strict` protocol" in md
    assert "Order relations that depend on the protocol: A ahead of B ⚐" in md
    metrics = report_metrics(facts)
    assert metrics["conclusions"] == facts.conclusions["claims"] and all(c["holds_under"] for c in
                                                                          metrics["conclusions"])
    assert metrics["conclusions_basis"]["variants"]["link_split=10_10"]["seeds"] == FEW
    json.dumps(metrics, allow_nan=False)  # JSON-safe


def test_without_a_study_one_line_and_the_main_protocol_only():
    facts = _facts(None)
    md = render_markdown(facts)
    top = md[md.index("## What holds"):md.index("## 1. Protocol")]
    assert [line for line in top.splitlines()[1:] if line] == [
        "Not tested: no protocol study in this run (`netzbench protocols` writes `reports/protocol_study.json`), so "
        f"the {len(facts.conclusions['claims'])} claim(s) below are the `paper` protocol's alone "
        "(`metrics/report.json` → `conclusions`)."]
    assert facts.conclusions["claims"] and all(c["holds_under"] == ["paper"] and c["not_run"] == ["strict"]
                                               and c["status"] == "untested" for c in facts.conclusions["claims"])
    assert "⚑" not in md and "⚐" not in md
    stale = _study()
    stale["tasks"]["t1"]["variants"]["paper"]["A"][0] += 0.01  # another run's paper protocol
    facts = _facts(stale)
    assert facts.conclusions["basis"]["study"] == "stale"
    assert "Not tested: the protocol study is stale" in render_markdown(facts)
    assert all(c["holds_under"] == ["paper"] for c in facts.conclusions["claims"])


def test_published_study_gives_the_strict_reports_own_claims():
    """The published run's claims under `strict`, from the study's values, are exactly what the strict protocol's
    own report (its histories, reports/strict/benchmark.json) says, and the single switches ran on fewer seeds."""
    paths = [REPO / p for p in ("reports/benchmark.json", "reports/protocol_study.json",
                                "reports/strict/benchmark.json")]
    if not all(p.is_file() for p in paths):
        pytest.skip("no published run")
    report, strict = BenchmarkReport.from_json(paths[0]), BenchmarkReport.from_json(paths[2])
    study = json.loads(paths[1].read_text())
    effects = study_effects(study, report.final_metrics(), report.seeds)
    if effects["stale"]:
        pytest.skip("the published protocol study is stale")
    out = collect(report, study, effects, candidate=None, roster=report.models)
    claims = out["claims"]
    assert out["basis"]["study"] == "used" and len({c["id"] for c in claims}) == len(claims) > 20
    verdicts = {r["task"]: r for r in strict.baseline_comparison()}
    pairs = {(r["task"], r["model_a"], r["model_b"]): r for r in strict.pairwise()}
    fr = strict.friedman()
    checked = 0
    for c in claims:
        assert c["holds_under"][0] == "paper" and c["status"] in ("robust", "switch_dependent",
                                                                  "protocol_dependent", "untested")
        if "strict" not in c["holds_under"] + c["fails_under"]:
            continue
        holds = "strict" in c["holds_under"]
        if c["kind"] == "gnn_vs_baseline":  # judged on the models it names (report/claims.py)
            row = verdicts[c["task"]]
            assert holds == ([row["best_gnn"], row["best_baseline"], row["verdict"]] == c["outcome"]), c["id"]
        elif c["kind"] == "significant_pair":
            a, b = c["models"]
            row = pairs.get((c["task"], a, b)) or pairs[(c["task"], b, a)]
            assert holds == (row["better"] == a), c["id"]
        elif c["kind"] == "mean_rank_order":
            a, b = c["models"]
            assert holds == (fr["mean_ranks"][a] < fr["mean_ranks"][b]), c["id"]
        elif c["kind"] == "friedman":
            assert holds == ((fr["p_value"] < report.alpha) == (c["outcome"] == "reject"))
        else:
            continue
        checked += 1
    assert checked > 10
    fewer = [n for n, v in out["basis"]["variants"].items() if v["seeds"] != report.seeds]
    for c in claims:
        for name in fewer:
            if name in c["outcomes"] and name not in c["not_run"]:  # not run: a task the study has not reached
                assert c["outcomes"][name].startswith(f"seeds {out['basis']['variants'][name]['seeds'][0]}")


def test_candidate_wins_are_claims_too():
    facts = collect_facts(_report(PAPER), "A", MODELS, study=_study())
    claims = _by_id(facts)
    win = claims[claim_id("candidate", "t1", "A", "B")]
    assert win["text"] == "`t1`: the candidate A is significantly better than B"
    assert win["fails_under"] == ["link_negatives=fresh"] and win["status"] == "switch_dependent"
    assert claims[claim_id("candidate", "t2", "A", "B")]["status"] == "robust"
    md = render_markdown(facts)
    section = md[md.index("## 8. Candidate"):md.index("## 9.")]
    assert "Wins and losses that depend on the protocol: `t1` A > B ⚐." in section


# ----------------------------------------------------- the cases: claims judged on the models they name
def _named_report(final, kinds):
    hist = {t: {m: [{"test_auc": [float(v)]} for v in vals] for m, vals in bm.items()} for t, bm in final.items()}
    cells = {t: {m: {"baseline_kind": kinds[m]} for m in bm if m in kinds} for t, bm in final.items()}
    tasks = {t: {"metric": "test_auc", "direction": "higher", "family": "link_pred"} for t in final}
    return BenchmarkReport(SEEDS, hist, {"protocol": "paper", "protocol_overrides": {}}, tasks=tasks, cells=cells)


def _named_study(paper, strict, models):
    return {"schema": STUDY_SCHEMA, "seeds": SEEDS, "variant_seeds": SEEDS, "models": models, "tasks": {
        t: {"switches": [], "metric": "test_auc", "direction": "higher",
            "headlines": {"strict": {"metric": "test_mrr", "direction": "higher"}},
            "variants": {"paper": _lists(paper)[t], "strict": _lists(strict)[t]}} for t in paper}}


def test_ising_a_heuristic_beating_the_best_gnn_fails_where_a_degenerate_mlp_beats_another_gnn():
    """Ising: under paper AdamicAdar beats the best GNN GCN; under strict every heuristic scores 0.039, below every
    GNN, and the best baseline is the constant MLP, which beats the best GNN GraphTransformer. The verdict label
    (baseline_better) is the same, the claim (a heuristic, AdamicAdar, beats GCN) is not."""
    kinds = {"AdamicAdar": "heuristic", "CommonNeighbors": "heuristic", "MLP": "structure_free"}
    paper = {"ising_lattice": {"GCN": 0.67 + _noise(1), "GraphTransformer": 0.66 + _noise(2),
                               "AdamicAdar": 0.75 + _noise(3), "CommonNeighbors": 0.74 + _noise(4),
                               "MLP": 0.50 + _noise(5)}}
    strict = {"ising_lattice": {"GCN": 0.060 + _noise(6) / 10, "GraphTransformer": 0.070 + _noise(7) / 10,
                                "AdamicAdar": np.full(6, 0.039), "CommonNeighbors": np.full(6, 0.039),
                                "MLP": np.full(6, 0.0886)}}  # the constant predictor's MRR, degenerate
    models = list(paper["ising_lattice"])
    report = _named_report(paper, kinds)
    study = _named_study(paper, strict, models)
    out = collect(report, study, study_effects(study, report.final_metrics(), SEEDS), candidate=None, roster=models)
    claims = {c["id"]: c for c in out["claims"]}
    claim = claims[claim_id("gnn_vs_baseline", "ising_lattice", "GCN", "AdamicAdar")]
    assert claim["outcome"] == ["GCN", "AdamicAdar", "baseline_better"]
    assert claim["text"].startswith("`ising_lattice`: the best baseline (AdamicAdar, link heuristic) is significantly "
                                    "better than the best GNN (GCN)")
    strict_row = {r["task"]: r for r in _named_report(strict, kinds).baseline_comparison()}["ising_lattice"]
    assert (strict_row["best_gnn"], strict_row["best_baseline"], strict_row["verdict"]) == (
        "GraphTransformer", "MLP", "baseline_better")  # what the verdict-only rule took for "holds"
    assert claim["fails_under"] == ["strict"] and claim["status"] == "protocol_dependent"
    assert claim["outcomes"]["strict"].startswith("GraphTransformer (0.070) vs MLP (0.089): MLP better, p_Holm = ")


def test_internet_as_gcn_beating_mlp_fails_where_mlp_beats_gcn():
    """Internet AS: under paper GCN beats the structure-free MLP; under strict MLP beats GCN, while another GNN
    (GraphTransformer) is the best and beats MLP: "GCN beats MLP" fails, and the text names the winner."""
    kinds = {"MLP": "structure_free", "CommonNeighbors": "heuristic"}
    paper = {"internet_as": {"GCN": 0.966 + _noise(1) / 10, "GraphTransformer": 0.55 + _noise(2),
                             "MLP": 0.90 + _noise(3) / 10, "CommonNeighbors": 0.80 + _noise(4) / 10}}
    strict = {"internet_as": {"GCN": 0.030 + _noise(5) / 10, "GraphTransformer": 0.038 + _noise(6) / 10,
                              "MLP": 0.035 + _noise(7) / 10, "CommonNeighbors": 0.0349 + _noise(8) / 10}}
    models = list(paper["internet_as"])
    report = _named_report(paper, kinds)
    study = _named_study(paper, strict, models)
    out = collect(report, study, study_effects(study, report.final_metrics(), SEEDS), candidate=None, roster=models)
    claims = {c["id"]: c for c in out["claims"]}
    verdict = claims[claim_id("gnn_vs_baseline", "internet_as", "GCN", "MLP")]
    assert verdict["outcome"] == ["GCN", "MLP", "gnn_better"] and verdict["fails_under"] == ["strict"]
    assert "GraphTransformer (0.038) vs MLP (0.035): GraphTransformer better" in verdict["outcomes"]["strict"]
    free = claims[claim_id("gnn_vs_structure_free", "internet_as", "GCN", "MLP")]
    assert free["fails_under"] == ["strict"] and free["text"] == (
        "`internet_as`: the best GNN (GCN) is significantly better than the structure-free MLP (selected on the "
        "tested values)")
    # the GNN pair flips under strict too: GraphTransformer, not GCN, is the better one there
    pair = claims[claim_id("significant_pair", "internet_as", "GCN", "GraphTransformer")]
    assert "strict" in pair["fails_under"]


def test_outcome_texts_name_the_winner_and_the_direction():
    """"GCN vs MLP: not significant in the GNN's favour (p_Holm = 3.06e-07)" said the opposite of the data: the
    MLP won. The text now names the winner."""
    from netzbench.report.claims import describe, state_of

    kinds = {"MLP": "structure_free", "CommonNeighbors": "heuristic"}
    final = {"fb15k_237": {"GCN": 0.60 + _noise(1), "MLP": 0.70 + _noise(2), "CommonNeighbors": 0.80 + _noise(3)}}
    report = _named_report(final, kinds)
    st = state_of(report)
    from netzbench.report.claims import main_claims

    texts = {c.kind: (c, describe(c, st)) for c in main_claims(report, st, None, ["GCN"], kinds)}
    claim, said = texts["gnn_vs_structure_free"]
    assert claim.text == ("`fb15k_237`: the structure-free MLP is significantly better than the best GNN (GCN) "
                          "(selected on the tested values)")
    assert said.startswith("GCN vs MLP: MLP better, p_Holm = ")
    claim, said = texts["structure_only_vs_free"]
    assert claim.text.startswith("`fb15k_237`: the best structure-only baseline (CommonNeighbors) is significantly "
                                 "better than the structure-free MLP")
    assert said.startswith("CommonNeighbors vs MLP: CommonNeighbors better, p_Holm = ")
    final["fb15k_237"]["CommonNeighbors"] = 0.50 + _noise(3)  # the reverse: MLP beats the heuristic
    report = _named_report(final, kinds)
    st = state_of(report)
    texts = {c.kind: (c, describe(c, st)) for c in main_claims(report, st, None, ["GCN"], kinds)}
    claim, said = texts["structure_only_vs_free"]
    assert claim.text.startswith("`fb15k_237`: the structure-free MLP is significantly better than the best "
                                 "structure-only baseline (CommonNeighbors)")
    assert said.startswith("CommonNeighbors vs MLP: MLP better") and "not significant" not in said


def test_a_variant_with_every_model_below_its_constant_does_not_rank_that_task():
    """The study records each variant's constant predictor score; a task no model informs under the variant
    (Internet AS under strict) leaves that variant's ranks, as it leaves the strict report's own."""
    from netzbench.report.conclusions import variant_state

    paper = {t: {"A": 0.80 + _noise(i), "B": 0.70 + _noise(i + 1)} for i, t in enumerate(["t1", "t2", "t3"])}
    strict = json.loads(json.dumps(_lists(paper)))
    strict["t3"] = {"A": [0.03] * 6, "B": [0.05] * 6}  # both below the constant 0.0886
    kinds = {}
    report = _named_report(paper, kinds)
    study = _named_study(paper, strict, ["A", "B"])
    study["tasks"]["t3"]["headlines"]["strict"]["constant"] = 0.0886
    st = variant_state(report, study, "strict", SEEDS)
    assert st.friedman["tasks"] == ["t1", "t2"]
    del study["tasks"]["t3"]["headlines"]["strict"]["constant"]  # a study that records none: every task ranked
    assert variant_state(report, study, "strict", SEEDS).friedman["tasks"] == ["t1", "t2", "t3"]
