"""Summarise one client suite run for .ci/clients: counts, each failed test with its PBS calls.

    python3 tools/client_suite_report.py CLIENT JUNIT_XML PBS_CALLS_LOG

Prints ``CLIENT: N passed, N failed, N skipped`` and, per failed or erroring test, its id, the first
line of its failure and the PBS commands it ran (from the shims' log: the test, exit status,
command line, stderr), the failing ones marked.  Exits 1 when a test failed or errored.
Standard library only: it runs under any python3, outside the project's venv.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Tuple

_CALLS_SHOWN = 6


def read_calls(log: Path) -> Dict[str, List[Tuple[str, str, str]]]:
    """The shims' log by test name (PYTEST_CURRENT_TEST's last ``::`` part): (rc, command, err)."""
    calls: Dict[str, List[Tuple[str, str, str]]] = {}
    if not log.exists():
        return calls
    for line in log.read_text(errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) < 3:
            continue
        current, rc, command = parts[0], parts[1], parts[2]
        err = parts[3] if len(parts) > 3 else ""
        test = current.split(" (")[0].split("::")[-1]
        calls.setdefault(test, []).append((rc, command, err.strip()))
    return calls


def main(argv: List[str]) -> int:
    client, junit, log = argv[1], Path(argv[2]), Path(argv[3])
    calls = read_calls(log)
    passed = failed = skipped = 0
    failures: List[str] = []
    for case in ET.parse(str(junit)).getroot().iter("testcase"):
        name = case.get("name", "?")
        test_id = "%s::%s" % (case.get("classname", "?"), name)
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            failed += 1
            message = (bad.get("message") or bad.text or "").strip().splitlines()
            failures.append("%s: FAILED %s: %s" % (client, test_id, message[0] if message else ""))
            ran = calls.get(name, [])
            if not ran:
                failures.append("    PBS commands: none ran in this test")
            for rc, command, err in ran[-_CALLS_SHOWN:]:
                mark = "  <-- exit %s: %s" % (rc, err) if rc != "0" else ""
                failures.append("    PBS command: %s%s" % (command, mark))
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    for line in failures:
        print(line)
    print("%s: %d passed, %d failed, %d skipped" % (client, passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
