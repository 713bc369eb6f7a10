"""Training: per-family trainers, splits, metrics, the per-seed cache and the cell runner."""
