#!/usr/bin/env bash
# The fake-pbs action's step (action.yml): what docs/ci.md's manual recipe does, in one step.
# Reads FAKE_PBS_ACTION_{HOME,HOSTS,SERVER_NAME,START}; writes to the files Actions names in
# GITHUB_PATH, GITHUB_ENV and GITHUB_OUTPUT.  The commands come from the checkout this file is in.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$root/fake_pbs/bin
[ -x "$bin/qsub" ] || { echo "fake-pbs action: no $bin/qsub (is $root a psijpbs checkout?)" >&2; exit 1; }
home=${FAKE_PBS_ACTION_HOME:-${RUNNER_TEMP:-/tmp}/fake-pbs}
mkdir -p "$home"
home=$(cd "$home" && pwd)
echo "$bin" >>"$GITHUB_PATH"
echo "FAKE_PBS_HOME=$home" >>"$GITHUB_ENV"
{ echo "bin=$bin"; echo "home=$home"; } >>"$GITHUB_OUTPUT"
if [ "${FAKE_PBS_ACTION_START:-true}" = true ]; then
  args=()
  for host in ${FAKE_PBS_ACTION_HOSTS:-}; do args+=(--host "$host"); done
  [ -z "${FAKE_PBS_ACTION_SERVER_NAME:-}" ] || args+=(--server-name "$FAKE_PBS_ACTION_SERVER_NAME")
  FAKE_PBS_HOME=$home "$bin/fake-pbs" start ${args[@]+"${args[@]}"}
  FAKE_PBS_HOME=$home "$bin/fake-pbs" status
fi
