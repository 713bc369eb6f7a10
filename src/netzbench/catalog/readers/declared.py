"""A declared dataset: raw files in a known format, read into the processed layout without code.

:func:`read_dataset` is what fetch runs for a ``custom_tasks`` entry with a
``path:``; :func:`guess_format` names the format of a folder when the entry
gives none. Formats (:data:`FORMATS`), the families they serve and the files
they read:

==============  ==========================  =============================================
format          families                    files
==============  ==========================  =============================================
gml             link_pred, node_cls*        ``*.gml`` (Newman, Netzschleuder, networkx)
konect          link_pred                   ``out.<name>`` (``% sym|asym|bip`` header)
edgelist        link_pred                   one edge per line, whitespace/tab/CSV
netzschleuder   link_pred, node_cls*        ``<net>.csv.zip`` or ``edges.csv`` + ``nodes.csv``
sociopatterns   link_pred, node_cls*        ``tij_*.dat`` contact list ``t i j`` (+ ``metadata_*.dat``)
ucinet          link_pred                   UCINET DL (``DL N=...``, any suffix) or CSV matrix
multiplex       link_pred, node_cls*        ``*_multiplex.edges`` (layers aggregated; + ``*_nodes.txt``)
musae           node_cls*, link_pred        ``<name>_edges.csv`` + ``_target.csv`` (+ ``_features.json``)
geomgcn         node_cls*, link_pred        ``out1_graph_edges.txt`` + ``out1_node_feature_label.txt``
graphml         link_pred, node_cls*        ``*.graphml`` or XML ``<graphml>`` (Gephi, yEd, networkx, igraph)
gexf            link_pred, node_cls*        ``*.gexf`` or XML ``<gexf>`` (GEXF 1.x, Gephi's pre-1.0 samples)
pajek           link_pred                   ``*.net``: ``*Vertices N``, ``*Arcs``/``*Edges``/``*...list``/``*Matrix``
tu              graph_cls, graph_reg        ``<NAME>_A.txt``, ``_graph_indicator.txt``, ...
planetoid       node_cls, link_pred         ``ind.<name>.{x,tx,allx,y,ty,ally,graph,test.index}``
triples         link_pred (relational)      ``train.txt``/``valid.txt``/``test.txt`` named triples
openke          link_pred (relational)      ``train2id.txt``/... (or ``train.txt``/...) count line + ids
==============  ==========================  =============================================

\\* with ``label``: the node attribute (column) that is the class; for multiplex and sociopatterns a
column of the node table beside the edges (:mod:`.side_tables`), for musae and geomgcn of the node
table, whose features become ``x`` (:mod:`.node_tables`; geomgcn's class is ``label`` by default); for
graphml and gexf a declared node attribute, by its id or its ``attr.name``/``title`` (:mod:`.tool_formats`).
"""

from __future__ import annotations

import pickle
import re
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ...graphs.convert import single_graph_arrays, single_graph_counts
from ..archives import UnsafeArchive
from ..loaders import planetoid_copy, planetoid_dropped
from .knowledge import kg_layout, read_knowledge_graph, read_openke, read_triples
from .network_bundles import FILES, LABELLED, read_network
from .node_tables import TABLE_FILES, TABLE_FORMATS, finds as finds_table, read_node_table
from .safe_pickle import UnsafePickle
from .files import Bundle, ReadError, data_files, one_file
from .limits import SizeLimitError
from .tu import read_tu
from .ucinet_dl import is_dl

NETWORKS = tuple(FILES)
FAMILIES = {
    **{fmt: ("link_pred",) for fmt in NETWORKS},
    "gml": ("link_pred", "node_cls"),
    "netzschleuder": ("link_pred", "node_cls"),
    "multiplex": ("link_pred", "node_cls"),
    "sociopatterns": ("link_pred", "node_cls"),
    "musae": ("node_cls", "link_pred"),
    "geomgcn": ("node_cls", "link_pred"),
    "graphml": ("link_pred", "node_cls"),
    "gexf": ("link_pred", "node_cls"),
    "tu": ("graph_cls", "graph_reg"),
    "planetoid": ("node_cls", "link_pred"),
    "triples": ("link_pred",),
    "openke": ("link_pred",),
}
#: every format a ``custom_tasks`` entry can name, in the order :func:`guess_format` tries them (the tools'
#: formats, told by content, before the formats told by file name or suffix that could claim their files)
FORMATS = ("planetoid", "tu", "openke", "triples", "musae", "geomgcn", "netzschleuder", "gml", "graphml", "gexf",
           "pajek", "multiplex", "konect", "sociopatterns", "ucinet", "edgelist")
_PLANETOID = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def _planetoid_x(p: Path) -> bool:
    return re.fullmatch(r"ind\.[^.]+\.x", p.name) is not None


def read_planetoid(path: str | Path, family: str = "node_cls") -> Bundle:
    """Planetoid pickles ``ind.<name>.*`` (as PyG's ``Planetoid`` reads them, public split as masks),
    through the restricted unpickler: a pickle naming anything but numpy/scipy objects is refused."""
    from torch_geometric.io import read_planetoid_data

    x = one_file(Path(path), "planetoid", "ind.<name>.x (with the other Planetoid files)", _planetoid_x)
    name = x.name.split(".")[1]
    files = [x.with_name(f"ind.{name}.{s}") for s in _PLANETOID]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise ReadError("planetoid", x.parent, f"the eight files ind.{name}.*", f"{', '.join(missing)} missing")
    try:
        with tempfile.TemporaryDirectory(prefix="netzbench-planetoid-") as tmp:
            planetoid_copy(x.parent, name, tmp)
            data = read_planetoid_data(tmp, name)
    except UnsafePickle as exc:
        raise ReadError("planetoid", exc.file, "a pickle of numpy arrays, scipy sparse matrices or a dict of lists",
                        f"{exc.refused} (refused: unpickling it could run code)") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        raise ReadError("planetoid", x.parent, f"Planetoid pickles ind.{name}.*", f"{type(exc).__name__}: {exc}") from None
    arrays = single_graph_arrays(data)
    arrays["y"] = arrays["y"].astype(np.int64)
    return Bundle(arrays, single_graph_counts(arrays), planetoid_dropped(x.parent, name), files,
                  {"edges": "as PyG reads them (self-loops dropped, duplicates merged)"})


def _finds(path: Path, fmt: str) -> bool:
    """Whether ``path`` holds the files ``fmt`` reads (names and first lines only)."""
    if fmt in TABLE_FORMATS:  # by the two files' names, before the edge lists they would pass for
        return finds_table(path, fmt)
    files = data_files(path)
    names = {p.name for p in files}
    if fmt == "planetoid":
        return any(_planetoid_x(p) for p in files)
    if fmt == "tu":
        return any(p.name.endswith("_A.txt") and p.with_name(p.name[:-6] + "_graph_indicator.txt").is_file()
                   for p in files)
    if fmt in ("openke", "triples"):  # by content: OpenKE's count-line layout is also saved as train.txt
        found = kg_layout(path)
        return found is not None and found[0] == fmt
    if fmt == "multiplex":
        return any(p.name.endswith("_multiplex.edges") for p in files) or (path.is_file() and path.suffix == ".edges")
    if fmt == "sociopatterns":  # a UCINET DL file (also saved as .dat) is not a contact list, whatever its name
        return any(p.name.startswith("tij") and not is_dl(p) for p in files)
    if fmt == "edgelist":
        return len([p for p in files if FILES[fmt][1](p)]) == 1
    return any(FILES[fmt][1](p) for p in files)


def guess_format(path: str | Path) -> str:
    """The format of the raw files under ``path`` (the first of :data:`FORMATS` whose files are there)."""
    path = Path(path)
    for fmt in FORMATS:
        if _finds(path, fmt):
            return fmt
    listing = ", ".join(p.name for p in data_files(path)[:12]) or "no data files"
    raise ReadError("any known", path, f"files of a known format ({', '.join(FORMATS)})",
                    f"{listing}; give `format:`")


def _looks_like(path: Path) -> str:
    try:
        return f"the files look like {guess_format(path)!r}"
    except ReadError:
        return "no known format recognises them"


def read_dataset(path: str | Path, family: str, format: str | None = None, label: str | None = None) -> Bundle:
    """Read the raw files under ``path`` (a folder or one file) in ``format`` for ``family``.

    ``format`` None: :func:`guess_format`; a given format is checked against
    the files. ``label``: the node attribute or node-table column that is
    the class (``node_cls`` from a format of ``LABELLED``). Every problem is a
    :class:`ReadError` (a :class:`~netzbench.catalog.checks.DatasetError`)
    naming the format, the file, the line and what was found.
    """
    path = Path(path)
    if not path.exists():
        raise ReadError(format or "any known", path, "a file or folder of raw files", "nothing there")
    fmt = format or guess_format(path)
    if fmt not in FAMILIES:
        raise ReadError(fmt, path, f"a known format ({', '.join(FORMATS)})", fmt)
    if family not in FAMILIES[fmt]:
        raise ReadError(fmt, path, f"a family this format serves ({', '.join(FAMILIES[fmt])})", family)
    if label is not None and (family != "node_cls" or fmt not in LABELLED):
        raise ReadError(fmt, path, f"`label:` only with node_cls from {' or '.join(LABELLED)}", f"label {label!r}")
    if not _finds(path, fmt) and fmt not in ("edgelist", "openke", "triples"):  # a KG is read by content
        what = FILES[fmt][0] if fmt in FILES else TABLE_FILES.get(fmt, f"the files of the {fmt} format")
        raise ReadError(fmt, path, what, f"no such file ({_looks_like(path)})")
    try:
        if fmt in NETWORKS:
            bundle = read_network(path, fmt, family, label)
        elif fmt == "tu":
            bundle = read_tu(path, family)
        elif fmt == "planetoid":
            bundle = read_planetoid(path, family)
        elif fmt in TABLE_FORMATS:
            bundle = read_node_table(path, fmt, family, label)
        else:
            bundle = read_knowledge_graph(path, fmt)  # read as what the files hold (notes["recognised"])
    except (ReadError, SizeLimitError):
        raise
    except (ValueError, OSError, UnicodeDecodeError, zipfile.BadZipFile, UnsafeArchive, IndexError, KeyError) as exc:
        raise ReadError(fmt, path, f"files in the {fmt} format", f"{type(exc).__name__}: {exc}") from None
    bundle.notes.setdefault("format", fmt)  # a reader that read by content names what it read
    return bundle
