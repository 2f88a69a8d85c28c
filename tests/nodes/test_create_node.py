"""``qmgr -c "create node NAME"`` (src/server/req_manager.c ``mgr_node_create``,
``create_pbs_node2``, ``make_host_addresses_list``; src/server/node_func.c
``initialize_pbsnode``): a name that does not resolve is refused with PBSE_UNKNODE
(``Unknown node``, 15062) and nothing is created; a created node shows what PBS gives a node
whose mom has not reported: Mom (the name), Port 15002, ``pbs_version = unavailable``, ntype,
``state-unknown,down``, host and vnode, the per-node resources_assigned at zero, resv_enable and
sharing at their defaults."""
from fake_pbs.server import hostnames
from fake_pbs.testing import FakeCluster

CREATED = """localhost
     Mom = localhost
     Port = 15002
     pbs_version = unavailable
     ntype = PBS
     state = state-unknown,down
     resources_available.host = localhost
     resources_available.vnode = localhost
     resources_assigned.accelerator_memory = 0kb
     resources_assigned.hbmem = 0kb
     resources_assigned.mem = 0kb
     resources_assigned.naccelerators = 0
     resources_assigned.ncpus = 0
     resources_assigned.vmem = 0kb
     resv_enable = True
     sharing = default_shared

"""


def test_names_resolve_as_the_resolver_says_and_fake_hosts_do() -> None:
    assert hostnames.resolves("node7", ["node7"])
    assert hostnames.resolves("localhost", [])
    assert not hostnames.resolves("no-such-host.invalid", [])


def test_create_node_resolves_and_shows_pbs_attributes(fake_pbs: FakeCluster) -> None:
    done = fake_pbs.run(["qmgr", "-c", "create node no-such-host.invalid"])
    assert done.returncode == 15062 % 256
    assert done.stderr == ("qmgr obj=no-such-host.invalid svr=default: Unknown node \n"
                           "qmgr: Error (15062) returned from server\n")
    assert "no-such-host.invalid" not in fake_pbs.sh("pbsnodes", "-a")
    fake_pbs.qmgr("create node localhost")
    try:
        assert fake_pbs.sh("pbsnodes", "localhost") == CREATED
    finally:
        fake_pbs.qmgr("delete node localhost")
