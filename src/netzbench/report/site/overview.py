"""What the site's overview pages show across tasks: the scope and warnings, the conclusions with their
robustness across protocols, mean ranks and the Friedman decision, the candidate against the roster,
and the paper comparison and paper vs strict.

The text sections are REPORT.md's own, rendered by :mod:`netzbench.report.markdown` from the same
facts and turned into HTML (:mod:`.markup`), so the site and REPORT.md cannot word a claim
differently; the tables the page sorts are built here from the facts.
"""

from __future__ import annotations

import math

from markupsafe import Markup

from ..facts import ReportFacts
from ..markdown.across_tasks import across_tasks
from ..markdown.bookkeeping import candidate as candidate_section
from ..markdown.paper_comparison import paper_comparison, protocol_study
from ..markdown.protocol import header
from ..markdown.robustness import TITLE as ROBUSTNESS_TITLE
from ..markdown.robustness import robustness
from ..markdown.text import label
from .drawing import rank_bars
from .markup import to_html


def _html(lines: list[str], drop_heading: bool = True) -> Markup:
    return Markup(to_html(lines, drop_heading=drop_heading))  # escaped by .markup


def scope(facts: ReportFacts) -> Markup:
    """REPORT.md's opening lines (the warnings about tasks without results, the scope), without its title."""
    return _html(header(facts))


def conclusions(facts: ReportFacts) -> dict:
    """REPORT.md's "What holds under every protocol", and whether the protocol study was used."""
    return {"title": ROBUSTNESS_TITLE, "html": _html(robustness(facts)),
            "study": facts.conclusions["basis"]["study"] == "used"}


def ranks(facts: ReportFacts) -> dict:
    """Mean ranks (uniform, and ``report.aggregation``'s when another), the Friedman decision, the bars."""
    fr, report = facts.friedman, facts.report
    uniform = fr["mean_ranks"]
    other = facts.aggregation if facts.aggregation != "uniform" else None
    other_ranks = facts.mean_ranks.get(other, {}) if other else {}
    rows = [{"model": m, "label": label(report, m), "rank": uniform[m], "other": other_ranks.get(m),
             "candidate": m == facts.candidate} for m in sorted(uniform, key=uniform.get)]
    defined = fr["k"] >= 2 and fr["n_tasks"] >= 1 and fr["p_value"] is not None and math.isfinite(fr["p_value"])
    return {"rows": rows, "aggregation": other, "friedman": fr, "alpha": report.alpha, "defined": defined,
            "reject": defined and fr["p_value"] < report.alpha,
            "posthoc": report.posthoc_method, "cliques": [[label(report, m) for m in c] for c in facts.cd_cliques],
            "bars": Markup(rank_bars(uniform, {m: label(report, m) for m in uniform},
                                     fr["cd"] if report.posthoc_method == "nemenyi" else None, facts.candidate)),
            "section": _html(across_tasks(facts)), "uninformative": facts.uninformative,
            "without_flagged": facts.without_flagged}


def _outcome(r: dict, name: str) -> str:
    if not r["significant"]:
        return "tie"
    return "win" if r["better"] == name else "loss"


def candidate(facts: ReportFacts) -> dict | None:
    """The candidate's standing (REPORT.md section 8) and each comparison it counts: the headline paired
    test against every roster model per task, with the difference and Cohen's d_z oriented so that a
    positive number is in the candidate's favour."""
    block, report = facts.candidate_block, facts.report
    name = block.get("name")
    if not name:
        return None
    rows = []
    for r in facts.headline_pairwise:
        if name not in (r["model_a"], r["model_b"]):
            continue
        other = r["model_b"] if r["model_a"] == name else r["model_a"]
        if other not in facts.roster:
            continue
        sign = (1.0 if r["model_a"] == name else -1.0) * (1.0 if r["direction"] == "higher" else -1.0)
        cells = facts.nested.get(r["task"], {})
        rows.append({"task": r["task"], "other": label(report, other), "outcome": _outcome(r, name),
                     "mean": cells.get(name, {}).get("mean"), "other_mean": cells.get(other, {}).get("mean"),
                     "gain": sign * r["mean_diff"],
                     "dz": sign * r["cohens_dz"] if math.isfinite(r["cohens_dz"]) else None,
                     "p_holm": r["p_holm"], "n_seeds": r["n_seeds"]})
    return {"block": block, "label": label(report, name), "rows": rows, "html": _html(candidate_section(facts))}


def paper(facts: ReportFacts) -> dict | None:
    """REPORT.md sections 11 (our cells against the paper's Table 3) and 12 (paper vs strict), each when
    it has something to show; None when neither has."""
    out = {"comparison": _html(paper_comparison(facts)) if facts.paper_rows else None,
           "study": _html(protocol_study(facts)) if facts.study["available"] else None}
    return out if any(out.values()) else None
