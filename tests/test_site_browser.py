"""The results site in a real browser: headless Chromium (Debian's ``chromium``; ``make browser``
installs it where it can) opens the site the report stage writes from synthetic run records, over
``file://``, driven over the DevTools protocol (tests/browser.py).

Checked: every page loads without a console error or exception and asks for nothing outside the
site's folder; the leaderboards' numbers in the page are ``reports/benchmark.json``'s; clicking a
column head sorts the rows; the links between the pages work; the pages fit a phone's width. Screenshots
of the overview and a task page at desktop (1280 px) and phone (390 px) widths are written to
``NETZBENCH_SCREENSHOTS``, or ``.pytest_screenshots/`` in the repository (git-ignored). Without a
Chromium the tests skip, saying how to install one.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.site import SITE

from browser import find_chromium, start_chromium
from helpers import REPO
from site_records import build_site

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found: install Debian's package (`make browser`, or "
                             "`apt-get install chromium`) or set NETZBENCH_CHROMIUM to a Chromium executable")
SCREENSHOTS = Path(os.environ.get("NETZBENCH_SCREENSHOTS") or REPO / ".pytest_screenshots")
DESKTOP, PHONE = 1280, 390


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    build_site(root)
    return root


@pytest.fixture(scope="module")
def page():
    browser = start_chromium(CHROMIUM)
    yield browser.page
    browser.close()


def _open(page, site: Path, rel: str, width: int = DESKTOP) -> None:
    """Load ``rel`` of the site at ``width``; it must load cleanly and ask for nothing outside the site."""
    page.resize(width, 900, mobile=width < 600)
    page.forget()
    page.open((site / SITE / rel).as_uri())
    assert page.problems() == [], rel
    folder = (site / SITE).as_uri() + "/"
    assert [u for u in page.requested() if not u.startswith(folder)] == [], rel


def test_every_page_loads_without_errors_and_fetches_nothing_from_elsewhere(site, page):
    pages = sorted(p.relative_to(site / SITE).as_posix() for p in (site / SITE).rglob("*.html"))
    assert "index.html" in pages and "tasks/cora.html" in pages
    for rel in pages:
        _open(page, site, rel)
        assert page.evaluate("document.styleSheets.length") == 1  # site.css arrived
        assert page.evaluate("document.querySelector('h1').textContent.length") > 0
    _open(page, site, "index.html")
    assert "critical" in page.evaluate("document.querySelector('figure.cd img').alt")
    assert page.evaluate("document.querySelector('figure.cd img').naturalWidth") > 100  # the SVG drew


LEADERBOARDS = """Array.from(document.querySelectorAll('section.board')).map(b => [b.dataset.task,
  Array.from(b.querySelectorAll('table.leaderboard tbody tr')).map(r => [r.dataset.model,
    r.querySelector('td.mean').dataset.value, r.querySelector('td.mean').textContent.trim(),
    r.querySelector('td.ci').textContent.trim()])])"""


def test_the_leaderboards_numbers_are_the_benchmark_files(site, page):
    report = BenchmarkReport.from_json(site / "reports/benchmark.json")
    summary = {(r["task"], r["model"]): r for r in report.summary()}
    _open(page, site, "index.html")
    boards = dict(page.evaluate(LEADERBOARDS))
    assert set(boards) == set(report.tasks) and boards["board_directors"] == []  # no data: no table
    n_cells = 0
    for task, rows in boards.items():
        for model, value, text, ci in rows:
            s = summary[(task, model)]
            if s["n_seeds"] == 0:
                assert value == "" and ci == ""
                continue
            assert float(value) == s["mean"] and text == f"{s['mean']:.3f}", (task, model)
            assert ci == f"[{s['lo']:.3f}, {s['hi']:.3f}]", (task, model)
            n_cells += 1
    assert n_cells >= 16


def _column(page, table: str, index: int) -> list[str]:
    return page.evaluate(f"Array.from(document.querySelectorAll('{table} tbody tr')).map(r => "
                         f"r.cells[{index}].dataset.value ?? r.cells[{index}].textContent.trim())")


def test_clicking_a_column_head_sorts_the_rows(site, page):
    _open(page, site, "index.html")
    table = 'section[data-task="cora"] table.leaderboard'
    models = f"Array.from(document.querySelectorAll('{table} tbody tr')).map(r => r.dataset.model)"
    before = page.evaluate(models)
    page.click(f"{table} th:nth-child(3) button")  # mean: ascending, the cell without a result last
    values = _column(page, table, 2)
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers) and values[len(numbers):] == [""] * (len(values) - len(numbers))
    assert page.evaluate(models) != before
    assert page.evaluate(f"document.querySelector('{table} th:nth-child(3)').getAttribute('aria-sort')") == "ascending"
    page.click(f"{table} th:nth-child(3) button")  # again: descending, still last without a result
    values = _column(page, table, 2)
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers, reverse=True) and values[-1] == ""
    page.click(f"{table} th:nth-child(2) button")  # model: by name
    names = page.evaluate(f"Array.from(document.querySelectorAll('{table} tbody td.model')).map(c => "
                          "c.textContent.trim().toLowerCase())")
    assert names == sorted(names)
    assert page.problems() == []


def _follow(page, selector: str) -> str:
    """Click the link ``selector`` and wait for the page it opens; return its address."""
    page.click(selector)
    page.wait_for("Page.loadEventFired")
    return page.evaluate("location.href")


def test_the_links_between_the_pages_work(site, page):
    _open(page, site, "index.html")
    assert _follow(page, 'section[data-task="cora"] h3 a').endswith("/tasks/cora.html")
    assert page.evaluate("document.querySelector('h1').textContent") == "cora"
    assert page.evaluate("document.querySelectorAll('.panels figure.curve').length") == 5
    assert _follow(page, 'nav.tasks a[href$="mutag.html"]').endswith("/tasks/mutag.html")
    assert page.evaluate("document.querySelector('nav.tasks a[aria-current]').textContent") == "mutag"
    seeds = "getComputedStyle(document.querySelector('.panels polyline.seed')).display"
    assert page.evaluate(seeds) != "none"
    page.click("#show-seeds")  # the seeds' lines hide, the means stay
    assert page.evaluate(seeds) == "none"
    assert page.evaluate("getComputedStyle(document.querySelector('.panels polyline.mean')).display") != "none"
    assert _follow(page, "a.brand").endswith(f"/{SITE}/index.html")
    assert page.evaluate("document.querySelector('h1').textContent") == "netzbench results"
    assert page.problems() == []


def _png_width(path: Path) -> int:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">I", data[16:20])[0]


@pytest.mark.parametrize("rel", ["index.html", "tasks/cora.html"])
def test_the_pages_fit_a_phone_and_screenshots_are_taken(site, page, rel):
    name = Path(rel).stem if rel == "index.html" else f"task-{Path(rel).stem}"
    for width, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        _open(page, site, rel, width)
        # the page itself never scrolls sideways: wide tables scroll inside their own box
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (rel, width)
        shot = page.screenshot(SCREENSHOTS / f"{name}-{label}.png")
        assert _png_width(shot) == width
