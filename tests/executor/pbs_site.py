"""The PBS the executor's end-to-end tests run on: a fake cluster (default) or, with
``--real-pbs``, the real PBS whose commands are on PATH. Only the fake path imports fake_pbs.

On a real PBS nothing is reconfigured: tests that need a PBS manager (qmgr), the fake's fault
injection, more nodes or more cpus than the site has are skipped, each saying why.  Run as root,
the tests that run jobs are skipped when PBS refuses root's jobs, as it does by default.
"""
import os
import re
import shutil
import subprocess
from typing import Any, List, Optional

import pytest

_NCPUS = re.compile(r'^\s*resources_available\.ncpus\s*=\s*(\d+)\s*$')
_SERVER = re.compile(r'^Server:\s*(\S+)')


class PbsSite:
    """What a test may know and ask of the PBS it runs on.

    Parameters
    ----------
    server_name
        The PBS server's name (the suffix of job ids).
    node_cpus
        ``resources_available.ncpus`` of each execution node.
    fake
        The fake cluster (``fake_pbs.testing.FakeCluster``), None on a real PBS.

    refusal
        Why this PBS runs no job of the invoking user (root on a default PBS), None when it does.
    """

    def __init__(self, server_name: str, node_cpus: List[int], fake: Optional[Any],
                 refusal: Optional[str] = None) -> None:
        self.server_name = server_name
        self.node_cpus = node_cpus
        self.fake = fake
        self.refusal = refusal

    @property
    def real(self) -> bool:
        return self.fake is None

    def require_fake(self, what: str) -> Any:
        """The fake cluster; on a real PBS the test is skipped: it needs ``what``."""
        if self.fake is None:
            pytest.skip('needs %s (fake cluster only; skipped with --real-pbs)' % what)
        return self.fake

    def require_manager(self, what: str) -> Any:
        """The fake cluster, for a test that reconfigures PBS (``what``); never done to a real
        site, whose manager rights the tests do not assume."""
        return self.require_fake('a PBS manager to %s' % what)

    def require_jobs(self) -> None:
        """Skip when this PBS refuses the invoking user's jobs (``refusal``: why, and the fix)."""
        if self.refusal is not None:
            pytest.skip(self.refusal)

    def require_nodes(self, nodes: int, cpus_each: int) -> None:
        """Skip unless ``nodes`` execution nodes have at least ``cpus_each`` cpus each."""
        fit = [n for n in self.node_cpus if n >= cpus_each]
        if len(fit) < nodes:
            pytest.skip('needs %d node(s) with %d cpus each; this PBS has %s'
                        % (nodes, cpus_each, self.node_cpus or 'no nodes it reports'))


def _run(argv: List[str]) -> str:
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError('%s failed (exit %d): %s' % (' '.join(argv), done.returncode,
                                                        done.stderr.strip()))
    return done.stdout


def real_site() -> PbsSite:
    """The PBS on PATH: its server name (``qstat -B``) and nodes (``pbsnodes -a``)."""
    for command in ('qsub', 'qstat', 'qdel', 'qselect', 'pbsnodes'):
        if shutil.which(command) is None:
            pytest.exit('--real-pbs: %s is not on PATH' % command, returncode=4)
    server = ''
    for line in _run(['qstat', '-B', '-f']).splitlines():
        match = _SERVER.match(line)
        if match:
            server = match.group(1)
            break
    cpus = [int(m.group(1)) for m in map(_NCPUS.match, _run(['pbsnodes', '-a']).splitlines())
            if m]
    return PbsSite(server, cpus, None, _root_refusal() if os.geteuid() == 0 else None)


# PBS runs no job as root unless the server's acl_roots names the submitter (geteusernam.c:
# set_objexid rejects uid 0 with PBSE_BADUSER; transcript openpbs-23.06.06/a12_qsub_as_root).
_BAD_UID = 'Bad UID for job execution'


def _root_refusal() -> Optional[str]:
    """Submit one trivial job as root: PBS's reason and the fix when it is refused, else None."""
    done = subprocess.run(['qsub', '--', '/bin/true'], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    if done.returncode == 0:
        job_id = done.stdout.strip()
        if job_id:
            subprocess.run(['qdel', job_id], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        return None
    if _BAD_UID not in done.stderr:
        return None  # some other trouble: the tests themselves show it
    return ('PBS refuses jobs of root (%r), its default; run the tests as an ordinary user, or '
            'let root run jobs: qmgr -c "set server acl_roots += root@$(hostname)"'
            % done.stderr.strip())
