"""Unit tests of the fidelity normalizer, job-id pairing and command classification.

Each test names the transcript its snippet comes from; each rule is shown both to mask what it
must and to leave behaviour (spacing, wording, other values) visible.
"""
import pytest

from .harness.cases import load_set
from .harness.environment import truncated_names
from .harness.jobids import JobMap
from .harness.normalize import Normalizer, mask
from .harness.replay import is_read_only, render

RELEASE = {case.name: case for case in load_set("release")}


def _golden(name: str) -> str:
    case = RELEASE[name]
    return render(case.exit_code, case.stdout, case.stderr)


@pytest.mark.parametrize("name", sorted(RELEASE))
def test_transcript_normalizes_equal_to_itself(name: str) -> None:
    """Every release case, seen as the fake's output, equals itself after normalization."""
    text = _golden(name)
    jobs = JobMap()
    jobs.learn(text, text)
    assert Normalizer().fake(text, jobs) == Normalizer().golden(text)


def test_hand_altered_copy_differs() -> None:
    """b02_qstat_f_running: one changed value, one extra space, a lost newline all differ."""
    text = _golden("b02_qstat_f_running")
    golden = mask(text)
    assert mask(text.replace("Priority = 0", "Priority = 1")) != golden
    assert mask(text.replace("    Job_Name", "     Job_Name")) != golden
    assert mask(text.replace("Submit_Host = vm\n\n", "Submit_Host = vm\n")) != golden
    assert mask(text.replace("\tPBS_O_LOGNAME", "        PBS_O_LOGNAME")) != golden


def test_ctime_and_comment_times_masked() -> None:
    """b02_qstat_f_running: ctime dates and the HH:MM of 'Job run at ...' comments."""
    text = _golden("b02_qstat_f_running")
    other = (text.replace("Sat Nov 21 19:52:14 2026", "Sun Nov 22 08:01:59 2026")
             .replace("Sat Nov 21 at 19:52", "Sun Nov 22 at 08:01"))
    assert mask(other) == mask(text)
    assert "ctime = <CTIME>" in mask(text)
    assert "Job run at <DAY> at <HH:MM> on (vm:ncpus=1)" in mask(text)


def test_epoch_timestamps_masked_but_not_other_numbers() -> None:
    """b03_qstat_f_json_running: the JSON "timestamp"; small numbers stay."""
    text = _golden("b03_qstat_f_json_running")
    assert mask(text.replace("1795290738", "1700000001")) == mask(text)
    assert mask(text.replace('"Priority":0', '"Priority":7')) != mask(text)


def test_log_and_tracejob_stamps_masked() -> None:
    """h01_tracejob_exit3: line stamps, accounting epochs, SID/pid and used cput."""
    text = _golden("h01_tracejob_exit3")
    masked = mask(text)
    assert "<LOGTIME>  M    SID is: <SID>" in masked
    assert "Started, pid = <PID>" in masked
    assert "task 00000001 cput=<USED>" in masked
    assert "Staged 2/2 items out over <ELAPSED>" in masked
    assert "end=<EPOCH> Exit_status=3" in masked
    assert mask(text.replace("Exit_status=3", "Exit_status=4")) != masked


def test_resources_used_masked_only_for_used_values() -> None:
    """b02/b03: resources_used.* in text and JSON are masked; Resource_List is behaviour."""
    text = _golden("b02_qstat_f_running")
    changed = text.replace("resources_used.cput = 00:00:00", "resources_used.cput = 00:00:07")
    assert mask(changed) == mask(text)
    assert mask(text.replace("Resource_List.ncpus = 1", "Resource_List.ncpus = 2")) != mask(text)
    json_text = _golden("b03_qstat_f_json_running")
    assert mask(json_text.replace('"mem":"0kb"', '"mem":"2048kb"')) == mask(json_text)
    assert mask(json_text.replace('"ncpus":1,\n                "nodect"',
                                  '"ncpus":2,\n                "nodect"')) != mask(json_text)


def test_session_id_masked() -> None:
    """b02 (text), b03 (JSON) session_id; b01c_qstat_a SessID and Elap Time columns."""
    assert "session_id = <SID>" in mask(_golden("b02_qstat_f_running"))
    assert '"session_id":<SID>' in mask(_golden("b03_qstat_f_json_running"))
    table = _golden("b01c_qstat_a")
    masked = mask(table)
    assert "sleeper     <SID>   1   1    --    --  R <ELAP>" in masked
    assert "queued3       --    1   1    --    --  Q   -- " in masked
    assert mask(table.replace(" 889 ", " 412 ").replace("R 00:00", "R 00:01")) == masked
    assert mask(table.replace("queued3       --", "queued3       77")) != masked


def test_qstat_time_use_masked() -> None:
    """b01_qstat_default: the Time Use of running jobs is masked; '0' of queued jobs stays."""
    table = _golden("b01_qstat_default")
    assert mask(table.replace("00:00:00 R", "00:00:03 R")) == mask(table)
    assert mask(table.replace("       0 H", "00:00:00 H")) != mask(table)


def test_sock_numbers_in_logs_masked() -> None:
    """Server logs (master set): 'request received from pbsuser@vm, sock=19'."""
    line = ("11/21/2026 19:52:14;0100;Server@vm;Req;;Type 1 request received from pbsuser@vm,"
            " sock=19")
    assert mask(line) == mask(line.replace("sock=19", "sock=7"))
    assert mask(line) != mask(line.replace("Type 1", "Type 2"))


def test_pbs_o_environment_values_masked() -> None:
    """b02 (wrapped text) and b03 (JSON): PBS_O_PATH/HOME/SHELL/LANG/TZ values."""
    text = _golden("b02_qstat_f_running")
    assert "PBS_O_PATH=<ENV>,PBS_O_SHELL=<ENV>" in mask(text)
    json_text = _golden("b03_qstat_f_json_running")
    assert '"PBS_O_PATH":"<ENV>"' in mask(json_text)
    assert mask(json_text.replace('"PBS_O_WORKDIR":"/home/pbsuser"',
                                  '"PBS_O_WORKDIR":"/tmp"')) != mask(json_text)


def test_fake_side_paths_hosts_and_users() -> None:
    """b02: the fake's shim PATH, home, host name and user map back to the capture's."""
    text = _golden("b02_qstat_f_running")
    local = (text.replace("/opt/pbs/bin", "/tmp/fpb1234").replace("/home/pbsuser", "/home/alice")
             .replace("pbsuser", "alice").replace("@vm", "@node7").replace("= vm\n", "= node7\n"))
    normalizer = Normalizer([("/tmp/fpb1234", "/opt/pbs/bin"), ("/home/alice", "/home/pbsuser"),
                             ("alice", "pbsuser")], host_names=["node7"])
    jobs = JobMap()
    jobs.learn(text, text)
    assert normalizer.fake(local, jobs) == normalizer.golden(text)


def test_wrapped_literal_substitution() -> None:
    """A shim path split by qstat -f's wrap ("\\n\\t") is still mapped back."""
    normalizer = Normalizer([("/tmp/fpb1234", "/opt/pbs/bin")])
    assert normalizer.fake_to_golden("PATH=/tmp/fp\n\tb1234:/bin") == "PATH=/opt/pbs/bin:/bin"


def test_job_numbers_paired_in_order_of_first_appearance() -> None:
    """b01c_qstat_a lists 1,4,5,7,8,9,13,14,15; a fake numbering 0..8 pairs in order."""
    golden = RELEASE["b01c_qstat_a"].stdout
    numbers = ["1", "4", "5", "7", "8", "9", "13", "14", "15"]
    fake = golden
    for index, number in enumerate(numbers):
        fake = fake.replace("\n%s.vm " % number, "\n%d.vm  " % index if index < 10 else "")
    jobs = JobMap()
    assert jobs.learn(golden, fake)
    assert jobs.golden_to_fake["13"] == "6"
    assert jobs.to_golden("6.vm sleeper.o6 arr.e6.2") == "13.vm sleeper.o13 arr.e13.2"
    assert jobs.to_golden("99.vm") == "<unpaired:99>.vm"


def test_pairing_refused_when_counts_differ() -> None:
    """Outputs naming different numbers of unknown jobs pair nothing."""
    jobs = JobMap()
    assert not jobs.learn("13.vm\n", "")
    assert not jobs.golden_to_fake


def test_command_rewriting() -> None:
    """Commands of b02, j02k ('qstat 339'), j05u (afterok:343), j03d (arr.o339.$i)."""
    jobs = JobMap()
    for golden, fake in (("13", "2"), ("339", "40"), ("343", "44"), ("1", "0")):
        jobs.add(golden, fake)
    assert jobs.to_fake_command("qstat -f 13.vm") == "qstat -f 2.vm"
    assert jobs.to_fake_command("qstat 339") == "qstat 40"
    assert jobs.to_fake_command("qstat -t '339[1-2].vm'") == "qstat -t '40[1-2].vm'"
    assert jobs.to_fake_command("qstat '339[]'") == "qstat '40[]'"
    assert jobs.to_fake_command("qsub -h -W depend=afterok:343 hello.sh") == (
        "qsub -h -W depend=afterok:44 hello.sh")
    assert jobs.to_fake_command("cat arr.o339.$i") == "cat arr.o40.$i"
    # numbers that are not job ids stay: sleep's argument, -J ranges, tracejob -n.
    assert jobs.to_fake_command("qsub -h -- /bin/sleep 1") == "qsub -h -- /bin/sleep 1"
    assert jobs.to_fake_command("qsub -J 1-3 arr.sh") == "qsub -J 1-3 arr.sh"
    assert jobs.to_fake_command("tracejob -n 1 13.vm") == "tracejob -n 1 2.vm"


@pytest.mark.parametrize(("command", "read_only"), [
    ("qstat -f -F json -x 13.vm", True),
    ("qstat -f 361.vm | grep -E 'job_state|comment'", True),
    ("pbsnodes -av", True),
    ("pbsnodes -o vm", False),
    ("qmgr -c 'list hook h1'", True),
    ("qmgr -c 'print server'", True),
    ("qmgr -c 'set hook h1 alarm = abc'", False),
    ("qsub hello.sh", False),
    ("qdel 13.vm", False),
    ("export MYVAR=hello123; qsub -V envdump.sh", False),
    ("for j in 330.vm 331.vm; do qstat -f -x $j | grep -E 'Job Id'; done", True),
    ("tracejob 16.vm", True),
    # extra k14g: the accounting log's record types; k03a: ps answers change with every read
    ("cut -d';' -f2 /var/spool/pbs/server_priv/accounting/20261121 | sort | uniq -c", True),
    ("ps -o user,pid,ppid,sid,args --forest -g $(ps -o sid= -p $(pgrep -f 'jobs/387.vm.SC'"
     " | head -1)) | cat", False),
    ("qrls 385.vm; qstat -f 385.vm | grep -E 'job_state|Hold_Types'", False),
])
def test_read_only_classification(command: str, read_only: bool) -> None:
    """Only commands that cannot change the cluster are retried."""
    assert is_read_only(command) is read_only


def test_qstat_one_line_rows_mask_sessid_before_nodes_and_comment() -> None:
    # k08c (qstat -1 -n), k08k (qstat -s -1): the row goes on after Elap Time.
    head = "389.vm          pbsuser  workq    newrunname  %5s   1   1    --  00:10 R 00:00"
    for tail in (" vm/0", "    Job run at Sat Nov 21 at 21:01 on (vm:ncpus=1)", ""):
        assert mask(head % "25753" + tail) == mask(head % "1512" + tail)
        assert "<SID>" in mask(head % "25753" + tail)
    assert mask(head % "25753" + " vm/0") != mask(head % "25753" + " vm/1")


def test_hook_import_temporary_file_masked() -> None:
    # m01e, m09d: qmgr's mkstemp file "qmgr_hook<pid><6 chars>.tmp".
    line = "Compiling script file: </var/spool/pbs/server_priv/hooks/tmp/qmgr_hook%s.tmp>"
    assert mask(line % "27693AjSPbx") == mask(line % "1234xY9abc")
    assert mask(line % "27693AjSPbx") != mask(line.replace("tmp/", "") % "27693AjSPbx")


def test_pbsnodes_Sj_bare_job_numbers_paired_and_rewritten() -> None:
    # n02u, n03c: pbsnodes -aSj lists its jobs by bare number.
    row = "vm              free                 1     1      0    24gb/24gb     1/2     0/0" \
          "     1/2 %s"
    jobs = JobMap()
    assert jobs.learn(row % "413", row % "407")
    assert jobs.to_golden(row % "407") == row % "413"
    assert jobs.to_golden(row % "408") == row % "<unpaired:408>"
    # bare numbers elsewhere are not job ids: left alone
    assert jobs.to_golden("     Port = 407\njobs 407") == "     Port = 407\njobs 407"


def test_unknown_job_above_every_paired_number_pairs_with_itself() -> None:
    # j05q names 9999.vm, a job that never existed: the log of j05y shows it on both sides.
    jobs = JobMap()
    jobs.learn("347.vm\n", "340.vm\n")
    assert jobs.to_fake_command("qsub -W depend=afterok:9999.vm hello.sh") == \
        "qsub -W depend=afterok:9999.vm hello.sh"
    assert jobs.to_golden("rejected by 9999.vm") == "rejected by 9999.vm"
    assert jobs.to_fake_command("qhold 8888") == "qhold 8888"
    assert jobs.to_golden("8888.vm") == "8888.vm"
    # a number at or below the paired ones may be a failed pairing: it stays unpaired
    assert jobs.to_fake_command("qdel 345") == "qdel 345"
    assert jobs.to_golden("345.vm") == "<unpaired:345>.vm"


def test_log_object_of_a_server_line_naming_a_hook_file_is_the_hook() -> None:
    # m08b keeps per_log.PY's compile lines, not the epi_log/end_log2 copies; m04f keeps
    # eb_reject.HK's copy (extra_lib.sh newlogs, grepped by the group's hook names).
    from .harness.replay import _log_object
    stamp = "11/21/2026 21:04:34;0086;Server@vm;Svr;Server@vm;"
    assert _log_object(stamp + "Compiling script file: "
                       "</var/spool/pbs/server_priv/hooks/per_log.PY>") == "per_log"
    assert _log_object(stamp + "successfully sent hook file "
                       "/var/spool/pbs/server_priv/hooks/epi_log.HK to vm:15002") == "epi_log"
    # an import's test compile names no hook: kept only where the golden grep kept one (m09d)
    assert _log_object(stamp + "Compiling script file: </var/spool/pbs/server_priv/hooks/tmp/"
                       "qmgr_hook1AbCdEf.tmp>") == "<the import's test compile>"
    assert _log_object(stamp + "per_log: periodic hook ran type=32768") == "Server@vm"
    assert _log_object("11/21/2026 21:03:49;0080;pbs_mom;Hook;eb_reject.HK;copy hook-related "
                       "file request received") == "eb_reject.HK"


@pytest.mark.parametrize("name", ["b01c_qstat_a", "b12_qstat_u"])
def test_long_stand_in_user_cut_in_qstat_a(name: str) -> None:
    """b01c, b12: qstat -a cuts a user name longer than its 8-character column to 7 and "*"
    (qstat.c's column printers; fake_pbs/cli/render/alttable.py); a stand-in such as
    "plainuser1" shows as "plainus*" where the transcript's pbsuser shows as "pbsuser "."""
    text = _golden(name)
    local = text.replace("pbsuser  workq", "plainus* workq")
    assert local != text
    normalizer = Normalizer([("plainuser1", "pbsuser")]
                            + truncated_names("plainuser1", "pbsuser"))
    jobs = JobMap()
    jobs.learn(text, text)
    assert normalizer.fake(local, jobs) == normalizer.golden(text)


def testtruncated_names_per_user_column() -> None:
    """The -a (8), -a -w (15) and default (16) user columns a stand-in overflows."""
    assert truncated_names("plainuser1", "pbsuser") == [("plainus*", "pbsuser ")]
    assert truncated_names("averyveryverylonguser", "pbsuser2") == [
        ("averyve*", "pbsuser2"), ("averyveryveryl*", "pbsuser2".ljust(15)),
        ("averyveryverylo*", "pbsuser2".ljust(16))]
    assert truncated_names("alice", "pbsuser") == []
