# Two entry points: `make repro` (set up + run the benchmark), `make test` (set up + run the tests).
# The virtual environment is created on first use; installs are pinned by constraints.txt.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The CPU build of torch is installed first, explicitly pinned: an unpinned torch
# may pull a multi-GB CUDA build. GPU users can install their own torch>=2.6 first.
TORCH_SPEC ?= torch==2.13.0
STAMP  := $(VENV)/.installed

.PHONY: setup browser qemu repro protocols publish quick test test-fast constraints clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev,ray]"
	touch $(STAMP)

# headless Chromium for the results site's browser tests (tests/test_site_browser.py): Debian's package,
# installed where apt-get is available and we are root; elsewhere it says how, and those tests skip
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
	    || [ -n "$$NETZBENCH_CHROMIUM" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium (Debian's package) for the browser tests"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	    || echo "could not install chromium: the browser tests will skip"; \
	else \
	  echo "no Chromium: the browser tests will skip (install it: sudo apt-get install chromium," \
	       "or set NETZBENCH_CHROMIUM to a Chromium executable)"; \
	fi

# qemu's user-mode emulator, to train the golden cells on an emulated AMD CPU under portable arithmetic
# (tests/test_arithmetic.py): Debian's qemu-user, installed like Chromium above; elsewhere that test skips
qemu:
	@if command -v qemu-x86_64 >/dev/null 2>&1 || [ "$$(uname -m)" != x86_64 ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing qemu-user (Debian's package) for the cross-vendor arithmetic test"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null; } \
	    || echo "could not install qemu-user: the cross-vendor arithmetic test will skip"; \
	else \
	  echo "no qemu-x86_64: the cross-vendor arithmetic test will skip (sudo apt-get install qemu-user)"; \
	fi

repro: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/dvc repro

# the protocol study (strict protocol + one-switch ablations); `dvc repro` then adds it to REPORT.md
protocols: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/netzbench protocols --variant-seeds 3

# republish everything from this checkout's result code, resumably (each step keeps what it finished):
# the paper run, the protocol study with its strict report, the report again (it reads the study),
# then the STALE banners taken off (or put on what is still stale): docs/reproducibility.md#publishing
publish: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/dvc repro
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/netzbench protocols --variant-seeds 3
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/dvc repro
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/netzbench stale --mark --docs

# the whole pipeline in minutes: 4 offline tasks x 5 models x 3 seeds, in .netzbench/quick/
quick: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/netzbench quick

# every tier (unit, train, process, e2e: tests/tiers.py); the 25 slowest tests are listed at the end
test: $(STAMP) browser qemu
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q --durations=25

# the unit tier (no training, no subprocess), on every core: what to run after each change
test-fast: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q -m unit -n auto

constraints: $(STAMP)
	{ echo "# Exact versions every machine installs (pip install -c constraints.txt ...)."; \
	  echo "# Regenerate: make constraints (after changing dependencies in pyproject.toml)."; \
	  $(BIN)/python -m pip freeze --exclude-editable | sed 's/^torch==\([0-9.]*\)+cpu$$/torch==\1/'; } > constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache
