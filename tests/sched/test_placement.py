"""Placement: exec_vnode/exec_host strings, pack vs scatter vs free, multi-chunk, excl, comments."""
from .sched_helpers import cycle, job, node, running


def test_two_cpu_chunk_on_one_host() -> None:
    """Extra i02: select=1:ncpus=2:mpiprocs=2 -> exec_host vm/0*2, exec_vnode (vm:ncpus=2);
    the nodefile lists vm twice (mpiprocs) and OMP_NUM_THREADS=2."""
    result = cycle({"vm": node(2)}, [job(324, select="1:ncpus=2:mpiprocs=2")])
    [run] = result.runs
    assert (run.jobid, run.exec_vnode, run.exec_host) == ("324.vm", "(vm:ncpus=2)", "vm/0*2")
    assert run.hosts == [{"host": "vm", "ncpus": 2, "mpiprocs": 2, "ngpus": 0, "mem": "",
                          "ompthreads": 2}]


def test_default_job() -> None:
    """Transcript b02: a plain job runs with exec_host vm/0 and exec_vnode (vm:ncpus=1)."""
    [run] = cycle({"vm": node(2)}, [job(1)]).runs
    assert (run.exec_vnode, run.exec_host) == ("(vm:ncpus=1)", "vm/0")


def test_free_place_puts_two_chunks_on_one_host() -> None:
    """Extra j09a/j09c: select=2:ncpus=1 (place=free) on one 2-cpu node ->
    exec_vnode (vm:ncpus=1)+(vm:ncpus=1), exec_host vm/0+vm/1."""
    [run] = cycle({"vm": node(2)}, [job(363, select="2:ncpus=1")]).runs
    assert (run.exec_vnode, run.exec_host) == ("(vm:ncpus=1)+(vm:ncpus=1)", "vm/0+vm/1")
    assert [host["host"] for host in run.hosts] == ["vm", "vm"]


def test_scatter_needs_as_many_hosts_as_chunks() -> None:
    """Extra j09b: select=2:ncpus=1 place=scatter on one node stays queued with
    'Can Never Run: Not enough total nodes available'."""
    result = cycle({"vm": node(2)}, [job(360, select="2:ncpus=1", place="scatter")])
    assert result.runs == []
    assert result.comments == {"360.vm": "Can Never Run: Not enough total nodes available"}


def test_scatter_over_two_hosts() -> None:
    """place=scatter spreads chunks one per host, in node order."""
    nodes = {"node1": node(8), "node2": node(8)}
    [run] = cycle(nodes, [job(1, select="2:ncpus=2:mem=1gb", place="scatter")]).runs
    assert run.exec_vnode == "(node1:ncpus=2:mem=1048576kb)+(node2:ncpus=2:mem=1048576kb)"
    assert run.exec_host == "node1/0*2+node2/0*2"
    assert [host["mem"] for host in run.hosts] == ["1gb", "1gb"]


def test_pack_keeps_every_chunk_on_one_host() -> None:
    """place=pack: all chunks on one host; the first host that fits them all is chosen."""
    nodes = {"node1": node(2), "node2": node(8)}
    [run] = cycle(nodes, [job(1, select="3:ncpus=1", place="pack")]).runs
    assert run.exec_vnode == "(node2:ncpus=1)+(node2:ncpus=1)+(node2:ncpus=1)"
    assert run.exec_host == "node2/0+node2/1+node2/2"


def test_multi_chunk_mixed_sizes() -> None:
    """Chunks of different shapes fill nodes first-fit in select order (place=free)."""
    nodes = {"node1": node(4), "node2": node(4)}
    [run] = cycle(nodes, [job(1, select="1:ncpus=3+2:ncpus=2")]).runs
    assert run.exec_vnode == "(node1:ncpus=3)+(node2:ncpus=2)+(node2:ncpus=2)"
    assert run.exec_host == "node1/0*3+node2/0*2+node2/2*2"


def test_slot_index_follows_running_jobs() -> None:
    """Extra k08l: with 389.vm on vm/0 the next one-cpu job gets exec_host vm/1."""
    jobs = [running(389, "(vm:ncpus=1)", "vm/0"), job(390)]
    [run] = cycle({"vm": node(2, extra={"resources_assigned.ncpus": "1"})}, jobs).runs
    assert run.exec_host == "vm/1"


def test_never_run_when_more_cpus_than_the_complex() -> None:
    """Extra j10b/j10c/j10d: ncpus=8 on a 2-cpu complex -> 'Can Never Run: Insufficient amount
    of resource: ncpus (R: 8 A: 2 T: 2)', for select and for plain -l ncpus alike."""
    result = cycle({"vm": node(2)}, [job(361, select="1:ncpus=8"), job(362, ncpus="8")])
    expected = "Can Never Run: Insufficient amount of resource: ncpus (R: 8 A: 2 T: 2)"
    assert result.comments == {"361.vm": expected, "362.vm": expected}


def test_busy_node_means_no_free_nodes() -> None:
    """Extra k06a/k08k: the node's cpus all in use -> 'Not Running: Not enough free nodes
    available' (the node counts as job-busy)."""
    jobs = [running(389, "(vm:ncpus=1)", "vm/0"), running(390, "(vm:ncpus=1)", "vm/1"),
            job(393)]
    result = cycle({"vm": node(2)}, jobs)
    assert result.runs == []
    assert result.comments == {"393.vm": "Not Running: Not enough free nodes available"}


def test_offline_node() -> None:
    """Extra n01c: node offline -> 'Not Running: Not enough free nodes available'."""
    result = cycle({"vm": node(2, state="offline")}, [job(407)])
    assert result.comments == {"407.vm": "Not Running: Not enough free nodes available"}


def test_down_and_job_exclusive_nodes_are_skipped() -> None:
    """Nodes down, offline or job-exclusive are not used; the next usable node is."""
    nodes = {"a": node(2, state="down"), "b": node(2, state="job-exclusive"),
             "c": node(2, state="down,offline"), "d": node(2)}
    [run] = cycle(nodes, [job(1)]).runs
    assert run.exec_vnode == "(d:ncpus=1)"


def test_gpus_short_now_and_forever() -> None:
    """Extra n02t: ngpus=2 node with one in use: ngpus=4 -> 'Can Never Run: Insufficient amount
    of resource: ngpus (R: 4 A: 2 T: 2)'; ngpus=2 -> 'Not Running: ... (R: 2 A: 1 T: 2)'."""
    jobs = [running(413, "(vm:ncpus=1:ngpus=1)", "vm/0", select="1:ncpus=1:ngpus=1"),
            job(414, select="1:ncpus=1:ngpus=4"), job(415, select="1:ncpus=1:ngpus=2")]
    result = cycle({"vm": node(2, ngpus=2)}, jobs)
    assert result.runs == []
    assert result.comments == {
        "414.vm": "Can Never Run: Insufficient amount of resource: ngpus (R: 4 A: 2 T: 2)",
        "415.vm": "Not Running: Insufficient amount of resource: ngpus (R: 2 A: 1 T: 2)"}


def test_gpu_job_exec_vnode() -> None:
    """Extra n02t: select=1:ncpus=1:ngpus=1 -> exec_vnode (vm:ncpus=1:ngpus=1), exec_host vm/0."""
    [run] = cycle({"vm": node(2, ngpus=2)}, [job(413, select="1:ncpus=1:ngpus=1")]).runs
    assert (run.exec_vnode, run.exec_host) == ("(vm:ncpus=1:ngpus=1)", "vm/0")
    assert run.hosts[0]["ngpus"] == 1


def test_chunk_too_big_for_any_single_node() -> None:
    """Sums fit the complex but no vnode holds the chunk: the node search's reason, which PBS
    prints without the amounts: 'Not Running: Insufficient amount of resource: ncpus '."""
    result = cycle({"node1": node(4), "node2": node(4)}, [job(1, select="1:ncpus=6")])
    assert result.comments == {"1.vm": "Not Running: Insufficient amount of resource: ncpus "}


def test_memory_reasons_print_sizes() -> None:
    """Sizes in scheduler reasons use res_to_str units: (R: 32gb A: 16gb T: 16gb)."""
    result = cycle({"vm": node(2)}, [job(1, select="1:ncpus=1:mem=32gb")])
    assert result.comments == {
        "1.vm": "Can Never Run: Insufficient amount of resource: mem (R: 32gb A: 16gb T: 16gb)"}


def test_excl_needs_an_unused_node() -> None:
    """place=excl skips vnodes that run other jobs and then keeps the vnode to itself."""
    nodes = {"node1": node(4), "node2": node(4)}
    jobs = [running(1, "(node1:ncpus=1)", "node1/0"), job(2, select="1:ncpus=1", place="excl"),
            job(3, select="1:ncpus=1")]
    runs = cycle(nodes, jobs).runs
    assert [(run.jobid, run.exec_vnode) for run in runs] == [
        ("2.vm", "(node2:ncpus=1)"), ("3.vm", "(node1:ncpus=1)")]


def test_excl_with_every_node_in_use() -> None:
    """NODE_NOT_EXCL: 'Job is requesting an exclusive node and node is in use'."""
    jobs = [running(1, "(vm:ncpus=1)", "vm/0"), job(2, place="excl")]
    result = cycle({"vm": node(4)}, jobs)
    assert result.comments == {
        "2.vm": "Not Running: Job is requesting an exclusive node and node is in use"}


def test_running_excl_job_blocks_the_node() -> None:
    """A running place=excl job makes its vnode job-exclusive for everyone else."""
    jobs = [running(1, "(node1:ncpus=1)", "node1/0", place="excl"), job(2)]
    [run] = cycle({"node1": node(4), "node2": node(4)}, jobs).runs
    assert run.exec_vnode == "(node2:ncpus=1)"


def test_host_resource_selects_the_node() -> None:
    """A chunk's host=... picks that host only."""
    nodes = {"node1": node(4), "node2": node(4)}
    [run] = cycle(nodes, [job(1, select="1:ncpus=1:host=node2")]).runs
    assert run.exec_vnode == "(node2:ncpus=1)"


def test_unchanged_comment_is_not_repeated() -> None:
    """Only comments that change are returned (the server writes them)."""
    queued = job(393)
    queued["comment"] = "Not Running: Not enough free nodes available"
    result = cycle({"vm": node(1, state="offline")}, [queued])
    assert result.comments == {}


def test_a_resource_off_the_resources_line_is_neither_checked_nor_assigned() -> None:
    """Extra n02k-n02n: with ngpus created but not on sched_config's resources line (PBS's
    default line: ncpus and mem), select=1:ncpus=1:ngpus=4 runs on a 2-gpu vnode and exec_vnode
    shows only (vm:ncpus=1); n02q-n02t: once on the line it is assigned and refused."""
    jobs = [job(411, select="1:ncpus=1:ngpus=1"), job(412, select="1:ncpus=1:ngpus=4")]
    result = cycle({"vm": node(2, ngpus=2)}, jobs, consumables=("ncpus", "mem"))
    assert [(r.jobid, r.exec_vnode) for r in result.runs] == [
        ("411.vm", "(vm:ncpus=1)"), ("412.vm", "(vm:ncpus=1)")]
    result = cycle({"vm": node(2, ngpus=2)}, jobs)
    assert [(r.jobid, r.exec_vnode) for r in result.runs] == [("411.vm", "(vm:ncpus=1:ngpus=1)")]


def test_subjobs_of_a_held_array_wait_for_the_parent() -> None:
    """Extra j04d/j04h: `qsub -h -J 1-4%2`: the parent is H and its subjobs Q; the scheduler
    runs none of them until the parent is released (then the parent is Q, later B)."""
    parent = job(341)
    parent.update({"id": "341[].vm", "array": "True", "job_state": "H"})
    subjobs = []
    for index in (1, 2):
        sub = job(341)
        sub.update({"id": "341[%d].vm" % index, "array_id": "341[].vm"})
        subjobs.append(sub)
    assert cycle({"vm": node(2)}, [parent] + subjobs).runs == []
    parent["job_state"] = "Q"
    assert [r.jobid for r in cycle({"vm": node(2)}, [parent] + subjobs).runs] == [
        "341[1].vm", "341[2].vm"]
