"""Readers of raw dataset files: the public API behind ``custom_tasks`` entries with a ``path:``.

What ``netzbench fetch`` does with a declared dataset, callable from Python::

    from netzbench import readers

    bundle = readers.read_dataset("raw/books.gml", "node_cls", format="gml", label="value")
    bundle.arrays    # the processed layout (netzbench.graphs.layout): edge_index, y, ...
    bundle.counts    # num_nodes, num_edges (undirected, duplicates merged, self-loops dropped), num_classes, ...
    bundle.dropped   # self_loops, duplicate_edges, weights, edge_attributes, ...
    bundle.files     # the raw files read (fetch records their sha256)
    bundle.notes     # format, label_mapping, node_features, header, ...
    readers.guess_format("raw/MY_MOLS")   # 'tu'

One reader per format (each returns a :class:`Bundle`; ``family`` as in
``custom_tasks``):

- :func:`read_gml`, :func:`read_konect`, :func:`read_edgelist`,
  :func:`read_netzschleuder`, :func:`read_sociopatterns`,
  :func:`read_ucinet`, :func:`read_multiplex` -- one network
  (``link_pred``; ``node_cls`` with ``label`` for GML, Netzschleuder, and
  multiplex and SocioPatterns from the node table beside the edges);
- :func:`read_graphml`, :func:`read_gexf`, :func:`read_pajek` -- one network
  from a network tool's file (Gephi, yEd, networkx, igraph, Pajek;
  ``link_pred``; ``node_cls`` with ``label`` naming a node attribute for
  GraphML and GEXF);
- :func:`read_musae`, :func:`read_geomgcn` -- an edge list plus a node table
  whose features become ``x`` (``node_cls`` with the class column, ``link_pred``);
- :func:`read_tu` -- a TU graph collection (``graph_cls``, ``graph_reg``);
- :func:`read_planetoid` -- Planetoid pickles (``node_cls``, ``link_pred``);
- :func:`read_triples`, :func:`read_openke` -- knowledge graphs (relational ``link_pred``).

A file that does not hold what its format says raises :class:`ReadError`
(a ``ValueError``) naming the format, the file, the line and what was found.
"""

from __future__ import annotations

from pathlib import Path

from .catalog.readers.declared import FAMILIES, FORMATS, guess_format, read_dataset, read_planetoid
from .catalog.readers.knowledge import read_openke, read_triples
from .catalog.readers.network_bundles import read_network
from .catalog.readers.node_tables import read_geomgcn, read_musae
from .catalog.readers.files import Bundle, ReadError
from .catalog.readers.tu import read_tu

__all__ = ["Bundle", "FAMILIES", "FORMATS", "ReadError", "guess_format", "read_dataset", "read_edgelist",
           "read_geomgcn", "read_gexf", "read_gml", "read_graphml", "read_konect", "read_multiplex", "read_musae",
           "read_netzschleuder", "read_openke", "read_pajek", "read_planetoid", "read_sociopatterns",
           "read_triples", "read_tu", "read_ucinet"]


def read_gml(path: str | Path, family: str = "link_pred", label: str | None = None) -> Bundle:
    """A GML network (Newman, Netzschleuder/graph-tool, networkx exports); ``label``: a node attribute
    that is the class (``node_cls``). ``directed``, weights and other attributes are dropped."""
    return read_network(path, "gml", family, label)


def read_konect(path: str | Path) -> Bundle:
    """A KONECT ``out.<name>`` file (``% sym|asym|bip`` header, ``from to [weight [time]]``, 1-based ids);
    two-mode (``bip``) networks get the right side numbered after the left."""
    return read_network(path, "konect")


def read_edgelist(path: str | Path) -> Bundle:
    """An edge list: one ``u v`` per line, separated by blanks, tabs or commas; an optional header line,
    ``#``/``%`` comments, further columns ignored; integer ids as in the file, or names."""
    return read_network(path, "edgelist")


def read_netzschleuder(path: str | Path, family: str = "link_pred", label: str | None = None) -> Bundle:
    """A Netzschleuder ``<net>.csv.zip`` (or its ``edges.csv`` + ``nodes.csv``); ``label``: a column of
    ``nodes.csv`` that is the class (``node_cls``)."""
    return read_network(path, "netzschleuder", family, label)


def read_sociopatterns(path: str | Path, family: str = "link_pred", label: str | None = None) -> Bundle:
    """A SocioPatterns contact list ``t i j [...]``: two people are linked if ever in contact; ``label``
    (``node_cls``): a column of ``metadata_<name>.dat`` (headerless: ``class`` is the column after the id,
    ``column<k>`` the k-th), every person of it kept."""
    return read_network(path, "sociopatterns", family, label)


def read_ucinet(path: str | Path) -> Bundle:
    """A UCINET network, told by content: a DL file (first word ``DL``, any suffix: ``DL N=5`` or two-mode
    ``DL NR=3 NC=4``; ``FORMAT = FULLMATRIX`` (default), ``LOWERHALF``/``UPPERHALF``, ``EDGELIST1``,
    ``NODELIST1``; ``LABELS:``/``ROW``/``COLUMN``/``LEVEL LABELS:`` or ``LABELS EMBEDDED``; ``NM`` stacked
    matrices aggregated, their number in ``dropped["layers"]``), or a CSV adjacency matrix (a header row
    of names, rows ``name,a_1,...,a_n``). Nonzero cells are ties; values other than 0/1 are dropped
    (``dropped["weights"]``); two-mode column nodes are numbered after the row nodes."""
    return read_network(path, "ucinet")


def read_multiplex(path: str | Path, family: str = "link_pred", label: str | None = None) -> Bundle:
    """A CoMuNe-lab ``<name>_multiplex.edges`` file (``layer node node weight``), layers aggregated;
    ``label`` (``node_cls``): a column of the ``<name>_nodes.txt`` header, every node of it kept."""
    return read_network(path, "multiplex", family, label)


def read_graphml(path: str | Path, family: str = "link_pred", label: str | None = None) -> Bundle:
    """A GraphML file (Gephi, yEd, networkx, igraph; ``.gz`` too); ``label`` (``node_cls``): a node
    attribute, by its ``<key>`` id or its ``attr.name``, its ``<default>`` for nodes without a value.
    Undirected edges listed in both directions count in ``dropped["reverse_records"]``; nested graphs
    are flattened (``notes["nested_graphs"]``); a file with a DOCTYPE is refused (no entity expansion)."""
    return read_network(path, "graphml", family, label)


def read_gexf(path: str | Path, family: str = "link_pred", label: str | None = None) -> Bundle:
    """A GEXF file (1.1, 1.2draft, 1.3, and Gephi's pre-1.0 ``http://www.gephi.org/gexf`` samples with
    ``<attvalue id=..>``); ``label`` (``node_cls``): a node attribute by its id or ``title``. Weights other
    than 1, edge attributes and times are dropped; a file with a DOCTYPE is refused."""
    return read_network(path, "gexf", family, label)


def read_pajek(path: str | Path) -> Bundle:
    """A Pajek ``.net`` file: ``*Vertices N`` (``N M`` two-mode), ``*Arcs``/``*Edges`` (and ``*Arcslist``,
    ``*Edgeslist``, ``*Matrix``), 1-based ids, quoted names, ``%`` comments; every one of the ``N``
    vertices is declared (those without an edge are ``dropped["isolated_nodes"]``), weights dropped."""
    return read_network(path, "pajek")
