"""Catalogue entries, one module per research category (or source family).

Every module here is imported (in name order) when the catalogue loads, and
registers its datasets and tasks with :func:`netzbench.catalog.table.add_dataset`
and :func:`~netzbench.catalog.table.add_task`. Keep modules import-light
(no torch at import time): the CLI lists and validates tasks without torch.
"""

import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_info.name}")
