"""``reports/REPORT.md``: the readable report for a careful researcher.

:func:`render_markdown` turns a :class:`~netzbench.report.core.BenchmarkReport`
(and the parameters of the run) into Markdown with these sections:

1. protocol; 2. results per task (the paper's Table 3 layout: mean ± CI, best
per row, CI overlap with the winner); 3. significant differences; 4. node
classification, paired t and Wilcoxon side by side (Table 2 layout); 5. across
tasks: Friedman, Nemenyi CD diagram (Figure 3) with a plain-language reading,
aggregations, rank stability; 6. power floor; 7. equivalence verdicts;
8. candidate; 9. missing cells; 10. compute cost; 11. comparison with the
paper's Table 3 (with a marked paragraph on protocol differences); 12. files.

Every number comes from the report's methods under its current options, so
the text always matches the tables and figures written next to it.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from .core import BenchmarkReport, metric_label
from .formatting import number as _f
from .formatting import p_value as _p
from .paper import compare_with_paper, load_paper_table, protocol_notes

NODE_ENCODERS = ("GCN", "GAT", "GraphSAGE", "GraphTransformer")


def _table(headers: list[str], rows: list[list[Any]], align: str | None = None) -> list[str]:
    align = align or "l" * len(headers)
    sep = ["---:" if a == "r" else (":---:" if a == "c" else "---") for a in align]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h:d} h {m:02d} min {sec:02d} s" if h else f"{m:d} min {sec:02d} s"


def _arrow(direction: str) -> str:
    return "↑" if direction == "higher" else "↓"


def _cell_text(r: dict | None, status: str, n_seeds: int, digits: int = 3) -> str:
    if r is None or r["n_seeds"] == 0:
        return {"incompatible": "n/a (incompatible)", "no cell": "n/a", "unavailable": "unavailable"}.get(
            status, status or "missing")
    text = f"{r['mean']:.{digits}f}"
    if math.isfinite(r["half_width"]):
        text += f" ± {r['half_width']:.{digits}f}"
    else:
        text += " (1 seed, no CI)"
    if 1 < r["n_seeds"] < n_seeds:
        text += f" ({r['n_seeds']}/{n_seeds} seeds)"
    return text


def _overlaps(a: dict, b: dict) -> bool:
    vals = (a["lo"], a["hi"], b["lo"], b["hi"])
    return all(math.isfinite(v) for v in vals) and a["lo"] <= b["hi"] and b["lo"] <= a["hi"]


def _winners(report: BenchmarkReport, task: str, cells: dict[str, dict]) -> set[str]:
    means = {m: r["mean"] for m, r in cells.items() if r["n_seeds"] > 0 and math.isfinite(r["mean"])}
    if not means:
        return set()
    target = (max if report.task_info[task].direction == "higher" else min)(means.values())
    return {m for m, v in means.items() if v == target}


def _unavailable_reason(report, task: str) -> str:
    """The data-unavailable reason of a task (not the incompatible cells' reasons beside it)."""
    reasons = {report.cell_reason(task, m) for m in report.histories[task] if report.cell_status(task, m) == "unavailable"}
    return "; ".join(sorted(r for r in reasons if r))


def render_markdown(report: BenchmarkReport, params: dict, metrics: dict, *, candidate: str | None = None,
                    equivalence: list[dict] | None = None, equivalence_error: str | None = None,
                    aggregation: str = "uniform", weights: dict | None = None) -> str:
    """The whole REPORT.md text (see the module docstring)."""
    L: list[str] = ["# netzbench report", ""]
    summary = report.summary()
    nested = report._summary_nested(summary)
    fr = report.friedman()
    unavailable = report.unavailable_tasks()
    present = report.present_tasks()
    n_total = len(report.tasks)
    ci_name = f"{report.ci:.0%} " + ("Student-t" if report.ci_method == "t" else
                                    f"percentile-bootstrap (B = {report.bootstrap_n}, seed {report.bootstrap_seed})")
    pw_name = {"t": "paired t", "wilcoxon": "Wilcoxon signed-rank"}[report.pairwise_method]

    no_results = report.tasks_without_results()
    failed_tasks = {t: why for t, why in no_results.items() if t not in unavailable}
    ranked = [t for t in report.tasks if report.rank_tasks is None or t in report.rank_tasks]
    scope = (f"the **N = {fr['n_tasks']} tasks present**" + (
        f" of the {len(ranked)} in `report.rank_tasks`" if report.rank_tasks is not None else f", not {n_total}"))
    if unavailable:
        L += [f"> **⚠ DATA UNAVAILABLE for {len(unavailable)} of {n_total} tasks:** "
              + "; ".join(f"`{t}` ({_unavailable_reason(report, t) or why})" for t, why in unavailable.items())
              + f". Their cells are reported as missing, and every across-task statistic ranks over {scope}.", ""]
    if failed_tasks:
        L += [f"> **⚠ NO RESULTS for {len(failed_tasks)} of {n_total} tasks** (every run failed or is missing): "
              + "; ".join(f"`{t}` ({why})" for t, why in failed_tasks.items())
              + f". Every across-task statistic ranks over {scope}.", ""]
    L += [f"Benchmark of {len(report.models)} models on {len(present)} task(s) with results "
          f"({n_total} listed), {len(report.seeds)} seeds each. Every number below is recomputed from the raw "
          "per-epoch histories in `reports/benchmark.json` "
          "(`BenchmarkReport.from_json(\"reports/benchmark.json\")`).", ""]

    # ------------------------------------------------------------------ 1
    L += ["## 1. Protocol", ""]
    train = params.get("train", {})
    epochs = train.get("epochs", {})
    task_bits = []
    for t in report.tasks:
        info = report.task_info[t]
        bits = [b for b in (info.category, info.family) if b]
        if t in epochs:
            bits.append(f"{epochs[t]} epochs")
        task_bits.append(f"`{t}` ({', '.join(bits)})" if bits else f"`{t}`")
    L.append(f"- **Tasks** ({n_total}): " + ", ".join(task_bits) + ".")
    roster = list(params.get("models", report.models))
    L.append(f"- **Models** (roster): {', '.join(roster)}"
             + (f"; candidate: **{candidate}**" if candidate else "") + ".")
    L.append(f"- **Seeds**: S = {len(report.seeds)} ({', '.join(map(str, report.seeds))}); every (task, model, "
             "seed) trains independently, with its random number generators reset.")
    if train:
        L.append(f"- **Training**: hidden channels {train.get('hidden_channels')}, full-batch Adam; "
                 + "; ".join(f"{fam}: lr {train[fam]['lr']}, weight decay {train[fam].get('weight_decay', 0)}"
                             for fam in ("node_cls", "graph_cls", "graph_reg", "link_pred") if fam in train) + ".")
    if report.epoch_selection == "final":
        sel = "`final` — the held-out test metric at the last evaluated epoch (the paper's protocol)"
    else:
        sel = ("`best_val` — the held-out test metric at the epoch with the best validation value of the same "
               "metric (earliest on ties); the reported series is never used for the choice")
    L.append(f"- **Epoch selection**: {sel}. The epoch used for every (task, model, seed) is listed in "
             "`reports/selected_epochs.csv`.")
    unsupported = [r for r in report.epoch_selection_support() if not r["best_val_possible"] and r["n_runs"]]
    if unsupported:
        L.append("  - `best_val` is not possible for: " + "; ".join(f"`{r['task']}` ({r['reason']})"
                                                                     for r in unsupported) + ".")
    L.append(f"- **Per cell**: mean over seeds ± {ci_name} confidence-interval half-width "
             "(one seed gives no interval and is marked so).")
    L.append(f"- **Within a task**: every model pair compared on seed-aligned values (a seed missing for one "
             f"model is dropped from that pair only); headline test **{pw_name}**, both the paired t and the "
             f"Wilcoxon tables are written; Holm–Bonferroni correction within each task; α = {report.alpha:g}.")
    L.append(f"- **Across tasks**: per-task ranks (1 = best, metric direction applied per task, so MAE ranks "
             f"lower-is-better in the same diagram as accuracy and AUC), Friedman test and Nemenyi critical "
             f"difference over the models with results on every task present; mean-rank aggregation for "
             f"`plots/mean_ranks.*`: `{aggregation}`.")
    if report.equivalence_margin is not None:
        L.append(f"- **Equivalence**: TOST with margin ±{report.equivalence_margin} (metric units), Holm within "
                 "task.")
    on_missing = (params.get("data") or {}).get("on_missing")
    if on_missing == "skip":
        L.append("- **`data.on_missing: skip`**: a task whose data cannot be obtained is recorded as unavailable "
                 "with the reason, its cells are reported as missing and the ranks use the tasks present.")
    L.append("")

    # ------------------------------------------------------------------ 2
    models = report.models
    L += [f"## 2. Results per task (mean ± {ci_name} CI half-width over seeds)", ""]
    rows = []
    for t in report.tasks:
        info = report.task_info[t]
        cells = nested.get(t, {})
        win = _winners(report, t, cells)
        out = []
        for m in models:
            r = cells.get(m)
            text = _cell_text(r, report.cell_status(t, m), len(report.seeds))
            if r is not None and m in win:
                text = f"**{text}**"
            elif r is not None and r["n_seeds"] > 0 and any(_overlaps(r, cells[w]) for w in win):
                text += " †"
            out.append(text)
        rows.append([info.category or "", f"`{t}`", info.family or "", f"{metric_label(info.metric)} "
                     f"{_arrow(info.direction)}"] + out)
    L += _table(["category", "task", "kind", "metric"] + models, rows, "llll" + "r" * len(models))
    L += ["", "**Bold**: best mean in the row. †: the cell's confidence interval overlaps the best cell's "
          "interval (a coarse indication that the two are not clearly separated at this number of seeds; the "
          "paired tests below are the actual comparison). n/a (incompatible): the architecture does not serve "
          "the task. Compare cells within a row only: metrics differ between rows.", "",
          "Figures: `plots/dashboard.png` (one panel per research category, as the paper's Figure 2), "
          "`plots/forest.png` (per task, mean and CI per model), `plots/learning_curves.png` (mean ± t-CI per "
          "epoch; ▼ marks the selected epoch).", "",
          "![per-category dashboard](../plots/dashboard.png)", ""]

    # ------------------------------------------------------------------ 3
    pw = report.pairwise()
    sig = [r for r in pw if r["significant"]]
    L += [f"## 3. Significant paired differences ({pw_name}, Holm within task, α = {report.alpha:g})", ""]
    L.append(f"{len(sig)} of {len(pw)} within-task comparisons are significant after Holm correction.")
    L.append("")
    if sig:
        rows = []
        for r in sig:
            worse = r["model_b"] if r["better"] == r["model_a"] else r["model_a"]
            gain = abs(r["mean_diff"])
            dropped = f" (dropped seeds {', '.join(map(str, r['dropped_seeds']))})" if r["dropped_seeds"] else ""
            rows.append([f"`{r['task']}`", f"**{r['better']}**", worse, f"{gain:.4f}", _f(abs(r["cohens_dz"]), 2),
                         _p(r["p_raw"]), _p(r["p_holm"]), f"{r['n_seeds']}{dropped}"])
        L += _table(["task", "better", "worse", "\\|Δμ\\|", "\\|d_z\\|", "p (raw)", "p (Holm)", "seeds"], rows,
                    "lllrrrrl")
        L.append("")
    L += ["The \\|Δμ\\| column is the absolute mean paired difference in metric units; d_z = Δμ / σ_d is Cohen's "
          "effect size "
          "of the paired differences. Full tables: `reports/pairwise_t.csv`, `reports/pairwise_wilcoxon.csv`, "
          "`reports/pairwise.tex`; matrix view: `plots/pairwise.png`.", ""]

    # ------------------------------------------------------------------ 4
    node_tasks = [t for t in present if report.task_info[t].family == "node_cls"]
    L += ["## 4. Node classification: paired t and Wilcoxon side by side", ""]
    if node_tasks:
        t_rows = {(r["task"], r["model_a"], r["model_b"]): r for r in report.pairwise("t")}
        w_rows = {(r["task"], r["model_a"], r["model_b"]): r for r in report.pairwise("wilcoxon")}
        rows, agree, total = [], 0, 0
        for key, rt in t_rows.items():
            if key[0] not in node_tasks:
                continue
            rw = w_rows[key]
            same = rt["significant"] == rw["significant"]
            total += 1
            agree += same
            rows.append([f"`{key[0]}`", f"{key[1]} vs. {key[2]}", f"{rt['mean_diff']:+.3f}",
                         _p(rt["p_holm"]) + ("*" if rt["significant"] else ""),
                         _p(rw["p_holm"]) + ("*" if rw["significant"] else ""), "✓" if same else "✗"])
        L += _table(["task", "comparison", "Δμ", "p_Holm (t)", "p_Holm (Wilcoxon)", "agree"], rows, "llrrrc")
        L.append("")
        L.append(f"Δμ = mean(first − second); * marks p_Holm < {report.alpha:g}. The two tests agree on "
                 f"{agree} of {total} comparisons (agreement = same significance decision). Pairs where they "
                 "agree deserve more confidence than pairs where they disagree.")
        L.append("")
    else:
        L += ["No node-classification task has results in this run.", ""]

    # ------------------------------------------------------------------ 5
    L += ["## 5. Across tasks: Friedman test and critical-difference diagram", ""]
    if no_results:
        L.append(f"**Ranks over the N = {fr['n_tasks']} tasks present** ({len(no_results)} of {n_total} listed "
                 "tasks have no results: " + ", ".join(f"`{t}`" for t in no_results) + ").")
        L.append("")
    if fr["excluded"]:
        L.append("Excluded from the ranks (a model must have results on every task present): "
                 + "; ".join(f"**{m}** — {why}" for m, why in fr["excluded"].items()) + ".")
        if "GIN" in fr["excluded"]:
            L.append("GIN is therefore not in the diagram: like the paper's Figure 3, it covers only the models "
                     "with a result on every task present"
                     + (f" ({', '.join(fr['models'])})." if fr["models"] else "."))
        L.append("")
    if fr["k"] >= 2 and fr["n_tasks"] >= 1:
        ranks = ", ".join(f"{m} {r:.2f}" for m, r in sorted(fr["mean_ranks"].items(), key=lambda kv: kv[1]))
        L.append(f"Mean ranks over N = {fr['n_tasks']} tasks and k = {fr['k']} models (1 = best): {ranks}.")
        L.append("")
        L.append(f"Friedman χ²({fr['df']}) = {fr['chi2']:.3f}, p = {_p(fr['p_value'])}; Iman–Davenport "
                 f"F = {_f(fr['iman_davenport_f'])}, p = {_p(fr['iman_davenport_p'])}. Nemenyi critical difference "
                 f"at α = {report.alpha:g}: CD = {fr['cd']:.3f} (k = {fr['k']}, N = {fr['n_tasks']}). Largest mean-rank "
                 f"gap: {fr['max_gap']:.2f}.")
        L.append("")
        reject = math.isfinite(fr["p_value"]) and fr["p_value"] < report.alpha
        one_clique = len(fr["cliques"]) == 1 and len(fr["cliques"][0]) == fr["k"]
        if one_clique:
            reading = ("**Reading.** All models fall within one Nemenyi clique: no mean rank differs from another "
                       "by more than the CD, so this benchmark does not establish any ordering of these models at "
                       f"α = {report.alpha:g}")
            reading += (" (and the Friedman test does not reject equal mean ranks either)." if not reject else
                        ", even though the Friedman omnibus test rejects equal mean ranks — the post-hoc test is too "
                        "coarse at this N to say which models differ.")
        elif fr["max_gap"] >= fr["cd"]:
            pairs = []
            mr = fr["mean_ranks"]
            names = sorted(mr, key=mr.get)
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    if mr[b] - mr[a] >= fr["cd"]:
                        pairs.append(f"{a} < {b}")
            reading = ("**Reading.** These pairs differ in mean rank by at least the CD (Nemenyi, α = "
                       f"{report.alpha:g}): {', '.join(pairs)}. Models joined by a clique bar are not "
                       "distinguishable.")
            if not reject:
                reading += (" The Friedman omnibus test does not reject, however, so these post-hoc differences "
                            "should not be claimed.")
        else:
            reading = "**Reading.** No pair of models differs in mean rank by more than the CD."
        L.append(reading)
        L.append("")
        L.append("What the diagram shows: where each model sits on the mean-rank axis (lower is better; per-task "
                 "ranks already account for the metric direction), how long a gap must be to count (the CD bar, "
                 "fixed by k and N alone), and which models are statistically interchangeable (clique bars). "
                 "What it does not show: how large the metric differences are on any task (a rank is a rank: a "
                 "0.001 AUC lead counts as much as a 0.3 lead, and a small task as much as a large one), whether a "
                 "model is better on a particular task (see sections 2–3), or anything about models excluded for "
                 "missing cells. CD shrinks as 1/√N, so with few tasks only large rank gaps can be certified.")
        if fr["n_for_observed_gap"] and fr["max_gap"] < fr["cd"]:
            L.append("")
            L.append(f"The largest observed gap ({fr['max_gap']:.2f}) would become significant at about "
                     f"N = {fr['n_for_observed_gap']} tasks, if it persisted.")
        L.append("")
        L.append("![critical difference diagram](../plots/critical_difference.png)")
        L.append("")
        # the paper's Figure 3 set
        enc = [m for m in NODE_ENCODERS if m in report.models]
        if len(enc) == len(NODE_ENCODERS) and sorted(enc) != sorted(fr["models"]):
            f3 = report.friedman(models=enc)
            if f3["k"] == len(enc):
                L.append(f"Restricted to the paper's Figure 3 set ({', '.join(enc)}): Friedman "
                         f"χ²({f3['df']}) = {f3['chi2']:.3f}, p = {_p(f3['p_value'])}, CD = {f3['cd']:.3f}, mean "
                         "ranks " + ", ".join(f"{m} {r:.2f}" for m, r in sorted(f3["mean_ranks"].items(),
                                                                                   key=lambda kv: kv[1])) + ".")
                L.append("")
        paper = load_paper_table()
        if paper and "friedman" in paper:
            pf = paper["friedman"]
            L.append(f"The paper (k = {pf['k']}, N = {pf['n_tasks']}) reports χ²₃ = {pf['chi2']}, p = "
                     f"{pf['p_value']}, CD = {pf['cd']}, mean ranks " + ", ".join(
                         f"{m} {r:.2f}" for m, r in pf["mean_ranks"].items()) + ".")
            if fr["n_tasks"] != pf["n_tasks"] or fr["k"] != pf["k"]:
                L.append(f"Here k = {fr['k']} and N = {fr['n_tasks']}, so CD = {fr['cd']:.2f} instead of the "
                         f"paper's {pf['cd']}: " + ("fewer tasks widen the threshold (CD ∝ 1/√N)."
                                                    if fr["n_tasks"] < pf["n_tasks"] else
                                                    "the threshold depends on k and N only."))
            L.append("")
        # aggregations
        rows = []
        aggs = {"uniform": report.mean_ranks("uniform")}
        for name in ("reliability", "hierarchical"):
            try:
                aggs[name] = report.mean_ranks(name)
            except ValueError:
                pass
        if weights:
            try:
                aggs["custom"] = report.mean_ranks("custom", weights=weights)
            except ValueError:
                pass
        for m in fr["models"]:
            rows.append([m] + [_f(aggs[a].get(m), 2) for a in aggs])
        L.append("Mean ranks under other aggregations (diagnostics: only `uniform` has the Friedman/Nemenyi null; "
                 "`reliability` weighs tasks by 1 / mean CI half-width, `hierarchical` averages within research "
                 "category first):")
        L.append("")
        L += _table(["model"] + list(aggs), rows, "l" + "r" * len(aggs))
        L.append("")
        if aggregation == "custom" and "custom" not in aggs:
            L.append("`report.aggregation: custom` needs `report.weights` ({task: weight}); none were given, so "
                     "`plots/mean_ranks.*` is empty. The uniform ranks above are the headline.")
            L.append("")
        stab = report.rank_stability()
        if stab["models"] and fr["n_tasks"] >= 2:
            q = stab["largest_gap_quantiles"]
            shifts = ", ".join(f"{m} {v:.2f}" for m, v in stab["jackknife_max_shift"].items())
            sep = [f"{p} {v:.0%}" for p, v in stab["pair_separation"].items() if v > 0]
            L.append(f"**Rank stability** ({stab['n_boot']} bootstrap resamples of the tasks, seed {stab['seed']}): "
                     f"the observed order ({' < '.join(stab['observed_order'])}) is reproduced in "
                     f"{stab['order_reproduced']:.0%} of resamples; the largest mean-rank gap has a 95 % range of "
                     f"{q.get('0.025', math.nan):.2f}–{q.get('0.975', math.nan):.2f}. Leaving one task out moves a "
                     f"mean rank by at most: {shifts}. "
                     + (f"Pairs separated by more than CD in some resamples: {', '.join(sep)}." if sep else
                        "No pair is separated by more than CD in any resample."))
            L.append("")
    else:
        L.append(f"Not enough complete models or tasks for a Friedman test (k = {fr['k']}, N = {fr['n_tasks']}).")
        L.append("")

    # ------------------------------------------------------------------ 6
    L += ["## 6. Is the evidence sufficient? Power floor", ""]
    power = report.power()
    floor = {r["task"]: r for r in report.wilcoxon_floor()}
    rows = []
    for t in present:
        pr = [r for r in power if r["task"] == t]
        fl = floor[t]
        mdes = [r["mde"] for r in pr if math.isfinite(r["mde"])]
        need = [r["seeds_needed_0.01"] for r in pr if r.get("seeds_needed_0.01") is not None]
        det = sum(r["detectable"] for r in pr)
        rows.append([f"`{t}`", len(pr), fl["n_seeds"],
                     _f(statistics.median(mdes), 4) if mdes else "n/a",
                     f"{_f(min(mdes), 4)}–{_f(max(mdes), 4)}" if mdes else "n/a",
                     f"{det}/{len(pr)}", str(int(statistics.median(need))) if need else "n/a",
                     _p(fl["p_min"]), _p(fl["p_min_holm"]) + (" ✓" if fl["reachable"] else " ✗")])
    if rows:
        L += _table(["task", "pairs", "S", "median MDE", "MDE range", "detectable", "median S for 0.01",
                     "min Wilcoxon p", "min Wilcoxon p_Holm"], rows, "lrrrrrrrr")
        L.append("")
    S = len(report.seeds)
    L.append(f"MDE is the smallest true mean difference the paired t test would detect with 80 % power at "
             f"α = {report.alpha:g} given the observed spread of paired differences (σ_d) at the pair's S seeds; "
             "*detectable* counts pairs whose observed |Δμ| reaches it; *median S for 0.01* is the number of seeds "
             "that would make a 0.01 difference detectable (`reports/power.csv` also gives 0.02 and 0.005). "
             f"The exact Wilcoxon signed-rank test cannot go below p = 2·2⁻ˢ (= {2 * 2.0 ** -S:.3g} at S = {S}, "
             "all differences of one sign); Holm multiplies the smallest p of a task by its number of comparisons "
             "— ✗ means the Wilcoxon test cannot declare any difference on that task at this seed count, "
             "however large it is.")
    L.append("")

    # ------------------------------------------------------------------ 7
    L += ["## 7. Equivalence (TOST)", ""]
    if equivalence is None:
        L += [f"Not computed: {equivalence_error or 'no margin given'}.", ""]
    else:
        margin = report.equivalence_margin
        L.append(f"Two one-sided paired t tests per pair with margin ±{margin} (metric units), Holm within task, "
                 f"crossed with the Holm-adjusted {pw_name} difference test: *different* (difference shown, "
                 "equivalence not), *equivalent* (|Δ| < margin shown), *trivial* (a real difference smaller than "
                 "the margin), *undetermined* (neither: more seeds needed).")
        L.append("")
        verdicts = ("different", "equivalent", "trivial", "undetermined")
        rows = []
        for t in present:
            er = [r for r in equivalence if r["task"] == t]
            rows.append([f"`{t}`"] + [sum(r["verdict"] == v for r in er) for v in verdicts])
        rows.append(["**all**"] + [sum(r["verdict"] == v for r in equivalence) for v in verdicts])
        L += _table(["task"] + list(verdicts), rows, "lrrrr")
        L.append("")
        eq = [r for r in equivalence if r["verdict"] in ("equivalent", "trivial")]
        if eq:
            L.append("Equivalent or trivially different pairs: " + "; ".join(
                f"`{r['task']}` {r['model_a']}–{r['model_b']} ({r['verdict']}, Δμ {r['mean_diff']:+.4f})"
                for r in eq) + ".")
            L.append("")
        L += ["Full table: `reports/equivalence.csv`.", ""]

    # ------------------------------------------------------------------ 8
    cand = metrics.get("candidate") or {}
    if cand.get("name"):
        L += ["## 8. Candidate", ""]
        L.append(f"**{cand['name']}**: mean rank {_f(cand['mean_rank'], 2)} over {cand['n_tasks']} task(s) among "
                 f"the roster models complete on those tasks; against the roster: {cand['wins']} significant wins, "
                 f"{cand['losses']} significant losses, {cand['ties']} not significant (Holm-corrected {pw_name} "
                 "tests within each task).")
        L.append("")
    else:
        L += ["## 8. Candidate", "", "No candidate model in this run (`model: null` in params.yaml).", ""]

    # ------------------------------------------------------------------ 9
    missing = report.missing()
    L += ["## 9. Missing cells", ""]
    if unavailable:
        L.append(f"**Tasks without data ({len(unavailable)}):** " + "; ".join(
            f"`{t}` — {why}" for t, why in unavailable.items()) + ". The ranks use the N = "
            f"{fr['n_tasks']} tasks present.")
        L.append("")
    if failed_tasks:
        L.append(f"**Tasks without any result ({len(failed_tasks)}):** " + "; ".join(
            f"`{t}` — {why}" for t, why in failed_tasks.items()) + ".")
        L.append("")
    if missing:
        rows = [[f"`{m['task']}`", m["model"], m["status"], f"{m['n_ok']}/{len(report.seeds)}",
                 (m["reason"] or "").replace("|", "\\|").replace("\n", " ")] for m in missing]
        L += _table(["task", "model", "status", "ok seeds", "reason"], rows, "lllrl")
    else:
        L.append("None: every cell has results for every seed.")
    L.append("")

    # ----------------------------------------------------------------- 10
    L += ["## 10. Compute cost", ""]
    cost = report.compute_cost()
    if cost["n_timed"]:
        tot, wall = cost["total_seconds"], cost["wall_seconds"]
        if wall:
            L.append(f"Elapsed training wall time: **{_duration(wall)}** ({wall / 60:.1f} min): the time during "
                     "which at least one seed was training, from the start and finish times in the run records "
                     f"(first start to last finish: {_duration(cost['span_seconds'])}). Summed over the "
                     f"{cost['n_timed']} (task, model, seed) runs, training took {_duration(tot)} "
                     f"({tot / 3600:.2f} h): seeds ran in parallel worker processes, on average "
                     f"{cost['parallelism']:.2f} at a time. Cached seeds count the time of their original run; "
                     "data fetching and the report are not included.")
        else:
            L.append(f"Total training time: **{_duration(tot)}** ({tot / 3600:.2f} h) summed over "
                     f"{cost['n_timed']} (task, model, seed) runs (no start/finish times recorded, so no elapsed "
                     "time; seeds run in parallel, so the elapsed time was shorter).")
        L.append("")

        def cost_table(group: str, label: str) -> list[str]:
            wall_by = cost[f"wall_by_{group}"]
            rows = [[label.format(g), _duration(wall_by[g]) if g in wall_by else "n/a", _duration(s),
                     f"{s / tot:.1%}" if tot else "n/a"]
                    for g, s in sorted(cost[f"by_{group}"].items(), key=lambda kv: -kv[1])]
            return _table([group, "elapsed", "summed over seeds", "share of compute"], rows, "lrrr")

        L += cost_table("task", "`{}`") + [""] + cost_table("model", "{}")
    else:
        L.append("No per-seed timings recorded (the report was not built from run records).")
    L.append("")

    # ----------------------------------------------------------------- 11
    L += ["## 11. Comparison with the paper's Table 3", ""]
    comp = [c for c in compare_with_paper(summary) if c["task"] in present]
    if not comp:
        L += ["No task of this run appears in the paper's Table 3 (or the quoted table is not installed).", ""]
    else:
        tasks_cmp = sorted({c["task"] for c in comp}, key=report.tasks.index)
        L.append(f"Paper: mean ± 95 % Student-t half-width over its 10 seeds, as printed in its Table 3 "
                 f"(`src/netzbench/report/paper_table3.json`). Ours: mean ± {ci_name} half-width. Only the "
                 f"{len(tasks_cmp)} task(s) present in both are compared: {', '.join(f'`{t}`' for t in tasks_cmp)}.")
        L.append("")
        rows = []
        for c in comp:
            ov = {True: "yes", False: "**no**", None: "n/a"}[c["overlap"]]
            ours = "missing" if not math.isfinite(c["ours_mean"]) else (
                f"{c['ours_mean']:.3f} ± {c['ours_h']:.3f}" if math.isfinite(c["ours_h"]) else f"{c['ours_mean']:.3f}")
            rows.append([f"`{c['task']}`", c["model"], f"{c['paper_mean']:.3f} ± {c['paper_h']:.3f}", ours,
                         f"{c['diff']:+.3f}" if math.isfinite(c["diff"]) else "n/a", ov])
        L += _table(["task", "model", "paper", "ours", "ours − paper", "CIs overlap"], rows, "llrrrc")
        L.append("")
        n_ov = sum(c["overlap"] is True for c in comp)
        n_def = sum(c["overlap"] is not None for c in comp)
        L.append(f"The intervals overlap in {n_ov} of {n_def} comparable cells. Overlap is a coarse consistency "
                 "check, not a test; non-overlap means the two runs measured different values, which is expected "
                 "wherever the protocols differ.")
        L.append("")
        no = [c for c in comp if c["overlap"] is False]
        L += ["### Protocol differences", "",
              "<!-- protocol-differences: begin. Known differences between this implementation and the paper; "
              "extend this list when a difference is established. -->"]
        L.append("Known differences between this benchmark and the paper's protocol, stated from this "
                 "repository's code and the paper's text (candidate explanations of non-overlapping cells, not "
                 "verified causes):")
        L.append("")
        seen = set()
        for t in tasks_cmp:
            for note in protocol_notes(t, report.task_info[t].family):
                if note not in seen:
                    seen.add(note)
                    affected = [x for x in tasks_cmp if note in protocol_notes(x, report.task_info[x].family)]
                    L.append(f"- ({', '.join(f'`{x}`' for x in affected)}) {note}.")
        L.append("- (all) The paper's seeds 0–9 and ours share numbers, not random streams: initialisation, splits "
                 "and negative samples come from different code.")
        L.append("<!-- protocol-differences: end -->")
        L.append("")
        if no:
            L.append("Cells whose intervals do not overlap: " + "; ".join(
                f"`{c['task']}` {c['model']} ({c['diff']:+.3f})" for c in no) + ".")
            L.append("")

    # ----------------------------------------------------------------- 12
    L += ["## 12. Files", "",
          "- `reports/benchmark.json` — every history, seeds, options (re-analysis without training)",
          "- `reports/summary.csv`, `reports/summary.tex` — per-cell table (CSV, booktabs)",
          "- `reports/pairwise_t.csv`, `reports/pairwise_wilcoxon.csv`, `reports/pairwise.tex` — comparisons",
          "- `reports/power.csv`, `reports/equivalence.csv`, `reports/selected_epochs.csv` — power, TOST, epoch audit",
          "- `plots/critical_difference.png|svg`, `plots/mean_ranks.csv|png`, `plots/dashboard.png`, "
          "`plots/forest.png`, `plots/pairwise.png`, `plots/learning_curves.png` — figures",
          "- `metrics/report.json` — headline numbers for `dvc metrics show` / `dvc exp show`", ""]
    return "\n".join(L)
