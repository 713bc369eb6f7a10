#!/usr/bin/env bash
# The GPU device check (issue 48): on one GPU machine without network, in about 8 minutes at most.
#
# Needs, beside this checkout: Python with a CUDA build of torch and PyG installed; .whl/ (wheels of the other
# modules the training path imports, for that Python) and .device_mirror/datasets.tar.xz (the raw files of
# cora, mutag, internet_as and fb15k_237), both built by the commands in docs/development.md ("The GPU device
# check") and carried with the checkout (git ignores them).
#
#   1. the machine: GPUs, driver, CPUs, Python, torch, PyG;
#   2. installs the modules that are missing, from .whl/ only (pip --no-index) into .device_site/;
#   3. fetches the four tasks from the mirror into a scratch data root;
#   4. trains the headline's GNN cells of the four tasks, seeds 0-9, on the GPU, WORKERS (8) seeds at a time
#      (benchmarks/bench_gpu.py): per task the seeds that trained, and only when every one did, the wall
#      time, beside the published CPU run's; then cora/GCN trained twice (seeds 0, 1): the determinism check;
#   5. a full-batch scaling row (GCN, node classification) up to the largest graph that fits in the GPU's
#      memory, in the time left (benchmarks/bench_scaling.py --device cuda).
#
# Output: everything printed goes to $OUT/device_check.log (OUT: the device runner's folder, else
# .device_out/), the figures to $OUT/bench_gpu.json and $OUT/scaling.md. Exit 0 only when every seed trained.
# Usage: OUT=/some/folder bash benchmarks/device_check.sh   (PYTHON, WORKERS, SEEDS, DEVICE_CHECK_BUDGET_S)
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/.device_out}
mkdir -p "$OUT"
exec > >(tee "$OUT/device_check.log") 2>&1
BUDGET=${DEVICE_CHECK_BUDGET_S:-470}
T0=$(date +%s)
PY=${PYTHON:-python3}
WORKERS=${WORKERS:-8}
SEEDS=${SEEDS:-0 1 2 3 4 5 6 7 8 9}
TASKS="cora mutag internet_as fb15k_237"
left() { echo $((BUDGET - ($(date +%s) - T0))); }
step() { echo; echo "== $* (at $(($(date +%s) - T0)) s of $BUDGET)"; }

step "1. the machine"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader || echo "nvidia-smi: none"
echo "CPUs: $(nproc); commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$PY" -c 'import sys, torch, torch_geometric as g; print(f"Python {sys.version.split()[0]} ({sys.executable}), torch {torch.__version__} (CUDA {torch.version.cuda}), PyG {g.__version__}")' \
    || { echo "device check: torch and PyG must be installed for $PY"; exit 2; }

step "2. install what is missing, from .whl/ (no network)"
SITE=$ROOT/.device_site
MISSING=$("$PY" - <<'EOF'
import importlib.util
# module -> distribution: what fetching, training and bench_gpu import beside torch and PyG
NEED = {"click": "click", "yaml": "PyYAML", "numpy": "numpy", "scipy": "scipy", "tqdm": "tqdm",
        "jsonschema_rs": "jsonschema-rs", "jsonschema": "jsonschema", "referencing": "referencing", "rpds": "rpds-py",
        "attrs": "attrs", "jsonschema_specifications": "jsonschema-specifications",
        "typing_extensions": "typing_extensions"}
print(" ".join(dist for module, dist in NEED.items() if importlib.util.find_spec(module) is None))
EOF
)
if [ -n "$MISSING" ]; then
    echo "missing: $MISSING"
    PIP=("$PY" -m pip install -q --no-index --find-links "$ROOT/.whl" --no-deps --target "$SITE")
    "${PIP[@]}" --break-system-packages $MISSING 2>/dev/null || "${PIP[@]}" $MISSING \
        || { echo "device check: no wheel in .whl/ for some of: $MISSING (this Python: $("$PY" -V)); see docs/development.md"; exit 2; }
else
    echo "nothing missing"
fi
export PYTHONPATH=$ROOT/src:$SITE${PYTHONPATH:+:$PYTHONPATH}  # spawned seed workers inherit it

step "3. fetch $TASKS from the mirror"
MIRROR=$ROOT/.device_mirror
if [ ! -d "$MIRROR/fb15k_237" ]; then
    "$PY" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$MIRROR/datasets.tar.xz" "$MIRROR" \
        || { echo "device check: no .device_mirror/datasets.tar.xz (docs/development.md)"; exit 2; }
fi
DATA=$(mktemp -d "${TMPDIR:-/tmp}/netzbench-device-data-XXXXXX")
NETZBENCH_MIRROR=$MIRROR "$PY" -m netzbench.cli fetch $TASKS --data-root "$DATA" || { echo "device check: fetch failed"; exit 2; }

step "4. the headline's GNN cells on the GPU: $WORKERS workers, seeds $SEEDS"
LIMIT=$(($(left) - 75)); [ $LIMIT -lt 60 ] && LIMIT=60
timeout --kill-after=15 $LIMIT "$PY" benchmarks/bench_gpu.py --data-root "$DATA" --tasks $TASKS \
    --workers "$WORKERS" --seeds $SEEDS --check cora/GCN --check-seeds 0 1 --json "$OUT/bench_gpu.json"
status=$?
[ $status -eq 124 ] && echo "device check: bench_gpu.py ran out of its time (the rows above are what finished)"

step "5. full-batch scaling on the GPU (GCN), up to the largest graph that fits, in the $(left) s left"
if [ "$(left)" -gt 30 ]; then
    SIZES_S=$(($(left) - 60)); [ $SIZES_S -lt 15 ] && SIZES_S=15  # no larger graph is started after this
    timeout --kill-after=10 $(($(left) - 5)) "$PY" benchmarks/bench_scaling.py --device cuda --models GCN \
        --edges 1e5 1e6 1e7 3e7 1e8 --features 32 --budget-s $SIZES_S --probe-timeout-s $(($(left) - 10)) \
        | tee "$OUT/scaling.md"
else
    echo "no time left for the scaling row"
fi

step "done: bench_gpu.py exit $status (0: every seed trained)"
exit $status
