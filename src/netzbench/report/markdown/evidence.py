"""REPORT.md sections 6-7: is the evidence sufficient (power, the Wilcoxon floor), and which pairs are
equivalent (TOST). The tables are built here; the text is ``templates/evidence.md.j2``."""

from __future__ import annotations

import math
import statistics

from ...stats import RESOLUTION
from ..facts import ReportFacts
from ..formatting import number, p_value
from ..within_task import TEST_NAMES
from .templating import render
from .text import table


def _median(counts: list[int]) -> str:
    """The median of whole numbers as written: an even count's median may end in .5 (87.5, never 87)."""
    m = statistics.median(counts)
    return str(int(m)) if m == int(m) else f"{m:.1f}"


def power_floor(facts: ReportFacts) -> list[str]:
    """Section 6: per task the MDE of the paired t test, detectable pairs, seeds needed, the Wilcoxon floor."""
    report, present, power = facts.report, facts.present, facts.power
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
    return render("evidence", "power_floor", table=table(
        ["task", "pairs", "S", "median MDE", "MDE range", "detectable", "median S for 0.01", "min Wilcoxon p",
         "min Wilcoxon p_Holm"], rows, "lrrrrrrrr") if rows else [],
        alpha=report.alpha, n_seeds=len(report.seeds), floor=2 * 2.0 ** -len(report.seeds),  # all of one sign
        resolution=RESOLUTION)


def equivalence(facts: ReportFacts) -> list[str]:
    """Section 7: TOST verdict counts per task and the equivalent or trivially different pairs."""
    report, tost = facts.report, facts.equivalence
    context = dict(margin=report.equivalence_margin, pw_name=TEST_NAMES[report.pairwise_method])
    if tost is None:
        return render("evidence", "equivalence", error=facts.equivalence_error or "no margin given", table=[],
                      equivalent=[], flat=[], **context)
    verdicts = ("different", "equivalent", "trivial", "undetermined")
    rows = [[f"`{t}`"] + [sum(r["verdict"] == v for r in tost if r["task"] == t) for v in verdicts]
            for t in facts.present]
    rows.append(["**all**"] + [sum(r["verdict"] == v for r in tost) for v in verdicts])
    return render("evidence", "equivalence", error=None, table=table(["task"] + list(verdicts), rows, "lrrrr"),
                  equivalent=[r for r in tost if r["verdict"] in ("equivalent", "trivial")],
                  flat=[(r["task"], r["model_a"], r["model_b"]) for r in tost
                        if r.get("note", "").startswith("zero spread")], **context)
