"""qsub against golden OpenPBS 23.06.06 transcripts, with a stub server behind it."""
from pathlib import Path
from typing import Any, Dict

import pytest

from fake_pbs.cli import qsub, qsub_verify
from fake_pbs.model.errors import PBSE_BADUSER, PBSE_UNKQUE, PBSE_UNKRESC, PbsError
from .test_qsub_harness import StubServer, fail, matches, run, stub_fixture  # noqa: F401

Cap = pytest.CaptureFixture[str]


def submitted(server: StubServer) -> Dict[str, str]:
    (args,) = server.ops("queuejob")
    return dict(args["attrs"])


def test_a01_hello_prints_the_job_id(stub: StubServer, capsys: Cap) -> None:
    """a01: `qsub hello.sh` prints `0.vm`; client defaults and Job_Name from #PBS -N."""
    matches("a01_qsub_hello", run(qsub.body, ["hello.sh"], capsys))
    attrs = submitted(stub)
    assert attrs["Job_Name"] == "hello"
    for name, value in (("Checkpoint", "u"), ("Hold_Types", "n"), ("Join_Path", "n"),
                        ("Keep_Files", "n"), ("Mail_Points", "a"), ("Priority", "0"),
                        ("Rerunable", "True"), ("Submit_arguments", "hello.sh")):
        assert attrs[name] == value
    assert stub.ops("queuejob")[0]["script"].startswith("#!/bin/bash\n#PBS -N hello")


@pytest.mark.parametrize("name, argv", [
    ("a02_qsub_bad_name", ["-N", "1bad name", "hello.sh"]),
    ("a02c_qsub_bad_name_space", ["-N", "bad name", "hello.sh"]),
    ("a05_qsub_missing_script", ["/nonexistent/nosuchfile.sh"]),
    ("a05b_qsub_missing_script_rel", ["nosuchfile.sh"]),
    ("a06_qsub_bad_walltime", ["-l", "walltime=abc", "hello.sh"]),
    ("a11_qsub_bad_option", ["-Z", "hello.sh"]),
    ("a14_qsub_bad_select", ["-l", "select=abc", "hello.sh"]),
    ("a19_qsub_v_quote", ["-h", "-v", 'QUOTED=a"b', "hello.sh"]),
    ("i04e_qsub_v_notset", ["-v", "NOTSET_XYZ", "envdump.sh"]),
    ("i07b_qsub_sandbox_bad", ["-W", "sandbox=FOO", "envdump.sh"]),
    ("j04b_qsub_array_bad_range", ["-J", "3-1", "arrfail.sh"]),
    ("j04c_qsub_array_single", ["-J", "1", "arrfail.sh"]),
    ("j05t_qsub_depend_bad_type", ["-W", "depend=afterfoo:343.vm", "hello.sh"]),
    ("j07d_qsub_a_bad", ["-a", "99999999", "hello.sh"]),
    ("j08d_qsub_p_out_of_range", ["-h", "-p", "2000", "hello.sh"]),
    ("j08f_qsub_m_bad", ["-h", "-m", "z", "hello.sh"]),
    ("j11d_qsub_walltime_days", ["-h", "-l", "walltime=1:00:00:00", "hello.sh"]),
    ("j12c_qsub_mem_bad", ["-h", "-l", "mem=1xb", "hello.sh"]),
])
def test_client_side_errors_send_nothing(stub: StubServer, capsys: Cap, name: str,
                                         argv: Any) -> None:
    """Errors qsub finds itself: exact stderr, exit code, and no request to the server."""
    matches(name, run(qsub.body, argv, capsys))
    assert stub.ops("queuejob") == []


@pytest.mark.parametrize("name, argv, code, text", [
    ("a03_qsub_unknown_queue", ["-q", "nosuch", "hello.sh"], PBSE_UNKQUE, None),
    ("a04_qsub_unknown_resource", ["-l", "foo=1", "hello.sh"], PBSE_UNKRESC,
     "Unknown resource Resource_List.foo"),
    ("a12_qsub_as_root", ["hello.sh"], PBSE_BADUSER, None),
])
def test_server_errors_are_printed_with_their_code(stub: StubServer, capsys: Cap, name: str,
                                                   argv: Any, code: int, text: Any) -> None:
    """a03/a04/a12: the server's refusal as `qsub: <text>`, exit code % 256."""
    stub.reply = fail(code, text)
    matches(name, run(qsub.body, argv, capsys))
    if name == "a03_qsub_unknown_queue":
        assert stub.ops("queuejob")[0]["attrs"]["queue"] == "nosuch"


def test_a07_stdin_job_is_named_stdin(stub: StubServer, capsys: Cap,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """a07: the script comes from stdin and Job_Name is STDIN."""
    import io
    import sys

    class FakeStdin(io.StringIO):
        buffer = io.BytesIO(b"echo from stdin\n")

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    assert run(qsub.body, ["-h"], capsys) == (0, "0.vm\n", "")
    attrs = submitted(stub)
    assert (attrs["Job_Name"], attrs["Hold_Types"]) == ("STDIN", "u")
    assert stub.ops("queuejob")[0]["script"] == "echo from stdin\n"


def test_a08_dashdash_command(stub: StubServer, capsys: Cap) -> None:
    """a08 / b22e: `-- /bin/sleep 1` -> executable and argument_list in JSDL form."""
    assert run(qsub.body, ["-h", "--", "/bin/sleep", "1"], capsys) == (0, "0.vm\n", "")
    attrs = submitted(stub)
    assert attrs["executable"] == "<jsdl-hpcpa:Executable>/bin/sleep</jsdl-hpcpa:Executable>"
    assert attrs["argument_list"] == "<jsdl-hpcpa:Argument>1</jsdl-hpcpa:Argument>"
    assert attrs["Job_Name"] == "STDIN"
    assert attrs["Submit_arguments"] == "-h -- /bin/sleep 1"
    assert stub.ops("queuejob")[0]["script"] == ""


def test_variable_list_order_and_escapes(stub: StubServer, capsys: Cap,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """i01c/i04c/i04f/a19f: PBS_O_* order, -v after PBS_O_SYSTEM, `\\,` and doubled `\\`."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("FROMENV", "envval")
    argv = ["-h", "-v", 'LIST="a,b",Y=2,FROMENV,BS=c\\d', "envdump.sh"]
    assert run(qsub.body, argv, capsys)[0] == 0
    cwd = str(Path.cwd())
    assert submitted(stub)["Variable_List"] == (
        "PBS_O_HOME=/home/pbsuser,PBS_O_LANG=C.UTF-8,PBS_O_LOGNAME=pbsuser,"
        "PBS_O_PATH=/opt/pbs/bin:/usr/bin:/bin,PBS_O_SHELL=/bin/bash,PBS_O_TZ=UTC,"
        "PBS_O_WORKDIR=" + cwd + ",PBS_O_SYSTEM=Linux,"
        "LIST=a\\,b,Y=2,FROMENV=envval,BS=c\\\\\\\\d")


def test_capital_v_exports_the_environment(stub: StubServer, capsys: Cap,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """i03: -V exports the submitter's variables (fixed upstream bug #2602), PBS_O_* not."""
    monkeypatch.setenv("MYVAR", "hello123")
    monkeypatch.setenv("PBS_O_FAKE", "x")
    assert run(qsub.body, ["-V", "envdump.sh"], capsys)[0] == 0
    value = submitted(stub)["Variable_List"]
    assert ",MYVAR=hello123" in value and "PBS_O_FAKE" not in value


def test_a13_resource_without_value_is_left_unset(stub: StubServer, capsys: Cap) -> None:
    """a13 (master set; release job 7.vm in b22e): `qsub -l walltime hello.sh` exits 0 and
    the job has no Resource_List.walltime."""
    argv = ["-h", "-l", "walltime", "hello.sh"]
    assert run(qsub.body, argv, capsys)[0] == 0
    attrs = submitted(stub)
    assert "Resource_List.walltime" not in attrs
    assert attrs["Submit_arguments"] == " ".join(argv)


def test_resources_are_normalized(stub: StubServer, capsys: Cap) -> None:
    """j11/j11b/j11e/j12d: walltime stored HH:MM:SS, bare bytes get `b`."""
    argv = ["-h", "-l", "walltime=90.5", "-l", "mem=1048576,ncpus=2", "hello.sh"]
    assert run(qsub.body, argv, capsys)[0] == 0
    attrs = submitted(stub)
    assert attrs["Resource_List.walltime"] == "00:01:31"
    assert attrs["Resource_List.mem"] == "1048576b"
    assert attrs["Resource_List.ncpus"] == "2"
    assert attrs["Submit_arguments"] == " ".join(argv)


def test_site_resources_go_to_the_server_unchecked(stub: StubServer, capsys: Cap) -> None:
    """n02: qsub does not know ngpus; the server decides (Unknown resource or accepted)."""
    assert run(qsub.body, ["-l", "select=1:ncpus=1:ngpus=1", "hello.sh"], capsys)[0] == 0
    assert submitted(stub)["Resource_List.select"] == "1:ncpus=1:ngpus=1"


def test_directive_precedence_and_prefix(stub: StubServer, capsys: Cap) -> None:
    """j15/j15a/j15b/j16/j16a: -C prefix, late directives ignored, blank lines allowed."""
    cases = [(["-C", "#MYPBS", "myprefix.sh"], "myprefixed", "00:05:00"),
             (["myprefix.sh"], "pbsprefixed", None),
             (["-C", "MY PBS", "myprefix.sh"], "myprefix.sh", None),
             (["latedirective.sh"], "early", None),
             (["blankfirst.sh"], "aftercomment", "00:03:00"),
             (["-N", "cmd", "-l", "walltime=1:00", "myprefix.sh", ], "cmd", None)]
    for argv, name, walltime in cases:
        stub.requests.clear()
        assert run(qsub.body, argv, capsys)[0] == 0
        attrs = submitted(stub)
        assert attrs["Job_Name"] == name
        assert attrs.get("Resource_List.walltime") == walltime or argv[0] == "-N"


def test_command_line_beats_directives_but_l_merges(stub: StubServer, capsys: Cap,
                                                    tmp_path: Path) -> None:
    """qsub.c process_opts: command line > directives; -l from directives fills gaps."""
    (tmp_path / "job.sh").write_text(
        "#!/bin/sh\n#PBS -l walltime=00:07:00,mem=1gb\n#PBS -N fromscript -p 5\n"
        "#PBS -l mem=2gb\ntrue\n")
    assert run(qsub.body, ["-l", "walltime=60", "-p", "9", "job.sh"], capsys)[0] == 0
    attrs = submitted(stub)
    assert attrs["Resource_List.walltime"] == "00:01:00"
    assert attrs["Resource_List.mem"] == "1gb"
    assert (attrs["Job_Name"], attrs["Priority"]) == ("fromscript", "9")


def test_directive_error(stub: StubServer, capsys: Cap, tmp_path: Path) -> None:
    """qsub_sup.c get_script/do_dir: the specific message, then `directive error`, exit 1."""
    (tmp_path / "bad.sh").write_text("#!/bin/sh\n#PBS -r x\ntrue\n")
    assert run(qsub.body, ["bad.sh"], capsys) == (
        1, "", "qsub: illegal -r value\nqsub: directive error: -r x \n")
    (tmp_path / "extra.sh").write_text("#PBS -A ModCon # comment\ntrue\n")
    assert run(qsub.body, ["extra.sh"], capsys) == (
        1, "", "qsub: directive error: -A ModCon # comment \n")
    (tmp_path / "cont.sh").write_text("#PBS -l walltime=1:00,\\\n#PBS mem=1gb\ntrue\n")
    assert run(qsub.body, ["cont.sh"], capsys)[0] == 1
    (tmp_path / "cont2.sh").write_text("#PBS -N a\\\nb\ntrue\n")
    assert run(qsub.body, ["cont2.sh"], capsys)[0] == 0
    assert submitted(stub)["Job_Name"] == "ab"


def test_quiet_array_hold_depend(stub: StubServer, capsys: Cap) -> None:
    """j17a (-z prints nothing), j01/j04d (-J, %max), j05v (depend list), j08 options."""
    assert run(qsub.body, ["-z", "hello.sh"], capsys) == (0, "", "")
    stub.requests.clear()
    stub.reply = lambda op, args: {"jobid": "341[].vm"}
    argv = ["-h", "-J", "1-4%2", "-W", "depend=afterok:343.vm:342.vm,afterany:345.vm",
            "-p", "-1024", "-P", "proj", "-A", "acct", "-m", "abe", "-M", "x@y", "-r", "y",
            "arrfail.sh"]
    assert run(qsub.body, argv, capsys) == (0, "341[].vm\n", "")
    attrs = submitted(stub)
    assert attrs["array_indices_submitted"] == "1-4"
    assert attrs["max_run_subjobs"] == "2"
    assert attrs["depend"] == "afterok:343.vm:342.vm,afterany:345.vm"
    assert (attrs["Priority"], attrs["project"], attrs["Account_Name"]) == ("-1024", "proj",
                                                                            "acct")
    assert (attrs["Mail_Points"], attrs["Mail_Users"], attrs["Rerunable"]) == ("abe", "x@y",
                                                                               "True")


def test_rerun_and_array_and_mail_j(stub: StubServer, capsys: Cap) -> None:
    """Reference 1.2: -r n with -J refused; -m j without -J refused (exit 1)."""
    code, _, err = run(qsub.body, ["-r", "n", "-J", "1-2", "hello.sh"], capsys)
    assert (code, err.splitlines()[0]) == (2, "qsub:  cannot submit non-rerunable Array Job")
    assert run(qsub.body, ["-m", "j", "hello.sh"], capsys) == (
        1, "", "qsub: mail option 'j' can not be used without array job\n")


def test_paths_are_prepared(stub: StubServer, capsys: Cap, tmp_path: Path) -> None:
    """i05y: relative -o joined to the cwd, an existing directory gains `/`, host prefixed."""
    (tmp_path / "outdir").mkdir()
    assert run(qsub.body, ["-o", "rel.out", "-e", "outdir", "hello.sh"], capsys)[0] == 0
    attrs = submitted(stub)
    host = qsub_verify.submit_host()
    assert attrs["Output_Path"] == "%s:%s/rel.out" % (host, tmp_path)
    assert attrs["Error_Path"] == "%s:%s/outdir/" % (host, tmp_path)


def test_interactive_without_tty(stub: StubServer, capsys: Cap) -> None:
    """j13: `qsub -I` without a terminal."""
    matches_text = ("qsub:\tstandard input and output must be a terminal for\n"
                    "\tinteractive job submission\n")
    assert run(qsub.body, ["-I", "-l", "walltime=60"], capsys) == (1, "", matches_text)


def test_version(stub: StubServer, capsys: Cap) -> None:
    """v01-style: `--version` prints pbs_version."""
    assert run(qsub.body, ["--version"], capsys) == (0, "pbs_version = 23.06.06\n", "")


def test_block_waits_for_the_exit_status(stub: StubServer, capsys: Cap) -> None:
    """a17 (exit 3 -> rc 3) and a18 (walltime kill, Exit_status -29 -> rc 227)."""
    for exit_status, rc in (("3", 3), ("-29", 227), ("0", 0)):
        polls = []

        def reply(op: str, args: Dict[str, Any], status: str = exit_status) -> Any:
            if op == "queuejob":
                return {"jobid": "10.vm"}
            polls.append(args)
            if len(polls) < 2:
                return [{"id": "10.vm", "attrs": [["job_state", "R"]]}]
            return [{"id": "10.vm", "attrs": [["job_state", "F"], ["Exit_status", status]]}]

        stub.reply = reply
        assert run(qsub.body, ["-W", "block=true", "exit3.sh"], capsys) == (rc, "10.vm\n", "")
        assert polls[0]["extend"] == "x" and polls[0]["id"] == "10.vm"


def test_block_is_kept_on_the_job(stub: StubServer, capsys: Cap) -> None:
    """b22e: the jobs of a17/a17b/a18 (qsub -W block=true) show "block":"True"; others none."""
    stub.reply = lambda op, args: ({"jobid": "10.vm"} if op == "queuejob" else
                                   [{"id": "10.vm", "attrs": [["job_state", "F"]]}])
    assert run(qsub.body, ["-W", "block=true", "hello.sh"], capsys)[0] == 0
    assert submitted(stub)["block"] == "True"


def test_no_block_attribute_without_block(stub: StubServer, capsys: Cap) -> None:
    """b22e: a job submitted without -W block has no block attribute."""
    assert run(qsub.body, ["hello.sh"], capsys)[0] == 0
    assert "block" not in submitted(stub)


def test_hook_rejection_text(stub: StubServer, capsys: Cap) -> None:
    """m01a: a queuejob hook's reject message, exit 32."""
    stub.reply = fail(15136, "no jobs today")
    assert run(qsub.body, ["hello.sh"], capsys) == (32, "", "qsub: no jobs today\n")


def test_pbs_error_type_is_what_the_stub_raises() -> None:
    """Sanity: the harness raises the real error type with PBS's code."""
    with pytest.raises(PbsError):
        fail(PBSE_UNKQUE)("queuejob", {})
