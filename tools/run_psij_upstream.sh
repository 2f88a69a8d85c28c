#!/usr/bin/env bash
# Run psij-python's own test suite with our `pbspro` executor on a fake cluster.
#
#   tools/run_psij_upstream.sh 0.9.11 [pytest args]   # psij 0.9.11's suite, psij 0.9.11 installed
#   tools/run_psij_upstream.sh master [pytest args]   # psij master's suite, psij master installed
#   tools/run_psij_upstream.sh <dir>  [pytest args]   # the suite in <dir>/tests, with $VENV's psij
#
# 0.9.11 and master take psij's sources from ../shared/upstream (see its README.md; override with
# PSIJ_UPSTREAM).  0.9.11 uses the venv at $VENV (default: .venv of this checkout), which must hold
# psij-python 0.9.11 and the test extras (`pip install -e '.[test]'`).  master uses the venv at
# $VENV_MASTER (default: .venv-psij-master), made on first use and remade when the master copy
# changed: psij master is installed editable from a copy kept inside that venv (psij's own
# packaging leaves local.mustache out of a regular install, and nothing is written to
# ../shared), with the test requirements master names.  This checkout goes first on PYTHONPATH,
# so psij finds the `pbspro` descriptor without psijpbs being installed in either venv.
# The cluster lives in a temporary FAKE_PBS_HOME, and HOME is a temporary directory too (psij's
# ~/.psij); both are removed and the cluster stopped at the end, whatever happens.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
which=${1:?usage: run_psij_upstream.sh 0.9.11|master|<dir-with-psij-tests> [pytest args]}
shift
upstream=${PSIJ_UPSTREAM:-$repo/../shared/upstream}

# A venv with psij master from $upstream/psij-python-master; prints nothing, fails loudly.
make_master_venv() {
  local venv=$1 src=$upstream/psij-python-master
  local copy=$venv/src/psij-python
  if [ -d "$copy" ] && diff -rq -x '*.egg-info' -x __pycache__ -x build "$src" "$copy" >/dev/null
  then
    return 0
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  mkdir -p "$venv/src"
  cp -r "$src" "$copy"
  chmod -R u+w "$copy"
  "$venv/bin/pip" install -q -e "$copy" pytest pytest-timeout requests 'filelock>=3.4,<3.20'
}

case "$which" in
  0.9.11)
    venv=${VENV:-$repo/.venv}
    tests_dir=$upstream/psij-python-0.9.11
    have=$("$venv/bin/python" -c 'from psij.version import VERSION; print(VERSION)')
    [ "$have" = 0.9.11 ] || { echo "$venv has psij $have, not 0.9.11" >&2; exit 2; }
    ;;
  master)
    venv=${VENV_MASTER:-$repo/.venv-psij-master}
    make_master_venv "$venv"
    tests_dir=$venv/src/psij-python
    ;;
  *)
    venv=${VENV:-$repo/.venv}
    tests_dir=$which
    ;;
esac
[ -d "$tests_dir/tests" ] || { echo "no psij tests in $tests_dir/tests" >&2; exit 2; }

home=$(mktemp -d /tmp/fake-pbs-upstream.XXXXXX)
export FAKE_PBS_HOME=$home/cluster
export PATH=$repo/fake_pbs/bin:$PATH
cleanup() { fake-pbs stop >/dev/null 2>&1 || true; rm -rf "$home"; }
trap cleanup EXIT
fake-pbs start
# psij keeps everything in ~/.psij: the executor's work directory (.ec/.out files named by job
# id, 1.vm, 2.vm, ... on every fake cluster), the tests' files, master's status channel file.
# A HOME of the run's own keeps concurrent runs (CI runs two) apart and leaves nothing in ~.
mkdir "$home/home"
export HOME=$home/home
cd "$tests_dir"
# No bytecode: the 0.9.11 tests are read from ../shared, which stays as it is.
# Deselected: test_callbacks runs psij's `local` executor only (never `pbspro`) and counts six
# callbacks, but psij's Job.status setter reads the state under its lock, lets go, then fills in
# the skipped states: when the local job's own STAGE_IN report races submit()'s QUEUED, both
# threads fill in QUEUED and the test sees seven (CI saw it on master under load, both versions
# share the setter).  It says nothing about this project, and it fails CI at random.
# psij has no pytest configuration; `-c /dev/null` keeps this checkout's pyproject.toml (above
# master's copy) from becoming its configuration and rootdir, so node ids read tests/...
PYTHONDONTWRITEBYTECODE=1 \
PYTHONPATH=$repo:$PWD/tests/plugins1:$PWD/tests/plugins2${PYTHONPATH:+:$PYTHONPATH} \
  "$venv/bin/python" -m pytest tests -c /dev/null --rootdir "$tests_dir" -p no:cacheprovider \
  --timeout=600 -rfEs \
  --deselect tests/test_callbacks.py::TestCallbacks::test_job_callbacks \
  --executors=pbspro:single,pbspro:multiple "$@"
