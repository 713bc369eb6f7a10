"""What the seed processes' server preloads (run/preload.py): the roster's layers compiled once, the global
generator untouched, no generated file left behind."""

import os
import subprocess
import sys
import tempfile
import textwrap

import torch

from netzbench.run import preload


def test_roster_layers_are_built_without_compiling_again():
    """In a fresh process (as a seed's server is): after the preload, building every roster encoder
    renders no template; without it, each class renders its own."""
    script = textwrap.dedent("""
        import sys
        if sys.argv[1] == "preload":
            import netzbench.run.preload
        import torch_geometric.nn.conv.message_passing as T
        from netzbench.models import encoders, gin
        calls, real = [], T.module_from_template
        T.module_from_template = lambda *a, **k: calls.append(a) or real(*a, **k)
        for cls in (encoders.GCN, encoders.GAT, encoders.GraphSAGE, encoders.GraphTransformer, gin.GIN):
            cls(3, 5, 2)
        print(len(calls))
    """)
    counts = [int(subprocess.run([sys.executable, "-c", script, how], capture_output=True, text=True,
                                 check=True).stdout.split()[-1]) for how in ("preload", "bare")]
    assert counts[0] == 0 and counts[1] >= 5


def test_compiling_leaves_the_generator_and_the_temp_folder_as_they_were():
    torch.manual_seed(5)
    before = torch.get_rng_state()
    listed = set(os.listdir(tempfile.gettempdir()))
    preload.compile_layers()
    assert torch.equal(torch.get_rng_state(), before)
    assert tempfile.tempdir is None or tempfile.tempdir == tempfile.gettempdir()
    assert not {f for f in set(os.listdir(tempfile.gettempdir())) - listed if f.startswith("netzbench-preload-")}
