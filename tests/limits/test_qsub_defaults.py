"""The server's default_qsub_arguments, applied by qsub below the script's directives and the
command line (src/cmds/qsub.c do_submit: do_dir(dfltqsubargs, CMDLINE - 2); -l merges)."""
from pathlib import Path

from fake_pbs.testing import FakeCluster


def submit(pbs: FakeCluster, tmp_path: Path, script: str, *options: str) -> str:
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/sh\n" + script + "true\n")
    done = pbs.run(["qsub", "-h"] + list(options) + [str(path)], cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_defaults_apply_below_directives_and_command_line(pbs: FakeCluster,
                                                          tmp_path: Path) -> None:
    pbs.qmgr('set server default_qsub_arguments = "-N dflt -l walltime=00:10:00 -p 5"')
    plain = pbs.job(submit(pbs, tmp_path, ""))
    assert (plain["Job_Name"], plain["Resource_List.walltime"], plain["Priority"]) == (
        "dflt", "00:10:00", "5")
    scripted = pbs.job(submit(pbs, tmp_path, "#PBS -N fromscript\n#PBS -l walltime=00:20:00\n"))
    assert (scripted["Job_Name"], scripted["Resource_List.walltime"]) == (
        "fromscript", "00:20:00")
    cmdline = pbs.job(submit(pbs, tmp_path, "", "-p", "7", "-l", "mem=1gb"))
    assert (cmdline["Priority"], cmdline["Resource_List.walltime"],
            cmdline["Resource_List.mem"]) == ("7", "00:10:00", "1gb")


def test_no_defaults_one_submission(pbs: FakeCluster, tmp_path: Path) -> None:
    """Unset, nothing changes (and no job number is spent on a retry)."""
    first = submit(pbs, tmp_path, "")
    pbs.qmgr('set server default_qsub_arguments = "-r n"')
    second = submit(pbs, tmp_path, "")
    assert int(second.split(".")[0]) == int(first.split(".")[0]) + 1
    assert pbs.job(second)["Rerunable"] == "False"
