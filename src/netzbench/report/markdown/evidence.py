"""REPORT.md sections 6-7: is the evidence sufficient (power, the Wilcoxon floor), and which pairs are
equivalent (TOST)."""

from __future__ import annotations

import math
import statistics

from ...stats import RESOLUTION
from ..facts import ReportFacts
from ..formatting import number, p_value
from ..within_task import TEST_NAMES
from .text import table


def _median(counts: list[int]) -> str:
    """The median of whole numbers as written: an even count's median may end in .5 (87.5, never 87)."""
    m = statistics.median(counts)
    return str(int(m)) if m == int(m) else f"{m:.1f}"


def power_floor(facts: ReportFacts) -> list[str]:
    """Section 6: per task the MDE of the paired t test, detectable pairs, seeds needed, the Wilcoxon floor."""
    report, present, power = facts.report, facts.present, facts.power
    L = ["## 6. Is the evidence sufficient? Power floor", ""]
    floor = {r["task"]: r for r in facts.wilcoxon_floor}
    rows = []
    for t in present:
        pr = [r for r in power if r["task"] == t]
        fl = floor[t]
        mdes = [r["mde"] for r in pr if math.isfinite(r["mde"])]
        need = [r["seeds_needed_0.01"] for r in pr if r.get("seeds_needed_0.01") is not None]
        det = sum(r["detectable"] for r in pr)
        s_text = str(fl["n_seeds"]) + (f" ({fl['n_nonzero']} nonzero)" if fl["n_nonzero"] < fl["n_seeds"] else "")
        rows.append([f"`{t}`", len(pr), s_text,
                     number(statistics.median(mdes), 4) if mdes else "n/a",
                     f"{number(min(mdes), 4)}–{number(max(mdes), 4)}" if mdes else "n/a",
                     f"{det}/{len(pr)}", _median(need) if need else "n/a",
                     p_value(fl["p_min"]), p_value(fl["p_min_holm"]) + (" ✓" if fl["reachable"] else " ✗")])
    if rows:
        L += table(["task", "pairs", "S", "median MDE", "MDE range", "detectable", "median S for 0.01",
                    "min Wilcoxon p", "min Wilcoxon p_Holm"], rows, "lrrrrrrrr")
        L.append("")
    S = len(report.seeds)
    L.append(f"MDE is the smallest true mean difference the paired t test would detect with 80 % power at "
             f"α = {report.alpha:g} given the observed spread of paired differences (σ_d) at the pair's S seeds; "
             "*detectable* counts pairs whose observed |Δμ| reaches it; *median S for 0.01* is the number of seeds "
             "that would make a 0.01 difference detectable (`reports/power.csv` also gives 0.02 and 0.005). "
             f"The exact Wilcoxon signed-rank test cannot go below p = 2·2⁻ˢ (= {2 * 2.0 ** -S:.3g} at S = {S}, "
             "all differences of one sign), where S counts the *nonzero* paired differences: the test drops "
             f"differences that are zero at the metric's resolution ({RESOLUTION:g}), so a pair with zero "
             "differences has a higher floor (the table's minimum uses the largest nonzero count of the task's "
             "pairs). Holm multiplies the smallest p of a task by its number of comparisons "
             "— ✗ means the Wilcoxon test cannot declare any difference on that task at this seed count, "
             "however large it is. Degenerate pairs (zero spread at the resolution) have no t test, "
             "so no MDE or power.")
    L.append("")
    return L


def equivalence(facts: ReportFacts) -> list[str]:
    """Section 7: TOST verdict counts per task and the equivalent or trivially different pairs."""
    report, present, tost = facts.report, facts.present, facts.equivalence
    pw_name = TEST_NAMES[report.pairwise_method]
    L = ["## 7. Equivalence (TOST)", ""]
    if tost is None:
        L += [f"Not computed: {facts.equivalence_error or 'no margin given'}.", ""]
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
            er = [r for r in tost if r["task"] == t]
            rows.append([f"`{t}`"] + [sum(r["verdict"] == v for r in er) for v in verdicts])
        rows.append(["**all**"] + [sum(r["verdict"] == v for r in tost) for v in verdicts])
        L += table(["task"] + list(verdicts), rows, "lrrrr")
        L.append("")
        eq = [r for r in tost if r["verdict"] in ("equivalent", "trivial")]
        if eq:
            L.append("Equivalent or trivially different pairs: " + "; ".join(
                f"`{r['task']}` {r['model_a']}–{r['model_b']} ({r['verdict']}, Δμ {r['mean_diff']:+.4f})"
                for r in eq) + ".")
            L.append("")
        flat = [r for r in tost if r.get("note", "").startswith("zero spread")]
        if flat:
            L.append(f"{len(flat)} pair(s) have zero spread at the metric's resolution (" + "; ".join(
                f"`{r['task']}` {r['model_a']}–{r['model_b']}" for r in flat) + "): the one-sided t tests are "
                "undefined, so TOST gives no p-value and never calls them equivalent.")
            L.append("")
        L += ["Full table: `reports/equivalence.csv`.", ""]
    return L
