"""REPORT.md section 11: our cells against the paper's Table 3, with the known protocol differences."""

from __future__ import annotations

import math

from ..facts import ReportFacts
from ..paper import compare_with_paper, protocol_notes
from .text import interval_name, table


def paper_comparison(facts: ReportFacts) -> list[str]:
    """Section 11: paper and our interval per shared cell, whether they overlap, and candidate reasons why not."""
    report, present = facts.report, facts.present
    ci_name = interval_name(report)
    L = ["## 11. Comparison with the paper's Table 3", ""]
    comp = [c for c in compare_with_paper(facts.summary) if c["task"] in present]
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
        L += table(["task", "model", "paper", "ours", "ours − paper", "CIs overlap"], rows, "llrrrc")
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
    return L
