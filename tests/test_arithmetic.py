"""exec.arithmetic: portable pins the kernels' instruction-set paths, so two machines give the same bits.

Two machines are simulated on this one by two native capability settings (the CPU's own, AVX-512
where it has it, and ATen/MKL/oneDNN capped at AVX2), each in a fresh process with its own cache.
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import torch
from helpers import as_settings

SCRIPT = textwrap.dedent("""
    import json, sys
    from netzbench import run_benchmark
    if __name__ == "__main__":
        rep = run_benchmark(models={"GCN": "GCN", "GAT": "GAT"}, tasks=["ising_lattice", "karate"], seeds=[0],
                            epochs=4, data_root=sys.argv[3], progress=False, arithmetic=sys.argv[1],
                            executor="local", workers=1)
        json.dump({f"{t}/{m}": rep.histories[t][m][0] for t in rep.histories for m in rep.histories[t]},
                  open(sys.argv[2], "w"))
""")
#: an AVX2 machine simulated on this one: each library capped at AVX2
AVX2 = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


def _machine(tmp_path, name, mode, native_env):
    from netzbench.run.arithmetic import PORTABLE_ENV

    env = {k: v for k, v in os.environ.items() if k not in AVX2 and k not in PORTABLE_ENV}
    env.update(native_env)
    env["NETZBENCH_CACHE_DIR"] = str(tmp_path / f"cache-{name}-{mode}")  # nothing shared between "machines"
    out = tmp_path / f"{name}-{mode}.json"
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script), mode, str(out), str(tmp_path / "data")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text())


@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512",
                    reason="simulating two machines needs a CPU whose native kernels are wider than AVX2")
def test_portable_arithmetic_gives_the_same_bits_where_native_does_not(tmp_path):
    portable_a = _machine(tmp_path, "avx512", "portable", {})
    portable_b = _machine(tmp_path, "avx2", "portable", AVX2)
    assert portable_a == portable_b  # every history, bit for bit
    native_a = _machine(tmp_path, "avx512", "native", {})
    native_b = _machine(tmp_path, "avx2", "native", AVX2)
    assert native_a.keys() == native_b.keys() == portable_a.keys()
    if all(native_a[k] == native_b[k] for k in native_a):
        # some AVX-512 CPUs (seen on an AMD EPYC) give these small cells the AVX2 bits natively as well:
        # portable held, but there was no difference for it to remove
        pytest.skip("native AVX-512 and AVX2 kernels gave the same bits on this CPU: nothing to show portable removes")


def test_portable_mode_refuses_a_process_whose_torch_chose_other_kernels(tmp_path):
    from netzbench.run.arithmetic import ArithmeticError_, check

    if torch.backends.cpu.get_cpu_capability() == "AVX2":
        pytest.skip("this process already computes on AVX2")
    with pytest.raises(ArithmeticError_, match="torch was imported before the mode was set"):
        check("portable")
    check("native")  # never refuses


def test_the_mode_is_part_of_result_identity(tmp_path):
    from netzbench.catalog.data import fetch_task
    from netzbench.run.plan import plan_cell

    from helpers import make_params

    params = make_params(tasks=["karate"], models=["GCN"], seeds=[0], train={"epochs": {"karate": 2}})
    assert params["exec"]["arithmetic"] == "portable"  # the default
    fetch_task("karate", as_settings(params), tmp_path)
    params["exec"]["arithmetic"] = "native"
    native = plan_cell("karate", "GCN", as_settings(params), data_root=tmp_path)
    params["exec"]["arithmetic"] = "portable"
    portable = plan_cell("karate", "GCN", as_settings(params), data_root=tmp_path)
    assert native.keys[0, 0] != portable.keys[0, 0]
    assert native.record["arithmetic"] == "native" and portable.record["arithmetic"] == "portable"


def _emulated_entries() -> list[tuple[str, str]]:
    import golden

    return [(key, entry["made_on"].split(" ", 1)[1]) for key, entry in golden.read_fixture()["capabilities"].items()
            if entry.get("made_on", "").startswith("qemu ")]


@pytest.mark.skipif(shutil.which("qemu-x86_64") is None,
                    reason="qemu-x86_64 (Debian's qemu-user; `make test` installs it where it can) emulates "
                           "another vendor's CPU")
@pytest.mark.parametrize("key, cpu", _emulated_entries())
def test_golden_histories_made_on_an_emulated_cpu_hold_there(key, cpu):
    """The golden cells (every family, neighbour sampling, a knowledge graph) trained under portable arithmetic
    on qemu's emulation of the CPU an entry was made on (an AMD EPYC with AVX2: the vendor this machine may
    not be) give that entry's histories bit for bit, so a change that moves the other vendor's results is
    noticed here too."""
    import golden

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("qemu-x86_64 emulates x86-64 on an x86-64 host here")
    want = golden.read_fixture()["capabilities"][key]
    trained = golden.train_portable(qemu=cpu, cpu_vendor=key.split("/", 1)[1])
    assert trained["key"] == key and trained["torch"] == want["torch"]
    for name, cell in want["cells"].items():
        assert trained["cells"][name] == cell, f"golden cell {name} moved on the emulated {cpu} ({key})"


def test_the_optimiser_is_the_fused_adam():
    """The unfused Adam step takes Tensor.sqrt, MKL's vector square root, which rounds by processor."""
    from netzbench.training.fit import adam

    opt = adam([torch.nn.Parameter(torch.ones(3))], lr=0.1, weight_decay=0.0)
    assert opt.defaults["fused"] is True
