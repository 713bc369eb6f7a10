"""Your own models. DVC's candidate stage depends on this folder, so editing a
model here retrains it (`dvc exp run -S model=user_models.example:MyGNN`)."""
