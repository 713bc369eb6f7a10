r"""LaTeX (booktabs) exporters of a :class:`~netzbench.report.BenchmarkReport`.

Both tables need only ``\usepackage{booktabs}``; they read the report's
current options (``epoch_selection``, ``ci_method``, ``pairwise_method``), so
switching an option on the report switches the tables.

``summary_table``
    one row per task (task, metric with ↑/↓), one column per model, each cell
    ``mean ± h`` with ``h`` the CI half-width (``t``: :math:`t\cdot sem`;
    bootstrap: half the percentile-interval width).  The best model of each
    task (direction-aware, every tied best) is bold.  A cell with one seed
    shows the mean and "(1 seed)"; a cell without values shows ``--``; a cell
    whose interval was clipped to the metric's range shows ``mean [lo, hi]``
    (the caption says so).
``pairwise_table``
    one row per comparison: task (first row of its group), ``A vs. B``,
    :math:`\Delta\mu` = mean(A − B), :math:`p_{raw}`, :math:`p_{Holm}` and a
    significance mark (``*`` when :math:`p_{Holm} < \alpha`).
"""

from __future__ import annotations

import math

from .series import metric_label
from .within_task import nested_summary

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def escape(text: str) -> str:
    """Escape LaTeX special characters in plain text."""
    return "".join(_SPECIAL.get(c, c) for c in str(text))


def fmt_p(p: float) -> str:
    """p-value in math mode: 3 significant digits, ``a\\times10^{-b}`` below 1e-3, ``--`` if undefined."""
    if p is None or not math.isfinite(p):
        return "--"
    if p == 0:
        return "$0$"
    if p < 1e-3:
        mant, exp = f"{p:.2e}".split("e")
        return f"${mant}\\times10^{{{int(exp)}}}$"
    return f"${p:.3g}$"


def _metric_tex(metric: str, direction: str) -> str:
    arrow = r"$\uparrow$" if direction == "higher" else r"$\downarrow$"
    return f"{escape(metric_label(metric))} {arrow}"


def summary_table(report, digits: int = 3, caption: str | None = None, label: str = "tab:netzbench-summary") -> str:
    """The per-task table of mean ± CI half-width (see the module docstring)."""
    rows = nested_summary(report.summary())
    models = report.models
    tasks = report.tasks
    ci = f"{report.ci:.0%}".replace("%", r"\%")
    method = "Student-$t$" if report.ci_method == "t" else f"percentile-bootstrap ($B={report.bootstrap_n}$)"
    if caption is None:
        caption = (f"Mean $\\pm$ {ci} {method} CI half-width over seeds per task and model "
                   f"(epoch selection: {escape(report.epoch_selection)}). Best per task in bold; "
                   "-- marks a cell without results.")
        if any(r.get("clipped") for cells in rows.values() for r in cells.values()):
            caption += " [lo, hi]: an interval that left the metric's range, clipped to it."
    lines = [r"\begin{table}[t]", r"\centering", f"\\caption{{{caption}}}", f"\\label{{{label}}}",
             r"\begin{tabular}{ll" + "c" * len(models) + "}", r"\toprule",
             "Task & Metric & " + " & ".join(escape(m) for m in models) + r" \\", r"\midrule"]
    for t in tasks:
        info = report.task_info[t]
        cells = rows.get(t, {})
        means = {m: r["mean"] for m, r in cells.items() if r["n_seeds"] > 0 and math.isfinite(r["mean"])}
        best = set()
        if means:
            target = (max if info.direction == "higher" else min)(means.values())
            best = {m for m, v in means.items() if v == target}
        out = []
        for m in models:
            r = cells.get(m)
            if r is None or m not in means:
                out.append("--")
                continue
            mean = f"{r['mean']:.{digits}f}"
            if r.get("clipped"):
                body = f"{mean}\\ [{r['lo']:.{digits}f}, {r['hi']:.{digits}f}]"
                out.append(f"$\\mathbf{{{body}}}$" if m in best else f"${body}$")
            elif math.isfinite(r["half_width"]):
                body = f"{mean} \\pm {r['half_width']:.{digits}f}"
                out.append(f"$\\mathbf{{{body}}}$" if m in best else f"${body}$")
            else:
                body = f"$\\mathbf{{{mean}}}$" if m in best else f"${mean}$"
                out.append(body + " (1 seed)")
        lines.append(f"{escape(t)} & {_metric_tex(info.metric, info.direction)} & " + " & ".join(out) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def pairwise_table(report, method: str | None = None, digits: int = 3, caption: str | None = None,
                   label: str = "tab:netzbench-pairwise") -> str:
    """Every comparison with Δμ, p_raw, p_Holm and a significance mark (see the module docstring)."""
    method = method or report.pairwise_method
    rows = report.pairwise(method)
    name = "paired $t$" if method == "t" else "Wilcoxon signed-rank"
    alpha = f"{report.alpha:g}"
    if caption is None:
        caption = (f"Pairwise comparisons per task ({name} test on seed-aligned values, Holm--Bonferroni within "
                   f"each task). $\\Delta\\mu$ = mean(A $-$ B); $^{{*}}$ marks $p_{{\\mathrm{{Holm}}}} < {alpha}$.")
    lines = [r"\begin{table}[t]", r"\centering", f"\\caption{{{caption}}}", f"\\label{{{label}}}",
             r"\begin{tabular}{llrrrc}", r"\toprule",
             r"Task & Comparison & $\Delta\mu$ & $p_{\mathrm{raw}}$ & $p_{\mathrm{Holm}}$ & Sig. \\", r"\midrule"]
    last = None
    for r in rows:
        if last is not None and r["task"] != last:
            lines.append(r"\addlinespace")
        task = escape(r["task"]) if r["task"] != last else ""
        last = r["task"]
        d = r["mean_diff"]
        dtxt = f"${d:+.{digits}f}$" if math.isfinite(d) else "--"
        mark = "$^{*}$" if r["significant"] else ""
        lines.append(f"{task} & {escape(r['model_a'])} vs.\\ {escape(r['model_b'])} & {dtxt} & "
                     f"{fmt_p(r['p_raw'])} & {fmt_p(r['p_holm'])} & {mark} \\\\")
    if not rows:
        lines.append(r"\multicolumn{6}{c}{no comparison (fewer than two models with results per task)} \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
