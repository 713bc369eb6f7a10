"""Readers bounded by what the data can hold (issue 50): small files that declare or inflate to huge sizes.

Every hostile file is built here, a few kilobytes to a few megabytes on disk, and read in a subprocess whose
address space is capped at 2 GB (``resource.setrlimit``) and whose run is capped at 60 s: the reader must stop
with :class:`~netzbench.catalog.readers.limits.SizeLimitError`, one line naming the file, the size and the
cap, not allocate the declared size (a MemoryError, an OOM kill) or run for minutes.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from netzbench.catalog.readers import limits
from netzbench.catalog.readers.declared import read_dataset

MEMORY_CAP = 2 << 30


def _capped(code: str, env: dict | None = None, timeout: float = 60) -> dict:
    """Run ``code`` under a 2 GB address-space cap; it prints a JSON object as its last line."""
    preamble = textwrap.dedent(f"""
        import resource, json, sys
        resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))
    """)
    full_env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", **(env or {})}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", preamble + textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=full_env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["seconds"] = time.monotonic() - started
    return out


def _read_in_capped_process(path: Path, fmt: str, family: str = "link_pred", env: dict | None = None) -> dict:
    return _capped(f"""
        from netzbench.catalog.readers.declared import read_dataset
        from netzbench.catalog.readers.limits import SizeLimitError
        try:
            read_dataset({str(path)!r}, {family!r}, {fmt!r})
        except SizeLimitError as exc:
            print(json.dumps({{"error": str(exc), "type": "SizeLimitError"}}))
        except BaseException as exc:
            print(json.dumps({{"error": str(exc), "type": type(exc).__name__}}))
        else:
            print(json.dumps({{"error": None}}))
    """, env)


def _gz_bomb(path: Path, prefix: bytes, filler: bytes, members: int, suffix: bytes = b"") -> None:
    """A ``.gz`` of ``members`` gzip members of 16 MiB of ``filler`` each (compressed once, written many times):
    ``members`` x 16 MiB decompressed from about ``members`` x 16 KiB on disk."""
    block = (filler * ((16 << 20) // len(filler) + 1))[: 16 << 20]
    member = gzip.compress(block, compresslevel=9)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(prefix))
        for _ in range(members):
            fh.write(member)
        fh.write(gzip.compress(suffix))


def _one_line(message: str, *parts: str) -> None:
    assert "\n" not in message
    for part in parts:
        assert part in message, (part, message)


def test_pajek_declaring_a_billion_vertices_is_refused_before_any_list(tmp_path):
    net = tmp_path / "bomb.net"
    net.write_text("*Vertices 1000000000\n*Edges\n1 2\n")  # 40 bytes: 22.5 GB before the cap
    assert net.stat().st_size < 64
    out = _read_in_capped_process(net, "pajek")
    assert out["type"] == "SizeLimitError", out
    _one_line(out["error"], str(net), "1,000,000,000", "50,000,000", "NETZBENCH_MAX_NODES", "*Vertices")
    assert out["seconds"] < 30


def test_the_node_cap_is_raised_by_its_variable_and_a_bad_value_is_named(tmp_path, monkeypatch):
    net = tmp_path / "small.net"
    net.write_text("*Vertices 5\n*Edges\n1 2\n2 3\n")
    monkeypatch.setenv("NETZBENCH_MAX_NODES", "4")
    with pytest.raises(limits.SizeLimitError, match=r"\*Vertices 5 is over the cap of 4 nodes"):
        read_dataset(net, "link_pred", "pajek")
    monkeypatch.setenv("NETZBENCH_MAX_NODES", "5")
    assert read_dataset(net, "link_pred", "pajek").counts["num_nodes"] >= 3
    monkeypatch.setenv("NETZBENCH_MAX_NODES", "many")
    with pytest.raises(limits.SizeLimitError, match="NETZBENCH_MAX_NODES='many': expected a positive whole number"):
        read_dataset(net, "link_pred", "pajek")


def test_pajek_matrix_of_a_declared_size_over_the_cell_cap(tmp_path):
    net = tmp_path / "matrix.net"
    net.write_text("*Vertices 40000\n*Matrix\n0 1\n")
    with pytest.raises(limits.SizeLimitError, match=r"1,600,000,000 is over the cap of 268,435,456 matrix cells"):
        read_dataset(net, "link_pred", "pajek")


def test_a_gz_edge_list_holding_one_3_gib_comment_line_stops_at_the_line_cap(tmp_path):
    edges = tmp_path / "edges.txt.gz"
    _gz_bomb(edges, b"1 2\n# ", b"a", members=192)  # 3 GiB of comment, no line end
    assert edges.stat().st_size < 8 << 20
    out = _read_in_capped_process(edges, "edgelist")
    assert out["type"] == "SizeLimitError", out
    _one_line(out["error"], str(edges), "a line of more than", "67,108,864 bytes in one line", "NETZBENCH_MAX_LINE")
    assert out["seconds"] < 30


def test_a_gz_bomb_stops_at_the_inflation_cap_whatever_its_lines(tmp_path):
    edges = tmp_path / "edges.txt.gz"
    _gz_bomb(edges, b"", b"1 2\n", members=192)  # 3 GiB of short lines: 805 M edge records
    out = _read_in_capped_process(edges, "edgelist")
    assert out["type"] == "SizeLimitError", out
    _one_line(out["error"], str(edges), "decompresses to more than", "NETZBENCH_MAX_INFLATION")
    assert out["seconds"] < 30


def test_a_gexf_gz_that_inflates_to_gigabytes_stops_within_seconds(tmp_path):
    gexf = tmp_path / "bomb.gexf.gz"
    head = b'<?xml version="1.0"?><gexf xmlns="http://www.gexf.net/1.2draft"><graph><nodes><node id="0"/>'
    _gz_bomb(gexf, head, b" ", members=192, suffix=b"</nodes><edges/></graph></gexf>")
    out = _read_in_capped_process(gexf, "gexf", env={"NETZBENCH_MAX_INFLATION": "20"})
    assert out["type"] == "SizeLimitError", out
    _one_line(out["error"], str(gexf), "decompresses to more than", "NETZBENCH_MAX_INFLATION")
    assert out["seconds"] < 30


def test_the_input_cap_bounds_a_plain_file_too(tmp_path, monkeypatch):
    edges = tmp_path / "edges.txt"
    edges.write_bytes(b"1 2\n" * 1000)
    monkeypatch.setenv("NETZBENCH_MAX_INPUT", "1000")
    with pytest.raises(limits.SizeLimitError, match="input of more than 1,000 is over the cap of 1,000 bytes"):
        read_dataset(edges, "link_pred", "edgelist")


@pytest.mark.parametrize("text, expected", [
    ("DL N=1000000000\nFORMAT=EDGELIST1\nDATA:\n1 2\n", r"N = 1000000000: nodes 1,000,000,000 is over the cap"),
    ("DL NR=3 NC=999999999\nFORMAT=EDGELIST2\nDATA:\n1 2\n", r"nodes 1,000,000,002 is over the cap"),
    ("DL N=20000\nDATA:\n0 1\n", r"matrix cells 400,000,000 is over the cap of 268,435,456"),
    ("DL N=3 NM=100000000\nDATA:\n0 1 0\n1 0 1\n0 1 0\n", r"NM = 100000000: matrix cells 900,000,000"),
    # within the caps, a declared size the data does not fill is refused at the data's end, nothing allocated
    ("DL N=16000\nDATA:\n0 1\n", r"line 3: expected a row of 16000 values \(row 1 of matrix 1"),
    ("DL N=16000 NM=1\nFORMAT=LOWERHALF\nDATA:\n0\n", r"expected 16000 rows per matrix .*; found '1 row\(s\)"),
    ("DL N=3 NM=29000000\nDATA:\n0 1 0\n1 0 1\n0 1 0\n", r"found '0 row\(s\) in matrix 2"),
])
def test_ucinet_dl_declared_sizes_are_checked_before_allocating(tmp_path, text, expected):
    dl = tmp_path / "bomb.dl"
    dl.write_text(text)
    out = _read_in_capped_process(dl, "ucinet")
    assert out["type"] in ("SizeLimitError", "ReadError"), out
    _one_line(out["error"], str(dl))
    assert __import__("re").search(expected, out["error"]), out["error"]
    assert out["seconds"] < 30
