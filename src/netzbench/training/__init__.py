"""Training: one loop per task family, seeding, splits, metrics, the inner search (result identity)."""
