"""How the run compares with the paper, and why where it does not: from measurements, not guesses.

Three inputs besides the run, each optional:

- the paper's Table 3 (:mod:`.paper`);
- the reference implementation (``graphnetz`` 0.2.0, the code the paper ran)
  run here on the same tasks and seeds, per cell the seed values of its
  reported metric (``benchmarks/reference_cells.json``, written by
  ``benchmarks/side_by_side.py``);
- the protocol study (``reports/protocol_study.json``, written by
  ``netzbench protocols``): each task under the paper protocol, the strict
  protocol, and the paper protocol with one switch at a time set to its
  strict value, as seed values per model.

:func:`explain` names the cause of a cell that misses the paper's interval
from what was measured: the reference implementation on this data misses it
too (the data differ from the paper's); ours agrees with the reference here
(the two use different random streams for the same seeds); or the protocol
switches do not account for it (then the largest single-switch effect is
given).
"""

from __future__ import annotations

import math

import numpy as np

from .. import stats
from .paper import compare_with_paper

STUDY_SCHEMA = "netzbench.protocol_study/2"
#: study files of an older netzbench (no result-code hash, other switches): read, and always stale
OLD_STUDY_SCHEMAS = ("netzbench.protocol_study/1",)
REFERENCE_SCHEMA = "netzbench.reference_cells/1"


def interval(values, ci: float = 0.95) -> dict:
    """Mean, Student-t half-width, bounds and count of the finite ``values``."""
    iv = stats.t_interval(np.asarray(values, dtype=float), ci=ci)
    return {"mean": iv.mean, "h": iv.half_width, "lo": iv.lo, "hi": iv.hi, "n": iv.n}


def _overlap(a: dict, b: dict) -> bool | None:
    vals = (a["lo"], a["hi"], b["lo"], b["hi"])
    if not all(math.isfinite(v) for v in vals):
        return None
    return a["lo"] <= b["hi"] and b["lo"] <= a["hi"]


def comparison(summary_rows: list[dict], reference: dict | None, ci: float = 0.95, *, margin=None,
               alpha: float = 0.05) -> list[dict]:
    """:func:`.paper.compare_with_paper` rows (``margin``, ``alpha``: its equivalence test), each with
    ``reference`` (the reference implementation's interval here, or None) and ``reference_overlap`` /
    ``ours_vs_reference`` (closed-interval overlaps)."""
    rows = compare_with_paper(summary_rows, margin=margin, alpha=alpha)
    cells = (reference or {}).get("cells", {})
    for r in rows:
        ref = cells.get(r["task"], {}).get(r["model"])
        r["reference"] = interval(ref["values"], ci) if ref else None
        paper = {"lo": r["paper_lo"], "hi": r["paper_hi"]}
        ours = {"lo": r["ours_lo"], "hi": r["ours_hi"]}
        r["reference_overlap"] = _overlap(r["reference"], paper) if r["reference"] else None
        r["ours_vs_reference"] = _overlap(r["reference"], ours) if r["reference"] else None
    return rows


def study_effects(study: dict | None, final_metrics: dict, seeds: list[int], code: str | None = None) -> dict:
    """Per task of the protocol study: each variant's mean per model, its change against the paper
    protocol, and the models' order under it. ``stale`` is set when the study's paper-protocol values
    are not this run's (another run's study: rerun ``netzbench protocols``), when an older netzbench
    wrote it (:data:`OLD_STUDY_SCHEMAS`), or when it records another result code than ``code`` (the
    hash :func:`netzbench.identity.code_version` gives now; None: not checked): the paper protocol's
    AUC may be unchanged while the strict protocol and the switches measure something else now."""
    schema = (study or {}).get("schema")
    if not study or schema not in (STUDY_SCHEMA, *OLD_STUDY_SCHEMAS) or not study.get("tasks"):
        return {"available": False, "stale": False, "tasks": {}}
    stale = (list(study.get("seeds", [])) != list(seeds) or schema in OLD_STUDY_SCHEMAS
             or (code is not None and study.get("code") not in (None, code)))
    # a study still being run (netzbench protocols continues it): what it does not hold yet
    # only the tasks this run has results for: a study of other tasks says nothing about this run's claims
    out = {"available": True, "stale": stale, "tasks": {},
           "remaining": {t: v for t, v in (study.get("remaining") or {}).items() if t in final_metrics}}
    for task, entry in study["tasks"].items():
        if task not in final_metrics:
            continue
        paper = entry["variants"].get("paper", {})
        ours = final_metrics.get(task, {})
        for model, values in paper.items():
            if model in ours:
                a, b = np.asarray(values, float), np.asarray(ours[model], float)
                if a.shape != b.shape or not np.allclose(a, b, equal_nan=True):
                    out["stale"] = True
        higher = entry.get("direction", "higher") == "higher"
        all_seeds = list(study.get("seeds", []))
        switch_seeds = list(study.get("variant_seeds") or all_seeds)
        # a single-switch variant may run on fewer seeds: it is compared with the paper protocol on those
        on = [all_seeds.index(s) for s in switch_seeds if s in all_seeds]

        def means_of(by_model: dict, pick=None) -> dict:
            out_means = {}
            for m, v in by_model.items():
                v = np.asarray(v, float)
                v = v[pick] if pick is not None and len(v) == len(all_seeds) else v
                out_means[m] = float(np.nanmean(v)) if np.isfinite(v).any() else math.nan
            return out_means

        def ranking(means: dict) -> list:
            return sorted((m for m in means if math.isfinite(means[m])), key=lambda m: -means[m] if higher else means[m])

        heads = entry.get("headlines") or {}
        paper_metric = (heads.get("paper") or {}).get("metric", entry.get("metric"))
        variants = {}
        for name, by_model in entry["variants"].items():
            means = means_of(by_model)
            base = means_of(paper) if name in ("paper", "strict") else means_of(paper, on)
            # a variant headlined by another metric (a link task's MRR against the paper's AUC) has no change
            # to measure: its means stand alone, and it never explains a miss
            metric = (heads.get(name) or {}).get("metric", entry.get("metric"))
            delta = {m: means[m] - base[m] for m in means if m in base and math.isfinite(base[m])} \
                if metric == paper_metric else {}
            variants[name] = {"means": means, "order": ranking(means), "base_order": ranking(base),
                              "seeds": all_seeds if name in ("paper", "strict") else switch_seeds,
                              "metric": metric, "same_metric": metric == paper_metric, "delta": delta}
        out["tasks"][task] = {"switches": entry.get("switches", []), "variants": variants,
                              "metric": entry.get("metric"), "direction": entry.get("direction")}
    if not out["tasks"] and not out["remaining"]:  # a study of none of this run's tasks
        return {"available": False, "stale": False, "tasks": {}}
    return out


def explain(row: dict, effects: dict) -> str:
    """The measured cause of a cell whose interval misses the paper's (``row``: a :func:`comparison` row)."""
    ref = row.get("reference")
    if ref is not None and row["reference_overlap"] is False:
        return (f"the data: the reference implementation run on this data gives {ref['mean']:.3f} ± {ref['h']:.3f}, "
                "outside the paper's interval as well, so the dataset here is not the one the paper used")
    if ref is not None and row["ours_vs_reference"]:
        return (f"random streams: ours overlaps the reference implementation run here ({ref['mean']:.3f} ± "
                f"{ref['h']:.3f}), which overlaps the paper; the two draw different initialisations, splits and "
                "negatives for the same seeds")
    task = effects.get("tasks", {}).get(row["task"])
    moves = []
    if task:
        for name, variant in task["variants"].items():
            d = variant["delta"].get(row["model"])
            if name not in ("paper", "strict") and d is not None and math.isfinite(d):
                moves.append((abs(d), name, d))
    where = f"the reference run here gives {ref['mean']:.3f} ± {ref['h']:.3f}; " if ref is not None else ""
    if moves:
        _, name, d = max(moves)
        return (f"not a protocol switch: {where}the largest single-switch effect measured on this cell is "
                f"{name} ({d:+.3f})")
    return f"not explained by a measurement: {where}no protocol study covers this task"
