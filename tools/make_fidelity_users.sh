#!/usr/bin/env bash
# Create the users the golden transcripts ran as: pbsuser submits, pbsuser2 is "another user".
# Root only; idempotent.  The fidelity replay (tests/fidelity) runs their commands as these users,
# and cleans the homes of users created here (marked by ~/.fake_pbs_fidelity_user) before a replay.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "make_fidelity_users.sh: run as root (the fidelity replay skips cross-user cases otherwise)" >&2
  exit 1
fi
for u in pbsuser pbsuser2; do
  if ! id "$u" >/dev/null 2>&1; then
    useradd -m -s /bin/bash "$u"
    home=$(getent passwd "$u" | cut -d: -f6)
    touch "$home/.fake_pbs_fidelity_user"
    echo "created user $u ($home)"
  fi
done
