# Developer shortcuts; README.md's two commands are the source of truth.
VENV ?= .venv
PY = $(VENV)/bin/python

.PHONY: venv test lint typecheck fidelity bench psij-upstream clean

venv:
	python3 -m venv $(VENV) && $(VENV)/bin/pip install -q -e '.[test]'

test:
	$(VENV)/bin/pytest --executors=pbspro

lint:
	$(VENV)/bin/flake8 --max-line-length 100 psijpbs fake_pbs tests bench examples tools

typecheck:
	$(VENV)/bin/mypy --strict psijpbs fake_pbs tests

fidelity:
	$(PY) tools/fidelity_report.py

# Benchmarks with their targets (docs/performance.md); BENCH_ARGS=--tiny for a smoke run.
bench:
	$(PY) bench/run_all.py $(BENCH_ARGS)

# psij's own upstream suite (tag 0.9.11) against the fake: PSIJ_TESTS=<dir holding tests/ of 0.9.11>
psij-upstream:
	tools/run_psij_upstream.sh $(PSIJ_TESTS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache build *.egg-info
