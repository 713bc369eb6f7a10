"""The documentation: README.md stays a quickstart, and what README.md and docs/ show exists.

Checked without running anything: every relative link (and its #anchor) resolves; every
``netzbench`` command names a real subcommand and only its options; every ``make`` target is in
the Makefile; every params key written in backticks is a key of params.yaml or of the code's
defaults. And params.yaml agrees with the defaults in ``src/netzbench/params.py``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from helpers import REPO
from netzbench.cli import main
from netzbench.params import _FREE_KEYS, _NULL_IS_DEFAULT, DEFAULTS

README = REPO / "README.md"
DOCS = REPO / "docs"
#: the pages issue 27 asks for (README.md links every one)
PAGES = ("usage", "outputs", "datasets", "protocol", "statistics", "reproducibility", "results", "performance",
         "shared-machine", "cluster", "architecture", "development")
MAX_README_LINES = 150
FILES = [README, *sorted(DOCS.glob("*.md"))]
#: fenced code blocks whose lines are shell commands (python and yaml blocks are not)
SHELL = {"", "bash", "sh", "shell", "console", "text"}
#: a dotted name ending in one of these is a file name (`train.txt`), not a params key
FILE_SUFFIXES = {"txt", "json", "md", "csv", "tex", "png", "svg", "yaml", "npz", "gz", "py"}
#: misspelt keys that docs/usage.md shows on purpose (what the params check refuses)
MISSPELT = {"train.hiden_channels", "exec.timeout", "train.node_cls.learning_rate", "report.alfa"}

FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
INLINE = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
KEY = re.compile(r"(?<![\w/.~+-])(?:[~+]{1,2})?((?:train|exec|report|data|search)(?:\.[A-Za-z_<][\w<>-]*)+)")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _split(text: str) -> tuple[list[tuple[str, str]], str]:
    """``([(language, body) of each fenced block], the text outside them)``."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in FENCE.finditer(text)]
    return blocks, FENCE.sub("", text)


def _inline(prose: str) -> list[str]:
    return [" ".join(m.group(1).split()) for m in INLINE.finditer(prose)]


def _command_lines(path: Path) -> list[str]:
    """Shell lines of the page: its shell code blocks' lines and its inline code spans."""
    blocks, prose = _split(_text(path))
    lines = [line for lang, body in blocks if lang in SHELL for line in body.splitlines()]
    return lines + _inline(prose)


def _segments(line: str) -> list[list[str]]:
    """The simple commands of a shell line, as word lists (comments dropped)."""
    line = re.sub(r"(^|\s)#.*$", "", line)
    out = []
    for seg in re.split(r"&&|\|\||;|(?<!\\)\|", line):
        try:
            out.append(shlex.split(seg))
        except ValueError:  # an unbalanced quote: prose, not a command line
            out.append(seg.split())
    return out


def _calls(word: str) -> list[tuple[Path, list[str]]]:
    """Every ``word ...`` command shown in README.md and docs/: (page, the words after it)."""
    out = []
    for path in FILES:
        for line in _command_lines(path):
            for words in _segments(line):
                for i, w in enumerate(words):
                    if w == word and (i == 0 or words[i - 1] in ("$", "or:", "(")):
                        out.append((path, words[i + 1:]))
    return out


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    _, prose = _split(_text(path))
    seen: dict[str, int] = {}
    out = set()
    for m in HEADING.finditer(prose):
        slug = _slug(m.group(1))
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def _links(path: Path) -> list[str]:
    _, prose = _split(_text(path))
    return LINK.findall(INLINE.sub("", prose))


# --- README and pages -----------------------------------------------------------------------------

def test_readme_is_a_quickstart():
    n = len(_text(README).splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines; move detail into docs/ (at most {MAX_README_LINES})"


def test_readme_names_the_test_command():
    """CI (.ci/run) runs `make test`: the README says that is how the tests run."""
    assert "make test" in _text(README) and "make repro" in _text(README)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_exists_and_the_readme_links_it(page):
    assert (DOCS / f"{page}.md").is_file(), f"docs/{page}.md is missing"
    targets = {t.split("#")[0] for t in _links(README)}
    assert f"docs/{page}.md" in targets, f"README.md does not link docs/{page}.md"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_relative_links_resolve(path):
    broken = []
    for target in _links(path):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not broken, f"{path.name}: " + "; ".join(broken)


def test_the_link_checker_sees_links_and_anchors():
    assert _slug("Checking a rerun: `netzbench verify`") == "checking-a-rerun-netzbench-verify"
    assert _slug("Parameters (`params.yaml`)") == "parameters-paramsyaml"
    assert "docs/usage.md" in {t.split("#")[0] for t in _links(README)}


# --- commands -------------------------------------------------------------------------------------

def _options(command: click.Command) -> set[str]:
    group = click.Context(main, info_name="netzbench", **main.context_settings)  # -h, as on the command line
    ctx = group if command is main else click.Context(command, info_name=command.name, parent=group,
                                                      **command.context_settings)
    return {opt for p in command.get_params(ctx) for opt in (*p.opts, *p.secondary_opts) if opt.startswith("-")}


def test_netzbench_commands_shown_exist():
    calls = _calls("netzbench")
    assert len(calls) > 20, "the command finder found too few `netzbench ...` commands"
    wrong = []
    for path, words in calls:
        if not words:
            continue
        if words[0].startswith("-"):
            cmd, args = main, words
        elif words[0] in main.commands:
            cmd, args = main.commands[words[0]], words[1:]
        else:
            wrong.append(f"{path.name}: `netzbench {' '.join(words)}`: no command {words[0]!r}")
            continue
        known = _options(cmd)
        for w in args:
            if w.startswith("-") and w.split("=")[0] not in known:
                wrong.append(f"{path.name}: `netzbench {' '.join(words)}`: {w!r} is not an option "
                             f"of {cmd.name!r} ({sorted(known)})")
    assert not wrong, "\n".join(wrong)


def test_every_command_is_documented_in_usage():
    usage = _text(DOCS / "usage.md")
    missing = [name for name in main.commands if f"`netzbench {name}" not in usage]
    assert not missing, f"docs/usage.md does not show: {missing}"


def _make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", _text(REPO / "Makefile"), re.M))


def test_make_targets_shown_exist():
    targets = _make_targets()
    assert {"repro", "test"} <= targets
    calls = _calls("make")
    assert len(calls) > 5
    wrong = []
    for path, words in calls:
        args = [w for w in words if "=" not in w and not w.startswith("-")]
        if args and args[0] not in targets:
            wrong.append(f"{path.name}: `make {' '.join(words)}`: no target {args[0]!r} in the Makefile")
    assert not wrong, "\n".join(wrong)


# --- params keys ----------------------------------------------------------------------------------

def _known_key(dotted: str, spec: dict, params: dict) -> bool:
    """Whether ``a.b.c`` is a key of params.yaml or of the code's DEFAULTS; below a mapping keyed by the
    user's own names (``train.epochs.<task>``, ``search.space.lr``) anything goes."""
    parts = dotted.split(".")
    nodes = [spec, params]
    for i, part in enumerate(parts):
        if tuple(parts[:i]) in _FREE_KEYS:
            return True
        nodes = [n[part] for n in nodes if isinstance(n, dict) and part in n]
        if not nodes:
            return False
    return True


def _shown_keys_of(text: str) -> set[str]:
    """The params keys in the inline code of ``text`` (file names such as ``train.txt`` are not keys)."""
    keys = {m.group(1).rstrip(".-") for span in _inline(text) for m in KEY.finditer(span)}
    return {k for k in keys if k.rpartition(".")[2] not in FILE_SUFFIXES}


def _shown_keys(path: Path) -> set[str]:
    _, prose = _split(_text(path))
    return _shown_keys_of(prose)


def test_params_keys_in_usage_exist():
    params = yaml.safe_load(_text(REPO / "params.yaml"))
    shown = _shown_keys(DOCS / "usage.md")
    assert len(shown) > 30, "the key finder found too few keys in docs/usage.md"
    assert MISSPELT <= shown and not any(_known_key(k, DEFAULTS, params) for k in MISSPELT)
    unknown = sorted(k for k in shown - MISSPELT if not _known_key(k, DEFAULTS, params))
    assert not unknown, f"docs/usage.md shows keys that params.yaml and DEFAULTS lack: {unknown}"


@pytest.mark.parametrize("path", [p for p in FILES if p.name != "usage.md"], ids=lambda p: p.name)
def test_params_keys_elsewhere_exist(path):
    params = yaml.safe_load(_text(REPO / "params.yaml"))
    unknown = sorted(k for k in _shown_keys(path) if not _known_key(k, DEFAULTS, params))
    assert not unknown, f"{path.name} shows keys that params.yaml and DEFAULTS lack: {unknown}"


def test_the_key_finder():
    assert _shown_keys_of("`dvc exp run -S '++train.epochs.cora=50'` and `metrics/report.json`, "
                          "`exec.device: cuda`, `train.txt`") == {"train.epochs.cora", "exec.device"}
    params = yaml.safe_load(_text(REPO / "params.yaml"))
    assert _known_key("train.epochs.cora", DEFAULTS, params) and _known_key("report.posthoc", DEFAULTS, params)
    assert not _known_key("train.hiden_channels", DEFAULTS, params)


# --- params.yaml against the code's defaults ------------------------------------------------------

#: where the published params.yaml and the code's DEFAULTS differ on purpose, today. Remove an entry
#: when the two are made to agree (the test below then fails until it is removed).
KNOWN_DIFFERENT = {
    # the defaults have no tasks or roster (the validator requires non-empty lists): params.yaml's are the benchmark
    ("tasks",): "the benchmark's tasks",
    ("models",): "the benchmark's roster",
    # issue 27: params.yaml publishes the paper protocol; without the key the code uses strict
    ("protocol",): "params.yaml: paper; DEFAULTS: strict",
    # issue 27: params.yaml keeps the paper's Table 2 extras out of the ranks; DEFAULTS rank every task
    ("report", "rank_exclude"): "params.yaml: [citeseer, pubmed]; DEFAULTS: []",
}


def _differences(published, default, where=()):
    """``{key path: (published, default)}`` for every key present in both where the values differ."""
    out = {}
    for key in published.keys() & default.keys():
        a, b, path = published[key], default[key], (*where, key)
        if path in _NULL_IS_DEFAULT and (a is None or b is None):  # null there means "nothing set": {}
            a, b = a or {}, b or {}
        if isinstance(a, dict) and isinstance(b, dict):
            out.update(_differences(a, b, path))
        elif a != b:
            out[path] = (a, b)
    return out


def test_params_yaml_agrees_with_the_code_defaults():
    diff = _differences(yaml.safe_load(_text(REPO / "params.yaml")), DEFAULTS)
    unexpected = {".".join(k): v for k, v in diff.items() if k not in KNOWN_DIFFERENT}
    assert not unexpected, f"params.yaml and src/netzbench/params.py DEFAULTS differ: {unexpected}"
    agreed = [".".join(k) for k in KNOWN_DIFFERENT if k not in diff]
    assert not agreed, f"these keys now agree: remove them from KNOWN_DIFFERENT: {agreed}"


# --- dvc commands ---------------------------------------------------------------------------------------

#: the DVC commands the docs may show (DVC 3's command names)
DVC_COMMANDS = {"repro", "exp", "metrics", "params", "plots", "status", "push", "pull", "remote", "dag", "gc",
                "fetch", "checkout", "init", "add", "queue", "diff", "config", "cache", "version", "stage"}


def test_dvc_commands_shown_exist_and_set_real_params():
    calls = _calls("dvc")
    assert len(calls) > 10
    bad = []
    for path, words in calls:
        if not words:  # the word itself, named in prose (`dvc`)
            continue
        if words[0] not in DVC_COMMANDS:
            bad.append(f"{path.name}: dvc {' '.join(words)}")
            continue
        for i, w in enumerate(words):
            if w == "-S" and i + 1 < len(words):
                key = words[i + 1].split("=", 1)[0].lstrip("+~")  # DVC's ++ (add) and ~ (remove) prefixes
                top = key.split(".")[0]
                if top not in DEFAULTS and top not in ("model", "model_args", "custom_tasks"):
                    bad.append(f"{path.name}: dvc {' '.join(words)}: -S {key} is no params key")
    assert bad == []
