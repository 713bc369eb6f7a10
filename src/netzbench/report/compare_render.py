"""A comparison of two runs (:func:`.compare.compare`) written for a pull request: Markdown, or the same as a page.

Both come from one list of blocks (:func:`blocks`), so the page says exactly what the Markdown says:
``("h", level, text)``, ``("p", text)``, ``("ul", [text, ...])`` and ``("table", header, rows, right)``
(``right``: the indices of the numeric columns). Text may hold `code` and **bold**, the only markup
the page translates. The page is one file with its style inline: nothing is fetched when it is opened.
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

from ..stats import RESOLUTION
from .formatting import inert_html, number, p_value
from .verify import conclusion_change, left_out
from .within_task import TEST_NAMES

__all__ = ["blocks", "to_html", "to_markdown"]

#: the most rows of the changed-cells table (largest share of the CI first); the rest are counted
MAX_CELL_ROWS = 40
SIDES = {"here": "B", "there": "A"}  # verify's words for ours (B) and theirs (A)


def _signed(v: float, digits: int = 4) -> str:
    return f"{v:+.{digits}f}".replace("-", "−") if math.isfinite(v) else "n/a"


def _probability(v: float) -> str:
    return f"{v:.3f}" if math.isfinite(v) else "n/a"


def _seconds(s: float | None) -> str:
    if s is None:
        return "unknown"
    if s < 120:
        return f"{s:.1f} s"
    return f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.2f} h"


def _seeds(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _significant(result: dict[str, Any]) -> list[dict]:
    return [r for r in result["paired"] if r["significant"]]


def _headline(result: dict[str, Any]) -> str:
    if result["no_change"]:
        return (f"**No change.** The {result['n_cells']} cells both runs have are identical on the "
                f"{len(result['seeds'])} seeds both have, and every conclusion is the same.")
    changed = result["n_cells"] - result["identical_cells"]
    sig = _significant(result)
    conclusions = result["conclusions"]["changed"]
    lead = "**Changed.**" if sig or conclusions else "**No significant change.**"
    tests = (f"{len(sig)} significant paired difference(s) (Holm, α = {result['alpha']:g}): "
             + ", ".join(f"`{r['task']}/{r['model']}` {r['outcome']}" for r in sig)) if sig else \
        f"no paired difference is significant (Holm, α = {result['alpha']:g})"
    said = f"conclusions changed: {', '.join(f'`{k}`' for k in conclusions)}" if conclusions else \
        "every conclusion is the same"
    return f"{lead} {changed} of {result['n_cells']} cells changed; {tests}; {said}."


def _scope(result: dict[str, Any]) -> list[tuple]:
    a, b = result["labels"]
    out = [("p", f"A: `{a}` · B: `{b}` · {len(result['tasks'])} tasks, {result['n_cells']} cells, seeds "
                 f"{_seeds(result['seeds'])}. Every difference is B − A, paired by seed.")]
    parts = left_out({"left_out": result["left_out"], "cells": result["cells"]})
    if parts:
        out.append(("p", "Left out (what only one run has; everything below is on the part both have):"))
        out.append(("ul", [f"only in {SIDES[side]}: {text}" for side, text in sorted(parts.items())]))
    if result["options"]:
        out.append(("p", "Analysis options differ: " + "; ".join(
            f"`{k}` {va!r} in A, {vb!r} in B" for k, (va, vb) in result["options"].items()) + "."))
    return out


def _cells(result: dict[str, Any]) -> list[tuple]:
    means = {(r["task"], r["model"]): r for r in result["paired"]}
    moved = sorted((c for c in result["cells"] if not c["identical"] and c["series"] is None),
                   key=lambda c: -(c["share_of_ci"] if math.isfinite(c["share_of_ci"]) else math.inf))
    out: list[tuple] = [("h", 3, "Cells that changed")]
    if not moved and all(c["identical"] for c in result["cells"]):
        return out + [("p", f"None: all {result['n_cells']} cells have identical histories.")]
    rows = []
    for c in moved[:MAX_CELL_ROWS]:
        m = means.get((c["task"], c["model"]), {})
        rows.append([f"{c['task']}/{c['model']}", number(m.get("mean_a", math.nan), 4),
                     number(m.get("mean_b", math.nan), 4), _signed(c["mean_diff"]),
                     number(c["share_of_ci"], 2), f"{c['seeds'][1]} / {c['seeds'][0]}"])
    if rows:
        out.append(("table", ["cell", "A mean", "B mean", "B − A", "|B − A| / A's CI half-width", "seeds A / B"],
                    rows, {1, 2, 3, 4, 5}))
    if len(moved) > MAX_CELL_ROWS:
        out.append(("p", f"… and {len(moved) - MAX_CELL_ROWS} more, each a smaller share of its CI."))
    series = [c for c in result["cells"] if not c["identical"] and c["series"] is not None]
    if series:
        out.append(("p", "Headline identical on every seed, other series differ: " + "; ".join(
            f"`{c['task']}/{c['model']}` ({', '.join(sum(c['series'].values(), []))})" for c in series) + "."))
    return out


def _paired(result: dict[str, Any]) -> list[tuple]:
    rows = result["paired"]
    margin = result["margin"]
    shown = margin if not isinstance(margin, dict) else "the task's margin"
    out: list[tuple] = [("h", 3, "Paired differences per task (B − A)"), ("p", (
        f"{TEST_NAMES[result['method']].capitalize()} test of B's seeds against A's for every model of both "
        f"runs, Holm within the task; TOST at ±{shown} (`report.equivalence_margin`, Holm within the task) and "
        f"the verdict of the two; P(B better): Bayesian correlated t-test (ROPE ±{shown}), ρ from the task's "
        "split design (0 where none is recorded). Differences are compared at the metric's resolution "
        f"({RESOLUTION:g}); one equal on every seed has no t test (p: the exact sign test) and no posterior (n/a)."))]
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    unchanged = [t for t in tasks if all(r["unchanged"] for r in rows if r["task"] == t)]
    for task in tasks:
        if task in unchanged:
            continue
        task_rows = [r for r in rows if r["task"] == task]
        first = task_rows[0]
        where = {"B": "B's seed records", "A": "A's seed records", "none": "no seed record of either run has one"}
        out.append(("h", 4, f"{task} ({'higher' if first['direction'] == 'higher' else 'lower'} is better)"))
        own = f" Margin ±{first['margin']:g}." if isinstance(margin, dict) and first["margin"] else ""
        out.append(("p", f"ρ = {first['rho']:.3g}: {first['design']} ({where[first['rho_source']]}).{own}"))
        table = [[r["model"], number(r["mean_a"], 4), number(r["mean_b"], 4), _signed(r["mean_diff"]),
                  p_value(r["p_holm"]), p_value(r["p_tost_holm"]),
                  f"**{r['outcome']}**" if r["significant"] else r["outcome"], _probability(r["p_b_better"]),
                  _probability(r["p_rope"])] for r in task_rows if not r["unchanged"]]
        out.append(("table", ["model", "A", "B", "B − A", "p (Holm)", "TOST p (Holm)", "verdict", "P(B better)",
                              "P(within ±margin)"], table, {1, 2, 3, 4, 5, 7, 8}))
        same = [r["model"] for r in task_rows if r["unchanged"]]
        if same:
            out.append(("p", f"No difference on any seed: {', '.join(same)}."))
    if unchanged:
        out.append(("p", f"No difference for any model on any seed: {', '.join(unchanged)}."))
    return out


def _ranks(result: dict[str, Any]) -> list[tuple]:
    ranks = result["ranks"]
    out: list[tuple] = [("h", 3, "Mean ranks")]
    if not ranks["rows"]:
        return out + [("p", "No ranking: fewer than two models have a value on every ranked task.")]
    pa, pb = ranks["friedman_p"]
    out.append(("p", f"Uniform mean ranks over {ranks['n_tasks'][0]} (A) and {ranks['n_tasks'][1]} (B) tasks, "
                     f"1 = best; Friedman p = {p_value(pa)} (A), {p_value(pb)} (B)."))
    out.append(("table", ["model", "A", "B", "change"],
                [[r["model"], number(r["rank_a"], 2), number(r["rank_b"], 2), _signed(r["change"], 2)]
                 for r in ranks["rows"]], {1, 2, 3}))
    return out


def _candidates(result: dict[str, Any]) -> list[tuple]:
    found = result.get("candidates") or {}
    if not found:
        return []
    rows = [[side, f"`{c['name']}`", str(c["n_tasks"]), str(c["wins"]), str(c["losses"]), str(c["ties"]),
             number(c["mean_rank"] if c["mean_rank"] is not None else math.nan, 2)] for side, c in sorted(found.items())]
    return [("h", 3, "The candidate against the roster"),
            ("table", ["run", "candidate", "tasks", "wins", "losses", "ties", "mean rank"], rows, {2, 3, 4, 5, 6}),
            ("p", "On the whole run that has it (a candidate only one run has is outside the part compared above): "
                  "wins and losses are Holm-significant paired differences against each roster model per task, "
                  "ties the rest; the mean rank is among the roster models complete on the candidate's tasks.")]


def _conclusions(result: dict[str, Any]) -> list[tuple]:
    checked = result["conclusions"]
    return [("h", 3, "Conclusions"),
            ("ul", [f"`{key}`: {conclusion_change(checked, key, ('in B', 'in A'))}" for key in checked["ours"]])]


def _compute(result: dict[str, Any]) -> list[tuple]:
    ca, cb = result["cost"]["A"], result["cost"]["B"]
    def summed(cost):
        return f"{_seconds(cost['seconds'])} ({cost['n_timed']} seeds)" if cost["n_timed"] else "unknown"

    rows = [["training, summed over seeds", summed(ca), summed(cb)],
            ["elapsed (some seed training)", _seconds(ca["wall_seconds"]), _seconds(cb["wall_seconds"])],
            ["the cells both ran, summed", _seconds(ca["common_seconds"]), _seconds(cb["common_seconds"])]]
    return [("h", 3, "Compute"), ("table", ["", "A", "B"], rows, {1, 2}),
            ("p", "From the seed records' times (a cached seed carries its original run's); unknown where none.")]


def blocks(result: dict[str, Any]) -> list[tuple]:
    """The comparison as blocks (module docstring): headline, scope, then (unless nothing changed) the
    cells, paired differences, mean ranks and conclusions; each run's candidate against its roster, and the
    compute each run cost last."""
    out: list[tuple] = [("h", 2, "netzbench compare: A → B"), ("p", _headline(result)), *_scope(result)]
    if not result["no_change"]:
        out += _cells(result) + _paired(result) + _ranks(result) + _conclusions(result)
    return out + _candidates(result) + _compute(result)


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def to_markdown(result: dict[str, Any]) -> str:
    """GitHub-flavoured Markdown of :func:`blocks`."""
    lines: list[str] = []
    for block in blocks(result):
        kind = block[0]
        if kind == "h":
            lines += ["#" * block[1] + " " + block[2], ""]
        elif kind == "p":
            lines += [block[1], ""]
        elif kind == "ul":
            lines += [f"- {item}" for item in block[1]] + [""]
        else:
            _, header, rows, right = block
            lines.append("| " + " | ".join(map(_md_cell, header)) + " |")
            lines.append("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|")
            lines += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in rows]
            lines.append("")
    return inert_html("\n".join(lines).rstrip() + "\n")  # model arguments and names are the user's


_CODE, _BOLD = re.compile(r"`([^`]+)`"), re.compile(r"\*\*(.+?)\*\*")

CSS = """
:root { --bg: #fff; --fg: #1b1f24; --muted: #5b6470; --line: #d8dde3; --card: #f7f8fa; --win: #d7f0e3;
        --loss: #fbe0dc; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --bg: #111418; --fg: #e6e9ed; --muted: #9aa4af; --line: #2f363e;
        --card: #181c21; --win: #17392a; --loss: #43201c; } }
body { margin: 0; background: var(--bg); color: var(--fg);
       font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 8px 16px 32px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
p, li { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 6px 0 14px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { font-weight: 600; white-space: nowrap; background: var(--card); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.gain { background: var(--win); } td.loss { background: var(--loss); }
"""


def _inline(text: str) -> str:
    return _BOLD.sub(r"<strong>\1</strong>", _CODE.sub(r"<code>\1</code>", html.escape(str(text))))


def _td(text: str, numeric: bool) -> str:
    kind = {"**gain**": "gain", "**loss**": "loss"}.get(str(text), "")  # a significant difference
    cls = " ".join(c for c in ("num" if numeric else "", kind) if c)
    return f"<td class=\"{cls}\">{_inline(text)}</td>" if cls else f"<td>{_inline(text)}</td>"


def to_html(result: dict[str, Any]) -> str:
    """A standalone HTML page of :func:`blocks` (style inline, no script, nothing fetched)."""
    body = []
    for block in blocks(result):
        kind = block[0]
        if kind == "h":
            body.append(f"<h{block[1]}>{_inline(block[2])}</h{block[1]}>")
        elif kind == "p":
            body.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "ul":
            body.append("<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in block[1]) + "</ul>")
        else:
            _, header, rows, right = block
            head = "".join(f"<th class=\"num\">{_inline(h)}</th>" if i in right else f"<th>{_inline(h)}</th>"
                           for i, h in enumerate(header))
            cells = "".join("<tr>" + "".join(_td(c, i in right) for i, c in enumerate(row)) + "</tr>" for row in rows)
            body.append(f"<div class=\"scroll\"><table><thead><tr>{head}</tr></thead>"
                        f"<tbody>{cells}</tbody></table></div>")
    a, b = result["labels"]
    title = html.escape(f"netzbench compare: {a} → {b}")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n" + "\n".join(body)
            + "\n</main>\n</body>\n</html>\n")
