"""Imported once by the forkserver so each seed's process starts with torch loaded."""

import torch  # noqa: F401
import torch_geometric  # noqa: F401

from . import worker  # noqa: F401
from ..models import adapters, encoders, gin  # noqa: F401
from ..training import loops, seed  # noqa: F401
