"""GraphML and GEXF, read event by event with the standard library's expat (:mod:`.tool_formats`).

Elements are matched by local name (any namespace or prefix: GraphML's, yEd's ``y:``, GEXF 1.x,
Gephi's pre-1.0 ``http://www.gephi.org/gexf``); only the elements that make the network are
descended into (``<graphml>``/``<graph>``/``<node>``/``<edge>``/``<key>``, ``<gexf>``/``<graph>``/
``<attributes>``/``<nodes>``/``<edges>``/``<attvalues>``), so drawing data of any namespace is
skipped whole. A DOCTYPE (where entities are declared) stops the parse before anything in it is
read: no entity is expanded, no external DTD fetched.
"""

from __future__ import annotations

from pathlib import Path
from xml.parsers import expat

from .streaming import open_binary
from .networks import WEIGHT_ATTRIBUTES
from .files import ReadError
from .tool_graph import NESTED_VALUE, NodeAttribute, ToolGraph, finish_graph, is_unit_weight, note_edge_attributes


def _parse_xml(file: Path, fmt: str, handler) -> None:
    """Feed ``file`` to ``handler`` (``start(local name, attributes, line)``, ``end()``, ``text(data)``);
    a DOCTYPE or an entity declaration is refused before anything in it is read."""
    parser = expat.ParserCreate()
    parser.buffer_text = True

    def start(name, attrs):
        handler.start(name.rpartition(":")[2], attrs, parser.CurrentLineNumber)

    def doctype(name, *_):
        raise ReadError(fmt, file, "XML without a DOCTYPE (entities are not expanded in untrusted files: "
                        "delete the <!DOCTYPE ...> declaration)", f"<!DOCTYPE {name} ...>", parser.CurrentLineNumber)

    def entity(name, *_):
        raise ReadError(fmt, file, "XML without entity declarations", f"<!ENTITY {name} ...>", parser.CurrentLineNumber)

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda name: handler.end()
    parser.CharacterDataHandler = handler.text
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        with open_binary(file, lines=False) as fh:  # XML may be one line
            parser.ParseFile(fh)
    except expat.ExpatError as exc:
        raise ReadError(fmt, file, "well-formed XML", expat.ErrorString(exc.code), exc.lineno) from None
    if not handler.seen_root:
        raise ReadError(fmt, file, f"a <{handler.ROOT}> document", "no root element")


class _Handler:
    """What the GraphML and GEXF handlers share: the element stack, skipped subtrees, captured text."""

    ROOT = ""
    TEXT = ()  # the elements whose text is captured

    def __init__(self, fmt: str, file: Path):
        self.fmt, self.file = fmt, file
        self.stack: list[str] = []  # local names of open elements; "skip" for an ignored subtree
        self.seen_root = False
        self.buffer: list[str] = []
        self.nested_text = False
        self.names: list[str] = []  # declared nodes
        self.lines: list[int] = []
        self.index: dict[str, int] = {}
        self.nodes: list[int] = []  # positions of the open <node> elements
        self.src: list[str] = []
        self.dst: list[str] = []
        self.edge_lines: list[int] = []
        self.directed: list[bool] = []
        self.nested = 0

    def fail(self, expected: str, found: str, line: int):
        raise ReadError(self.fmt, self.file, expected, found, line)

    def start(self, name: str, attrs: dict, line: int) -> None:
        parent = self.stack[-1] if self.stack else None
        if parent in self.TEXT or parent == "skip":
            self.nested_text = self.nested_text or parent in self.TEXT
            self.stack.append("skip")
            return
        if parent is None:
            if name != self.ROOT:
                self.fail(f"a <{self.ROOT}> document", f"<{name}>", line)
            self.seen_root = True
            self.root(attrs, line)
            self.stack.append(name)
            return
        kind = self.element(name, parent, attrs, line)
        if kind in self.TEXT:
            self.buffer, self.nested_text = [], False
        self.stack.append(kind or "skip")

    def end(self) -> None:
        kind = self.stack.pop()
        if kind in self.TEXT:
            self.closed(kind, NESTED_VALUE if self.nested_text else "".join(self.buffer).strip())
        elif kind == "node":
            self.nodes.pop()
        else:
            self.closed(kind, None)

    def text(self, data: str) -> None:
        if self.stack and self.stack[-1] in self.TEXT:
            self.buffer.append(data)

    def node(self, node_id: str | None, line: int) -> None:
        if node_id is None:
            self.fail("an id on every <node>", "<node> without an id", line)
        if node_id in self.index:
            self.fail("distinct node ids", f"node {node_id!r} declared again (first at line "
                      f"{self.lines[self.index[node_id]]})", line)
        self.index[node_id] = len(self.names)
        self.nodes.append(len(self.names))
        self.names.append(node_id)
        self.lines.append(line)

    def edge(self, attrs: dict, directed: bool, line: int) -> None:
        if attrs.get("source") is None or attrs.get("target") is None:
            self.fail("a source and a target on every <edge>", "an <edge> without " +
                      " and ".join(k for k in ("source", "target") if attrs.get(k) is None), line)
        self.src.append(attrs["source"])
        self.dst.append(attrs["target"])
        self.edge_lines.append(line)
        self.directed.append(directed)

    def direction(self, value: str, words: dict, what: str, line: int) -> bool:
        if value not in words:
            self.fail(f"{what} one of {', '.join(words)}", value, line)
        return words[value]

    def root(self, attrs: dict, line: int) -> None:  # pragma: no cover - overridden
        pass

    def element(self, name: str, parent: str, attrs: dict, line: int) -> str | None:  # pragma: no cover
        return None

    def closed(self, kind: str, value) -> None:
        pass


# ---------------------------------------------------------------------------------- GraphML


class _GraphML(_Handler):
    ROOT = "graphml"
    TEXT = ("data", "default")

    def __init__(self, fmt: str, file: Path):
        super().__init__(fmt, file)
        self.keys: dict[str, dict] = {}  # id -> {for, name, type, line, default}
        self.key: str | None = None  # the <key> open
        self.node_data: dict[str, dict] = {}  # key id -> {node position: text}
        self.edge_data: dict[str, bool] = {}  # key id -> some value is not 1
        self.data: tuple | None = None  # (on, key id) of the open <data>
        self.defaults: list[bool] = []  # edgedefault directed, per open <graph>
        self.graphs = 0

    def element(self, name, parent, attrs, line):
        if name == "key" and parent == "graphml":
            key = attrs.get("id")
            if key is None:
                self.fail("an id on every <key>", "<key> without an id", line)
            self.keys[key] = {"for": attrs.get("for", "all"), "type": attrs.get("attr.type", "string"),
                              "name": attrs.get("attr.name") or attrs.get("yfiles.type"), "line": line, "default": None}
            self.key = key
            return "key"
        if name == "default" and parent == "key":
            return "default"
        if name == "graph" and parent in ("graphml", "node"):
            if parent == "graphml":
                self.graphs += 1
                if self.graphs > 1:
                    self.fail("one <graph> in the file (one network)", "a second top-level <graph>", line)
            else:
                self.nested += 1
            self.defaults.append(self.direction(attrs.get("edgedefault", "undirected"),
                                                {"undirected": False, "directed": True}, "edgedefault", line))
            return "graph"
        if name == "data" and parent in ("node", "edge"):
            key = attrs.get("key")
            if key is None:
                self.fail("a key on every <data>", "<data> without a key", line)
            self.data = (parent, key)
            if parent == "edge":
                self.edge_data.setdefault(key, False)
            return "data"
        if parent != "graph":
            return None
        if name == "node":
            self.node(attrs.get("id"), line)
            return "node"
        if name == "edge":
            default = self.defaults[-1]
            directed = attrs.get("directed")
            if directed is not None:
                default = self.direction(directed.lower(), {"true": True, "false": False, "1": True, "0": False},
                                         "directed=", line)
            self.edge(attrs, default, line)
            return "edge"
        if name == "hyperedge":
            self.fail("edges between two nodes (a <hyperedge> cannot be a link)", "<hyperedge>", line)
        return None

    def closed(self, kind, value):
        if kind == "data":
            on, key = self.data
            if on == "node":
                self.node_data.setdefault(key, {})[self.nodes[-1]] = value
            elif value is NESTED_VALUE or not is_unit_weight(value):
                self.edge_data[key] = True
        elif kind == "default":
            self.keys[self.key]["default"] = value
        elif kind == "graph":
            self.defaults.pop()


def read_graphml(path: str | Path) -> ToolGraph:
    """A GraphML file (plain or ``.gz``/``.bz2``): module docstring."""
    file = Path(path)
    h = _GraphML("graphml", file)
    _parse_xml(file, "graphml", h)
    if h.graphs == 0:
        raise ReadError("graphml", file, "a <graph> in the <graphml> document", "none")
    info: dict = {}
    edge_keys = dict(h.edge_data)
    if h.src:  # a default for edges is a value on every edge
        edge_keys.update({k: not is_unit_weight(v["default"]) for k, v in h.keys.items() if v["for"] in ("edge", "all")
                          and v["default"] not in (None, NESTED_VALUE) and k not in edge_keys})

    def named(key):
        return h.keys[key]["name"] if key in h.keys and h.keys[key]["name"] else key

    note_edge_attributes(info, [named(k) for k in edge_keys],
            any(other for k, other in edge_keys.items() if named(k).lower() in WEIGHT_ATTRIBUTES))
    if h.nested:
        info["nested_graphs"] = h.nested
    attributes = {k: NodeAttribute(k, v["name"], v["type"], v["line"], v["default"], h.node_data.get(k, {}))
                  for k, v in h.keys.items() if v["for"] in ("node", "all")}
    for key, values in h.node_data.items():  # data naming an undeclared key: the key id is its name
        if key not in h.keys:
            attributes[key] = NodeAttribute(key, None, "string", h.lines[min(values)], None, values)
    return finish_graph("graphml", file, h.names, h.lines, (h.src, h.dst, h.edge_lines), h.directed, info, attributes)


# ---------------------------------------------------------------------------------- GEXF


class _GEXF(_Handler):
    ROOT = "gexf"
    TEXT = ("default",)
    _TYPES = {"undirected": False, "directed": True, "mutual": False}

    def __init__(self, fmt: str, file: Path):
        super().__init__(fmt, file)
        self.declared = {"node": {}, "edge": {}}  # class -> attribute id -> NodeAttribute
        self.attribute_class: str | None = None
        self.attribute: NodeAttribute | None = None
        self.default_type = False
        self.graphs = 0
        self.edge_values: dict[str, bool] = {}  # attribute id -> some value is not 1
        self.edge_xml: dict[str, bool] = {}  # XML attribute of <edge> -> some value is not 1
        self.timestamps = False
        self.kinds: set[str] = set()
        self.owner: list[str] = []  # "node" / "edge": whose <attvalues> are open

    def element(self, name, parent, attrs, line):
        if name == "graph" and parent == "gexf":
            self.graphs += 1
            if self.graphs > 1:
                self.fail("one <graph> in the file (one network)", "a second <graph>", line)
            self.default_type = self.direction(attrs.get("defaultedgetype", "undirected"), self._TYPES,
                                               "defaultedgetype", line)
            return "graph"
        if name == "attributes" and parent == "graph":
            cls = attrs.get("class", "node")
            if cls not in ("node", "edge"):
                self.fail("<attributes class=\"node|edge\">", f"class={cls!r}", line)
            self.attribute_class = cls
            return "attributes"
        if name == "attribute" and parent == "attributes":
            aid = attrs.get("id")
            if aid is None:
                self.fail("an id on every <attribute>", "<attribute> without an id", line)
            self.attribute = NodeAttribute(aid, attrs.get("title"), attrs.get("type", "string"), line)
            self.declared[self.attribute_class][aid] = self.attribute
            return "attribute"
        if name == "default" and parent == "attribute":
            return "default"
        if name == "nodes" and parent in ("graph", "node"):
            if parent == "node":
                self.nested += 1
            return "nodes"
        if name == "edges" and parent in ("graph", "node"):
            return "edges"
        if name == "node" and parent == "nodes":
            self.node(attrs.get("id"), line)
            return "node"
        if name == "edge" and parent == "edges":
            kind = attrs.get("type")
            directed = self.default_type if kind is None else self.direction(kind, self._TYPES, "type=", line)
            self.edge(attrs, directed, line)
            for key, value in attrs.items():
                if key in ("start", "end", "startopen", "endopen"):
                    self.timestamps = True
                elif key == "kind":
                    self.kinds.add(value)
                elif key not in ("id", "source", "target", "type"):
                    self.edge_xml[key] = self.edge_xml.get(key, False) or not is_unit_weight(value)
            return "edge"
        if name == "spells" and parent == "edge":
            self.timestamps = True
            return None
        if name == "attvalues" and parent in ("node", "edge"):
            self.owner.append(parent)
            return "attvalues"
        if name == "attvalue" and parent == "attvalues":
            self.attvalue(attrs, line)
            return "attvalue"
        return None

    def attvalue(self, attrs: dict, line: int) -> None:
        aid = attrs.get("for", attrs.get("id"))  # 1.x: for=, Gephi's pre-1.0 files: id=
        value = attrs.get("value")
        if aid is None or value is None:
            self.fail("<attvalue for=\"..\" value=\"..\"> (or id=\"..\")", "an <attvalue> without "
                      + ("for/id" if aid is None else "value"), line)
        if self.owner[-1] == "edge":
            if attrs.keys() & {"start", "end", "startopen", "endopen"}:
                self.timestamps = True
            self.edge_values[aid] = self.edge_values.get(aid, False) or not is_unit_weight(value)
            return
        pos = self.nodes[-1]
        attr = self.declared["node"].get(aid)
        if attr is None:  # a value naming an undeclared attribute: the id is its name
            attr = self.declared["node"][aid] = NodeAttribute(aid, None, "string", line)
        if pos in attr.values and attr.values[pos] != value and attr.changing is None:
            attr.changing = (pos, line)
        attr.values.setdefault(pos, value)

    def closed(self, kind, value):
        if kind == "default":
            self.attribute.default = value
        elif kind == "attvalues":
            self.owner.pop()


def read_gexf(path: str | Path) -> ToolGraph:
    """A GEXF file (1.x or Gephi's pre-1.0; plain or ``.gz``/``.bz2``): module docstring."""
    file = Path(path)
    h = _GEXF("gexf", file)
    _parse_xml(file, "gexf", h)
    if h.graphs == 0:
        raise ReadError("gexf", file, "a <graph> in the <gexf> document", "none")
    edge_attrs = h.declared["edge"]
    values = dict(h.edge_values)
    if h.src:
        values.update({k: not is_unit_weight(a.default) for k, a in edge_attrs.items()
                       if a.default not in (None, NESTED_VALUE) and k not in values})

    def named(aid):
        return edge_attrs[aid].name or aid if aid in edge_attrs else aid

    names = [named(k) for k in values] + list(h.edge_xml)
    weighted = any(other for k, other in values.items() if named(k).lower() in WEIGHT_ATTRIBUTES)
    weighted = weighted or any(other for k, other in h.edge_xml.items() if k.lower() in WEIGHT_ATTRIBUTES)
    info: dict = {}
    note_edge_attributes(info, names, weighted)
    if len(h.kinds) > 1:
        info["layers"] = True
    if h.timestamps:
        info["timestamps"] = True
    if h.nested:
        info["nested_graphs"] = h.nested
    return finish_graph("gexf", file, h.names, h.lines, (h.src, h.dst, h.edge_lines), h.directed, info,
                   h.declared["node"])
