"""Which published artefacts are of the result code on this checkout, and the banner on those that are not.

Three artefacts are published together, each from a training run of some result code
(:data:`netzbench.identity.RESULT_CODE`, hashed by :func:`netzbench.identity.code_version`):

- the paper run, ``reports/benchmark.json`` (and REPORT.md, the site, ``metrics/``): its ``config.code``,
  the result code its run records name (written by the report stage since 2026-12-05); a file
  published before that is checked through ``dvc.lock``, whose train stage records the MD5 of every
  result-code path it trained with (:func:`lock_matches`);
- the strict protocol's report, ``reports/strict/benchmark.json``: its ``config.code``;
- the protocol study, ``reports/protocol_study.json``: its ``code``.

An artefact is **stale** when its recorded code is not this checkout's: its numbers may not be what
the code on main gives. :func:`published_state` says so per artefact; :func:`mark` writes (or
removes, once current) a banner between :data:`BEGIN` and :data:`END` at the top of the artefact's
Markdown page, and with ``docs`` one in ``docs/results.md`` naming every stale artefact. The banner is
what a reader sees first; ``tests/test_published_state.py`` fails when an artefact is stale and its
page does not carry it (``netzbench stale --mark --docs`` puts it there). The study's page is
``docs/results.md``, whose sentence on the study's state (between :data:`STATE_BEGIN` and :data:`STATE_END`)
``--docs`` writes too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..identity import RESULT_CODE, code_version

#: the banner's delimiters: everything between them is the marker's own and is rewritten
BEGIN = "<!-- netzbench:stale -->"
END = "<!-- /netzbench:stale -->"
DOCS_PAGE = Path("docs/results.md")


@dataclass(frozen=True)
class Artefact:
    """A published artefact: its name, the JSON file recording its code and the page a reader reads."""

    name: str
    path: Path
    page: Path | None
    remedy: str  # the command that republishes it


ARTEFACTS = (
    Artefact("paper run", Path("reports/benchmark.json"), Path("reports/REPORT.md"), "dvc repro"),
    Artefact("strict report", Path("reports/strict/benchmark.json"), Path("reports/strict/REPORT.md"),
             "netzbench protocols"),
    # no page of its own: REPORT.md's "What holds under every protocol" says when it is stale; docs/results.md
    Artefact("protocol study", Path("reports/protocol_study.json"), Path("docs/results.md"), "netzbench protocols"),
)


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def dvc_md5(path: Path) -> str:
    """DVC's MD5 of ``path``: a file's bytes; a folder's ``<md5 of its sorted listing>.dir`` (the listing
    ``[{"md5", "relpath"}]`` as JSON, ``__pycache__`` left out as ``.dvcignore`` does)."""
    if path.is_file():
        return _md5(path)
    entries = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            f = Path(root, name)
            entries.append({"md5": _md5(f), "relpath": f.relative_to(path).as_posix()})
    entries.sort(key=lambda e: e["relpath"])
    return hashlib.md5(json.dumps(entries, sort_keys=True).encode()).hexdigest() + ".dir"


def lock_matches(root: Path) -> bool | None:
    """Whether ``dvc.lock``'s train stage trained with this checkout's result code: every
    :data:`RESULT_CODE` path's MD5 there equals the file's here (None: no lock or no such stage)."""
    import yaml

    try:
        lock = yaml.safe_load((root / "dvc.lock").read_text(encoding="utf-8"))
        deps = {d["path"]: d.get("md5") for d in lock["stages"]["train"]["deps"]}
    except (OSError, KeyError, TypeError, yaml.YAMLError):
        return None
    paths = [f"src/netzbench/{entry}" for entry in RESULT_CODE]
    if any(p not in deps for p in paths):
        return None
    return all((root / p).exists() and dvc_md5(root / p) == deps[p] for p in paths)


def recorded_code(root: Path, artefact: Artefact, current: str) -> tuple[str | None, str]:
    """``(recorded code, how it was found)``; None when the file is absent or records none."""
    try:
        data = json.loads((root / artefact.path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, "absent or unreadable"
    code = data.get("code") or (data.get("config") or {}).get("code")  # the study's / a benchmark file's
    if code:
        return code, "recorded in the file"
    if artefact.path == ARTEFACTS[0].path:  # published before the report stage recorded it
        match = lock_matches(root)
        if match is not None:
            return (current if match else "not this checkout's"), "dvc.lock's train stage"
    return None, "not recorded"


def published_state(root: str | Path = ".", current: str | None = None) -> list[dict]:
    """Per published artefact present under ``root``: ``name, path, page, recorded, current, stale, how,
    marked`` (its page carries the banner), ``remedy``. An artefact that records no code counts as stale."""
    root = Path(root)
    current = current or code_version()
    out = []
    for a in ARTEFACTS:
        if not (root / a.path).is_file():
            continue
        recorded, how = recorded_code(root, a, current)
        left = _left(root / a.path) if a.path == ARTEFACTS[-1].path else {}
        page = root / a.page if a.page else None
        marked = bool(page and page.is_file() and BEGIN in page.read_text(encoding="utf-8"))
        out.append({"name": a.name, "path": a.path.as_posix(), "page": a.page.as_posix() if a.page else None,
                    "recorded": recorded, "current": current, "stale": recorded != current, "how": how,
                    "marked": marked, "remedy": a.remedy, "remaining": left})
    return out


def _left(path: Path) -> dict[str, list[str]]:
    """A protocol study's variants still to run, per task (a study stopped before the end: ``make publish``
    continues it); empty for a complete one."""
    try:
        study = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {t: list(v) for t, v in (study.get("remaining") or {}).items() if v} if isinstance(study, dict) else {}


def _short(code: str | None) -> str:
    return "none" if not code else (code[:8] + "…" if re.fullmatch(r"[0-9a-f]{64}", code) else code)


def banner(stale: list[dict]) -> str:
    """The Markdown banner naming ``stale`` artefacts (empty: no banner)."""
    if not stale:
        return ""
    current = stale[0]["current"]
    lines = [f"- **{s['name']}** (`{s['path']}`): result code {_short(s['recorded'])} ({s['how']}); "
             f"republish: `{s['remedy']}`" for s in stale]
    return "\n".join([BEGIN, f"> **⚠ STALE: published from other result code than this checkout's "
                             f"({_short(current)}).** Its numbers and conclusions may not be what the code "
                             "gives now (`netzbench stale` lists the artefacts; `make publish` republishes "
                             "them):", ">", *[f"> {x}" for x in lines], END])


def with_banner(text: str, block: str) -> str:
    """``text`` with its banner replaced by ``block`` (removed when empty), placed after the first heading."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n\n?", re.S)
    text = pattern.sub("", text)
    if not block:
        return text
    lines = text.split("\n")
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
    return "\n".join(lines[:at] + ([""] if at else []) + [block, ""] + lines[at:]).replace("\n\n\n", "\n\n")


STATE_BEGIN, STATE_END = "<!-- netzbench:study-state -->", "<!-- /netzbench:study-state -->"


def study_sentence(study: dict | None) -> str:
    """docs/results.md's sentence on the protocol study's state (``study state: current``, ``incomplete``: of
    main's code with variants still to run, or ``stale``)."""
    if study is None:
        return "**No protocol study is published** (study state: none)."
    if study["stale"]:
        return (f"**The protocol study is of other result code than main's** (study state: stale): it records "
                f"result code `{_short(study['recorded'])}`, so REPORT.md tests no claim under it.")
    left = study.get("remaining") or {}
    if left:
        return (f"**The protocol study is of main's result code but incomplete** (study state: incomplete): "
                f"{len(left)} task(s) still have variants to run ({', '.join(sorted(left))}), whose claims "
                "REPORT.md leaves untested; `make publish` continues it.")
    return ("**The protocol study is complete with this code**, main's result code (study state: current): "
            "REPORT.md's \"What holds under every protocol\" tests every claim under it.")


def with_state(text: str, sentence: str) -> str:
    """``text`` with the sentence between :data:`STATE_BEGIN` and :data:`STATE_END` replaced (none: unchanged)."""
    pattern = re.compile(re.escape(STATE_BEGIN) + r"\n.*?\n" + re.escape(STATE_END), re.S)
    return pattern.sub(lambda _: f"{STATE_BEGIN}\n{sentence}\n{STATE_END}", text)


def mark(root: str | Path = ".", *, docs: bool = False, current: str | None = None) -> list[Path]:
    """Put the banner on the page of every stale artefact (and take it off a current one's); with ``docs``,
    the banner naming every stale artefact in ``docs/results.md``. Returns the files changed."""
    root = Path(root)
    state = published_state(root, current)
    changed = []

    def rewrite(page: Path, block: str) -> None:
        if not page.is_file():
            return
        old = page.read_text(encoding="utf-8")
        new = with_banner(old, block)
        if new != old:
            page.write_text(new, encoding="utf-8")
            changed.append(page)

    for s in state:
        if s["page"] and s["page"] != DOCS_PAGE.as_posix():
            rewrite(root / s["page"], banner([s] if s["stale"] else []))
    if docs:
        page = root / DOCS_PAGE
        if page.is_file():  # the study-state sentence first, then the banner (rewrite compares with the file)
            study = next((s for s in state if s["name"] == "protocol study"), None)
            text = page.read_text(encoding="utf-8")
            sentence = with_state(text, study_sentence(study))
            if sentence != text:
                page.write_text(sentence, encoding="utf-8")
                changed.append(page)
        rewrite(page, banner([s for s in state if s["stale"]]))
    return list(dict.fromkeys(changed))


def render(state: list[dict]) -> str:
    """``netzbench stale``'s table: one line per artefact."""
    if not state:
        return "no published artefacts found"
    out = [f"result code of this checkout: {_short(state[0]['current'])}"]
    for s in state:
        mark_ = "" if not s["stale"] else (f"  (banner in {s['page']})" if s["marked"] else
                                           "  (NOT marked: netzbench stale --mark --docs)")
        state_ = "STALE  " if s["stale"] else "partial" if s.get("remaining") else "current"
        out.append(f"{state_}  {s['name']:15s} {s['path']:34s} "
                   f"{_short(s['recorded'])} ({s['how']}){mark_}")
    return "\n".join(out)
