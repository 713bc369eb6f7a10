"""REPORT.md sections 11 and 12: our cells against the paper's Table 3 and the reference implementation
run here, with the measured cause of every miss; and what each protocol switch does (paper vs strict).

The tables are built here; the text, the differences from the reference implementation that remain by
construction included, is ``templates/paper_comparison.md.j2``.
"""

from __future__ import annotations

import math

from ...protocol import BY_NAME
from ..facts import ReportFacts
from ..formatting import number, p_value
from ..paper import Z_BOUND
from ..reproduction import explain
from ..series import metric_label
from .templating import render
from .text import incomplete_note, interval_name, label, table


def _yes(v: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "n/a"}[v]


def _iv(iv: dict | None) -> str:
    if not iv or not math.isfinite(iv["mean"]):
        return "n/a"
    return f"{iv['mean']:.3f} ± {iv['h']:.3f}" if math.isfinite(iv["h"]) else f"{iv['mean']:.3f}"


def paper_comparison(facts: ReportFacts) -> list[str]:
    """Section 11: paper, reference-here and our interval per shared cell, overlaps, and measured causes."""
    report = facts.report
    comp = facts.paper_rows
    with_ref = any(c["reference"] for c in comp)
    tost = any(c.get("equivalent") is not None for c in comp)  # a margin was given (report.equivalence_margin)
    rows = []
    for c in comp:
        ours = {"mean": c["ours_mean"], "h": c["ours_h"]}
        rows.append([f"`{c['task']}`", label(facts.report, c["model"]), f"{c['paper_mean']:.3f} ± {c['paper_h']:.3f}"]
                    + ([_iv(c["reference"])] if with_ref else [])
                    + [_iv(ours), f"{c['diff']:+.3f}" if math.isfinite(c["diff"]) else "n/a",
                       _yes(c["overlap"]), _yes(c["inside"]),
                       number(c["z"], 2) + (" ✗" if c["z_ok"] is False else ""), _yes(c["strict"])]
                    + ([f"{p_value(c['tost_p_holm'])} ({_yes(c['equivalent'])})"] if tost else []))
    return render(
        "paper_comparison", "paper_comparison", ci_name=interval_name(report),
        protocol=report.config.get("protocol") or "?", with_reference=with_ref,
        tasks=sorted({c["task"] for c in comp}, key=report.tasks.index),
        table=table(["task", "model", "paper"] + (["reference here"] if with_ref else [])
                    + ["ours", "ours − paper", "CIs overlap", "paper inside ours", "\\|Δ\\| / SE", "strict"]
                    + (["TOST p_Holm (equivalent)"] if tost else []), rows,
                    "llr" + ("r" if with_ref else "") + "rrccrc" + ("r" if tost else "")) if comp else [],
        n=facts.paper_overlap, z_bound=Z_BOUND,
        missed=[(c, explain(c, facts.study)) for c in comp if c["overlap"] is False],
        tost=tost, margins=sorted({c["tost_margin"] for c in comp if c.get("tost_margin") is not None}),
        not_equivalent=[c for c in comp if c.get("equivalent") is False], alpha=report.alpha,
        differs=facts.paper_setting_differs)


def _order_change(variant: dict, paper: dict) -> str:
    if variant["order"] == variant.get("base_order", paper["order"]):
        return "same"
    return " > ".join(variant["order"])


def _study_rows(study: dict, models: list[str]) -> list[list[str]]:
    """Per task: the paper protocol's means, then per variant each model's change (or, under another headline
    metric, its means) and the models' order when it changes."""
    rows = []
    for task, entry in study["tasks"].items():
        variants = entry["variants"]
        paper = variants.get("paper")
        if paper is None:
            continue
        rows.append([f"`{task}`", "paper (means)"] + [f"{paper['means'].get(m, math.nan):.3f}"
                                                       if m in paper["means"] else "" for m in models]
                    + [" > ".join(paper["order"])])
        for name, variant in variants.items():
            if name == "paper":
                continue
            switch, _, value = name.partition("=")
            variant_name = f"{switch} → {value}" if value else name
            if variant.get("same_metric", True):
                cells = [f"{variant['delta'][m]:+.3f}" if m in variant["delta"] else "" for m in models]
            else:  # another headline (MRR for a link task): its means, not a change
                variant_name += f" ({metric_label(variant['metric'])} means)"
                cells = [f"{variant['means'][m]:.3f}" if m in variant["means"] and math.isfinite(variant["means"][m])
                         else "" for m in models]
            rows.append(["", variant_name] + cells + [_order_change(variant, paper)])
    return rows


def protocol_study(facts: ReportFacts) -> list[str]:
    """Section 12: per task, how far each protocol switch moves each model, and whether the ranking changes."""
    study = facts.study
    if not study["available"]:
        return render("paper_comparison", "no_study")
    models = facts.report.models
    seeds_all = next((v["seeds"] for e in study["tasks"].values() for n, v in e["variants"].items()
                      if n == "paper"), None)
    seeds_switch = next((v["seeds"] for e in study["tasks"].values() for n, v in e["variants"].items()
                         if n not in ("paper", "strict")), None)
    fewer = seeds_all is not None and seeds_switch is not None and seeds_switch != seeds_all
    used = sorted({n.partition("=")[0] for e in study["tasks"].values() for n in e["variants"] if "=" in n})
    return render(
        "paper_comparison", "protocol_study", stale=study["stale"], incomplete=incomplete_note(study),
        seeds_switch=seeds_switch if fewer else None, seeds_all=seeds_all,
        table=table(["task", "variant", *(label(facts.report, m) for m in models), "ranking"],
                    _study_rows(study, models), "ll" + "r" * len(models) + "l"),
        switches=[(n, s.paper, s.describe(s.paper), s.strict, s.describe(s.strict))
                  for n in used if (s := BY_NAME.get(n)) is not None])
