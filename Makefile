# Developer shortcuts; README.md's two commands are the source of truth.
VENV ?= .venv
PY = $(VENV)/bin/python

.PHONY: venv test fast lint typecheck fidelity bench psij-upstream clean

venv:
	python3 -m venv $(VENV) && $(VENV)/bin/pip install -q -e '.[test,lint]'

test:
	$(VENV)/bin/pytest --executors=pbspro

# The fast loop: every test that starts no fake daemon (tests/conftest.py marks the others).
fast:
	$(VENV)/bin/pytest -m "not cluster" -q

lint:
	$(VENV)/bin/flake8 --max-line-length 100 psijpbs fake_pbs tests bench examples tools

typecheck:
	$(VENV)/bin/mypy --strict psijpbs fake_pbs tests

fidelity:
	$(PY) tools/fidelity_report.py

# Benchmarks with their targets (docs/performance.md); BENCH_ARGS=--tiny for a smoke run.
bench:
	$(PY) bench/run_all.py $(BENCH_ARGS)

# psij's own suites against the fake: 0.9.11's with psij 0.9.11 (.venv) and master's with psij
# master (.venv-psij-master, made on first use), from ../shared/upstream; PSIJ_TESTS=<dir holding
# a psij tests/> runs that one instead, with .venv's psij.
psij-upstream:
ifdef PSIJ_TESTS
	tools/run_psij_upstream.sh $(PSIJ_TESTS)
else
	tools/run_psij_upstream.sh 0.9.11 && tools/run_psij_upstream.sh master
endif

clean:
	rm -rf $(VENV) .venv-psij-master .mypy_cache .pytest_cache build *.egg-info
