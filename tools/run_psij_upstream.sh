#!/usr/bin/env bash
# Run psij-python's own upstream test suite (tag 0.9.11) with our `pbspro` executor on a fake cluster.
#
#   tools/run_psij_upstream.sh <dir-with-psij-tests> [extra pytest args]
#
# <dir> holds `tests/` of psij-python 0.9.11 (`git archive 0.9.11 tests | tar -x -C <dir>`; the PyPI sdist
# lacks conftest.py and is not usable).  Uses the venv at $VENV (default: .venv of this checkout), which
# needs psij-python 0.9.11 and the test extras (`pip install -e '.[test]'`).  This checkout goes first on
# PYTHONPATH, so psij finds its `pbspro` descriptor even in a venv where psijpbs is not installed.
# The cluster lives in a temporary FAKE_PBS_HOME and is stopped at the end, whatever happens.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tests_dir=${1:?usage: run_psij_upstream.sh <dir-with-psij-tests> [pytest args]}
shift
venv=${VENV:-$repo/.venv}
home=$(mktemp -d /tmp/fake-pbs-upstream.XXXXXX)
export FAKE_PBS_HOME=$home
export PATH=$repo/fake_pbs/bin:$PATH
cleanup() { fake-pbs stop >/dev/null 2>&1 || true; rm -rf "$home"; }
trap cleanup EXIT
fake-pbs start
cd "$tests_dir"
PYTHONPATH=$repo:$PWD/tests/plugins1:$PWD/tests/plugins2${PYTHONPATH:+:$PYTHONPATH} \
  "$venv/bin/python" -m pytest tests -p no:cacheprovider --timeout=600 -rA \
  --executors=pbspro:single,pbspro:multiple "$@"
