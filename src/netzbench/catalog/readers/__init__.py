"""Readers for raw dataset formats (one module per format family), and beside them the processors of
catalogue datasets that call them or a PyG/OGB class (:mod:`.networks`, :mod:`.pyg_datasets`,
:mod:`.pyg_misc`, :mod:`.pyg_vision`)."""
