"""Getting the train stage ready while the fetch stage runs, for a candidate never seen before.

A ``dvc exp run -S model=package.module:Class`` with a model whose families are not remembered
(:mod:`netzbench.model_traits`) will import it in the train stage (torch and PyG: seconds) and then train
it, in children of the warm server (:mod:`.warm`, seconds more to start). Both are known when the fetch
stage starts, so ``netzbench fetch --all`` hands them to a detached process
(``python -m netzbench.run.prewarm``) that starts the warm server, whose first child imports the model
(torch loaded once, not twice at once on a small machine) to remember its traits, while the data is
fetched and DVC moves on. The train stage then finds the server running (or
waits for its start, :func:`.warm.ensure_server`'s lock) and the traits remembered (or waits for them,
:func:`netzbench.model_traits.model_traits`' lock) instead of doing either itself.

Nothing depends on it: the process says nothing and writes only what the train stage would write (the
traits entry; the server); if it fails (a model that does not import), the train stage imports the model
itself and reports the error. It gets this process's environment, working directory and ``sys.path``
(set as the pool sets them), so the server it starts has the fingerprint the train stage asks for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ..settings import Settings


def spawn(settings: Settings) -> bool:
    """Start the detached process when ``settings`` name a ``module:Class`` candidate whose traits are not
    remembered and seeds would run in warm children (the local executor, ``warm_s`` > 0). Returns whether
    it was started."""
    from ..model_traits import remembered
    from .warm import ahead_of_the_pool

    model = settings.candidate.model
    if not model or ":" not in model or os.name != "posix" or remembered(model):
        return False
    idle_s = ahead_of_the_pool(settings.execution)  # the environment and import path the pool will ask with
    if idle_s is None:
        return False
    try:
        subprocess.Popen([sys.executable, "-m", __name__, model, str(idle_s), json.dumps(sys.path)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         close_fds=True, start_new_session=True)  # outlives the stage; holds none of its pipes
    except OSError:
        return False
    return True


#: seconds the process waits for the server's child to answer before it imports the model itself
LEARN_WAIT_S = 60.0


def _main(model: str, idle_s: float, path: list[str]) -> None:
    """Start the server with ``model`` to learn (a child forked from it imports the model with torch
    already loaded: one import of torch, not two at once), holding the model's traits lock until the
    answer is there, so the train stage waits for it instead of importing the model as well. A server
    that was running already (no child of it learns) or none at all: the model is imported here."""
    import time

    from ..model_traits import answered, traits_key, learn, learning
    from .warm import start_server

    sys.path[:] = path  # the stage's, not this module's runner's: the fingerprint hashes it
    key = traits_key(model)  # once: it hashes the result code and the model's source
    with learning(model, key):
        if answered(model, key):
            return
        try:
            started = start_server(idle_s, learn=model)[1]
        except Exception:  # noqa: BLE001 - the train stage asks again and says why
            started = False
        deadline = time.monotonic() + LEARN_WAIT_S
        while started and not answered(model, key) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not answered(model, key):
            try:
                learn(model, key)
            except Exception:  # noqa: BLE001 - the train stage imports the model itself and reports the error
                pass


if __name__ == "__main__":
    _main(sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3]))
