"""The dataset catalogue: datasets, benchmark tasks, fetching and processed data."""

from .table import CATEGORIES, DATASETS, TASKS, Dataset, RawFile, Source, TaskSpec, get_dataset, get_task

__all__ = ["CATEGORIES", "DATASETS", "TASKS", "Dataset", "RawFile", "Source", "TaskSpec", "get_dataset", "get_task"]
