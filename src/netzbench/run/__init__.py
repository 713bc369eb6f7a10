"""Running cells: execution only, never part of result identity.

- :mod:`.plan` -- a cell's plan: its record so far, the cache keys, the jobs to run;
- :mod:`.job` -- a seed job (:class:`.job.Job`): what one unit of training computes and how it runs;
- :mod:`.execute` -- running plans on an executor, caching each result, writing records;
- :mod:`.pool` (local processes), :mod:`.inprocess` (this process), :mod:`.ray_executor` (a Ray cluster);
- :mod:`.warm` (the warm server's client; :mod:`.warm_server` its process, :mod:`.wire` its JSON
  frames) and :mod:`.runtime` (the private runtime folder, whose processes are ours, scratch folders);
- :mod:`.worker` -- one job in a worker: threads, limits, data, then training;
- :mod:`.device` -- which device the seeds train on, decided without initialising CUDA here; how a GPU
  worker starts (spawned) and which device it pins;
- :mod:`.cache` -- the per-seed result cache;
- :mod:`.preload` -- what the forkserver imports once.

What a job computes is decided by its ``spec`` (task spec, model, hyperparameters,
seed) and data alone; every other field of a job says how to run it.
"""
