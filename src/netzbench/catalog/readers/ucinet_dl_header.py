"""The header of a UCINET DL file, read by its grammar (:mod:`.ucinet_dl` reads the data after it).

Keywords in any order, several on a line or one per line, any case,
separated by blanks or commas, ``=`` optional (``FORMAT = FULLMATRIX
DIAGONAL PRESENT`` is ``FORMAT`` and ``DIAGONAL``); label sections
(``LABELS:``, ``ROW``/``COLUMN``/``LEVEL LABELS:``, quoted or bare labels
over one or several lines, ended by a keyword or a section); ``... LABELS
EMBEDDED``; ``DATA:``. A bare keyword is recognised by its value (``N 15``,
``FORMAT FULLMATRIX``, ``DIAGONAL ABSENT``), so a label section holding
the word ``N`` or ``format`` alone is still read as labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .files import ReadError

FMT = "ucinet"

#: ``FORMAT =`` values (UCINET's short names too) -> the layout read
LAYOUTS = {"fullmatrix": "fullmatrix", "fm": "fullmatrix", "full": "fullmatrix",
           "lowerhalf": "lowerhalf", "lh": "lowerhalf", "upperhalf": "upperhalf", "uh": "upperhalf",
           "edgelist1": "edgelist", "el1": "edgelist", "edgelist2": "edgelist2", "el2": "edgelist2",
           "nodelist1": "nodelist", "nl1": "nodelist", "nodelist2": "nodelist2", "nl2": "nodelist2"}
KEYS = ("n", "nm", "nr", "nc", "format", "diagonal")
_KEYWORDS = ("DL keywords (N=, NR=, NC=, NM=, FORMAT=, DIAGONAL=, LABELS:, ROW/COLUMN/LEVEL LABELS:, "
             "LABELS EMBEDDED, DATA:)")
FORMATS = "FORMAT = FULLMATRIX, LOWERHALF, UPPERHALF, EDGELIST1, EDGELIST2, NODELIST1 or NODELIST2"

DL_WORD = re.compile(rb"\s*dl(?=[\s,]|$)", re.I)
_SEP = re.compile(r"[\s,]*")
_HEAD = re.compile(r"""
    (?P<dl>dl)(?=[\s,]|$)
  | (?P<embedded>(?:(?P<eside>row|col|column|level|matrix)\s+)?labels\s+embedded)\b\s*:?
  | (?P<labels>(?:(?P<side>row|col|column|level|matrix)\s+)?labels)\s*:
  | (?P<data>data)\s*:
  | (?P<key>[a-z]\w*)\s*=\s*(?P<value>"[^"]*"|[^\s,"]+)
  | (?P<bare>n|nm|nr|nc|format|diagonal)\s+(?P<bvalue>(?!=)[^\s,"=]+)(?=[\s,]|$)
""", re.I | re.X)
#: a line that ends a label section: a section or a keyword starts it
_KEYLINE = re.compile(r"""(?:(?:row|col|column|level|matrix)\s+)?labels\s*(?::|\s+embedded\b)
                          | data\s*: | (?:n|nm|nr|nc|format|diagonal)\s*=
                          | (?:n|nm|nr|nc)\s+\d+\s*(?:[\s,]|$) | diagonal\s+(?:present|absent)\b
                          | format\s+(?:fullmatrix|fm|full|lowerhalf|lh|upperhalf|uh|edgelist[12]|el[12]
                                      |nodelist[12]|nl[12])\b""", re.I | re.X)
_TOKEN = re.compile(r'"([^"]*)"|([^\s,"]+)|(")')
_SIDES = {"": "both", "row": "row", "col": "col", "column": "col", "level": "level", "matrix": "level"}



def tokens(text: str, path: Path, number: int) -> list[str]:
    """The fields of ``text``: separated by commas or blanks, ``"quoted"`` ones kept whole."""
    if '"' not in text:
        return text.replace(",", " ").split()
    out = []
    for m in _TOKEN.finditer(text):
        if m.group(3) is not None:
            raise ReadError(FMT, path, "fields separated by commas or blanks, quotes closed", text.strip(), number)
        out.append(m.group(1).strip() if m.group(1) is not None else m.group(2))
    return out


@dataclass
class Header:
    keys: dict  # key -> (value, line)
    sections: dict  # both/row/col/level -> (labels, [line of each label], line of the section)
    embedded: set  # {"row", "col"}
    data: list  # (line number, text) of the non-blank lines after DATA:
    dl_line: int


def read_header(path: Path, lines: list[str]) -> Header:
    keys: dict = {}
    sections: dict = {}
    embedded: set = set()
    current = None  # the label section being read
    dl_line = None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if dl_line is None:
            if not DL_WORD.match(line.encode()):
                raise ReadError(FMT, path, "a UCINET DL file starting with 'DL'", line, number)
            dl_line = number
        if current is not None:
            if not _KEYLINE.match(line):
                words = tokens(line, path, number)
                current[0].extend(words)
                current[1].extend([number] * len(words))
                continue
            current = None
        pos = 0
        while True:
            pos = _SEP.match(line, pos).end()
            if pos >= len(line):
                break
            m = _HEAD.match(line, pos)
            if m is None or (m.group("dl") and (number != dl_line or pos)):
                raise ReadError(FMT, path, _KEYWORDS, line[pos:], number)
            if m.group("embedded"):
                side = _SIDES[(m.group("eside") or "").lower()]
                embedded |= {"row", "col"} if side == "both" else {side}
            elif m.group("labels"):
                side = _SIDES[(m.group("side") or "").lower()]
                if side in sections:
                    raise ReadError(FMT, path, f"one {m.group('labels').upper()}: section", line, number)
                words = tokens(line[m.end():], path, number)
                current = sections[side] = (words, [number] * len(words), number)
                break
            elif m.group("data"):
                data = [(number, line[m.end():])] if line[m.end():].strip() else []
                data += [(k, text) for k, text in enumerate(lines[number:], number + 1) if text.strip()]
                return Header(keys, sections, embedded, data, dl_line)
            elif m.group("key") or m.group("bare"):
                key = (m.group("key") or m.group("bare")).lower()
                if key not in KEYS:
                    raise ReadError(FMT, path, _KEYWORDS, m.group(0), number)
                if key in keys:
                    raise ReadError(FMT, path, f"{key.upper()} = once in the header", m.group(0), number)
                keys[key] = ((m.group("value") or m.group("bvalue")).strip('"').strip(), number)
            pos = m.end()
    raise ReadError(FMT, path, "a 'DATA:' line, then the data", "the end of the file" if dl_line else "an empty file")


def size(keys: dict, key: str, path: Path) -> int:
    value, line = keys[key]
    if not value.isdigit() or int(value) < 1:
        raise ReadError(FMT, path, f"{key.upper()} = a positive whole number", f"{key.upper()} = {value}", line)
    return int(value)


def section_labels(head: Header, side: str, count: int, what: str, path: Path) -> list[str] | None:
    """The labels of section ``side``, checked to be ``count`` of them."""
    if side not in head.sections:
        return None
    labels, at, line = head.sections[side]
    if len(labels) != count:
        found = f"{len(labels)} label(s)" + (f": {', '.join(labels[:8])}{', ...' if len(labels) > 8 else ''}"
                                             if labels else "")
        raise ReadError(FMT, path, f"{count} labels ({what})", found,
                        at[count] if len(labels) > count else (at[-1] if at else line))
    return labels
