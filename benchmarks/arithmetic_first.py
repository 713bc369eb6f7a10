"""The arithmetic mode of a benchmark script, set before torch is imported: one helper for every script.

Torch (and MKL, oneDNN) fix their CPU kernels when torch is imported (:mod:`netzbench.run.arithmetic`), and
the workers, probes and child processes a script starts inherit its environment. A script that imported
torch first and then trained under ``exec.arithmetic: portable`` (the default) was refused in every CPU seed
on an AVX-512 host (issue 48: ``bench_scaling.py``). So each script calls :func:`configure_arithmetic`
first thing in ``main()``, before anything that imports torch::

    from arithmetic_first import configure_arithmetic

    def main():
        args = parser.parse_args()
        mode = configure_arithmetic(params=args.params)   # exec.arithmetic of that file, or the default

It imports neither torch nor anything that does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class TorchAlreadyImported(SystemExit):
    """The script imported torch before its arithmetic mode was set (a one-line message, exit 2)."""


def mode_of(params: str | Path | None) -> str:
    """``exec.arithmetic`` of the params file ``params`` (absent or unset: netzbench's default)."""
    from netzbench.params import DEFAULTS

    default = DEFAULTS["exec"]["arithmetic"]
    if params is None or not Path(params).is_file():
        return default
    from netzbench.params_file import read_yaml

    data = read_yaml(Path(params)) or {}
    return ((data.get("exec") or {}).get("arithmetic")) or default


def configure_arithmetic(mode: str | None = None, *, params: str | Path | None = "params.yaml") -> str:
    """Set ``mode`` (None: :func:`mode_of` ``params``) in this process's environment for torch and every
    process the script starts, and return it. Refuses (:class:`TorchAlreadyImported`) where torch is loaded
    already and the mode's variables were not in the environment before it was."""
    from netzbench.run.arithmetic import PORTABLE_ENV, configure

    mode = mode or mode_of(params)
    pinned = all(os.environ.get(k) == v for k, v in PORTABLE_ENV.items())
    if "torch" in sys.modules and mode == "portable" and not pinned:
        script = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "this script"
        print(f"{script}: torch was imported before the arithmetic mode was set: call "
              "configure_arithmetic() first (benchmarks/arithmetic_first.py)", file=sys.stderr)
        raise TorchAlreadyImported(2)
    configure(mode)
    return mode
