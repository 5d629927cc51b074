# MedAssure: `make run` starts the app on the demo dossier; `make test` runs the whole suite.
# Both create .venv when missing and install only when pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PORT   ?= 8501

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: run test test-fast install browser-deps db-deps spc-deps bench bench-smoke lint clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# torch first and pinned: the CPU build is on local disk; an unpinned torch pulls a multi-GB CUDA build.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Real-browser tests need Debian's chromium; install it when we can (root + apt-get), else say why not.
browser-deps:
	@if [ -x /usr/bin/chromium ] && command -v pdftoppm >/dev/null; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		echo "installing chromium, chromium-driver and poppler-utils with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver poppler-utils >/dev/null; \
	else \
		echo "NOTE: /usr/bin/chromium missing and not root with apt-get: browser tests will be skipped"; \
	fi

# PostgreSQL tests start a real server from Debian's postgresql binaries; install them when we can.
db-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		echo "installing postgresql with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
		echo "NOTE: no initdb under /usr/lib/postgresql/*/bin and not root with apt-get: PostgreSQL tests will be skipped"; \
	fi

# The CUSUM known answers come from R's spc package (xcusum.crit / xcusum.arl); install it when we can.
spc-deps:
	@if command -v Rscript >/dev/null && Rscript -e 'library(spc)' >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		echo "installing r-cran-spc with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq r-cran-spc >/dev/null; \
	else \
		echo "NOTE: R's spc package missing and not root with apt-get: the spc comparisons will be skipped"; \
	fi

run: install
	$(PY) -m cli demo --if-empty >/dev/null
	$(PY) -m streamlit run app.py --server.headless=true --server.address=127.0.0.1 --server.port=$(PORT) \
		--browser.gatherUsageStats=false

# The docstrings' examples first (about a minute; they had rotted unrun), then three pytest processes: the tests on the PostgreSQL server run in their own, and so do eleven request-counting
# tests (marker isolated), a guard kept after the cause of their old failures in one long process was found and
# fixed (stopped fake servers kept serving their keep-alive sockets; see docs/known-limits.md).
test: install browser-deps db-deps spc-deps
	$(PY) -m pytest -q --doctest-modules evaluator governance reports
	$(PY) -m pytest -m "not postgres and not isolated"
	$(PY) -m pytest -m postgres
	$(PY) -m pytest -m isolated

# The inner loop: everything but the real-browser, PostgreSQL-server and slow tests (markers in pyproject.toml).
# Spread over JOBS worker processes (pytest-xdist).
JOBS ?= 2
# The isolated request-counting tests are left to `make test` too (they need a process of their own).
test-fast: install
	$(PY) -m pytest -n $(JOBS) -m "not browser and not postgres and not slow and not isolated"

# Architecture and style: ruff, then the import-linter contracts in pyproject.toml.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

bench: install
	for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Every bench script in its quick mode (a small workload through the same code paths), so none rots
# unnoticed: stops at the first that fails, then prints each one's wall time. Figures are printed, never
# checked. PYTHONPATH makes it run this checkout's code even when .venv's editable install is another's.
bench-smoke: install db-deps browser-deps
	@summary=""; start=$$(date +%s%N); \
	for f in bench/*.py; do \
		echo "== $$f --quick"; t0=$$(date +%s%N); \
		PYTHONPATH=$(CURDIR) $(PY) $$f --quick || { echo "bench-smoke: $$f --quick failed"; exit 1; }; \
		ds=$$(( ($$(date +%s%N) - t0) / 100000000 )); \
		summary="$$summary$$(printf '%5d.%d s  %s' $$((ds / 10)) $$((ds % 10)) $$f)\n"; \
	done; \
	ds=$$(( ($$(date +%s%N) - start) / 100000000 )); \
	printf '\nbench-smoke wall time per script:\n%b%5d.%d s  total\n' "$$summary" $$((ds / 10)) $$((ds % 10))

clean:
	rm -rf $(VENV) .pytest_cache
