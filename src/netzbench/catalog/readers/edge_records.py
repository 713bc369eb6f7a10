"""The edge records of one network, as a raw-format reader returns them (ids as in the file)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class EdgeRecords:
    """The edge records of one network, ids as in the file."""

    src: np.ndarray  # int64 [m]
    dst: np.ndarray  # int64 [m]
    directed: bool | None = None  # None: the format does not say
    declared_nodes: int | None = None  # size of the node list the format declares
