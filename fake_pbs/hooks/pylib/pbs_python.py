"""The hook child (PBS's ``pbs_python --hook``): ``pbs_python.py <in.json> <out.json>``.

Runs one hook script with the ``pbs`` module beside it, then writes the outcome as JSON.
Exit status as PBS's: 0 when the hook accepted or rejected, 254 on an unhandled exception.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pbs  # type: ignore[import-not-found]  # noqa: E402


def _finish(out_path: str, status: int) -> None:
    current = pbs.event._instance
    if current is not None and current.type == pbs.EXECJOB_LAUNCH:
        pbs._outcome["launch"] = {"progname": current.progname, "argv": list(current.argv),
                                  "env": {str(k): str(v) for k, v in current.env.items()}}
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as stream:
        json.dump(pbs._outcome, stream)
    os.replace(tmp, out_path)
    sys.stdout.flush()
    os._exit(status)


def main() -> None:
    in_path, out_path = sys.argv[1], sys.argv[2]
    pbs._setup(in_path)
    spec = pbs._spec
    log_type = int(spec.get("compile_eventtype", 0x0400))
    daemon = str(spec.get("daemon", "pbs_python"))
    if spec.get("compile_log", True):
        pbs._write_log(log_type, "Svr", daemon,
                       "Compiling script file: <%s>" % spec.get("script_path", ""))
    with open(spec["script_file"], encoding="utf-8", errors="surrogateescape") as stream:
        source = stream.read()
    try:
        code = compile(source, "<embedded code object>", "exec")
        exec(code, {"__name__": "__main__"})
    except SystemExit:
        pass
    except BaseException as exc:  # any failure of the site's code is the hook's exception
        text = str(exc) or "<could not figure out the exception value>"
        for detail in (str(type(exc)), text):
            pbs._write_log(0x0001, "Svr", daemon, "PBS server internal error (15011) in Error "
                           "evaluating Python script, %s" % detail)
        pbs._write_log(0x0100, "Hook", str(spec.get("hook_name", "")),
                       "%s hook '%s' encountered an exception, request rejected"
                       % (spec.get("event_name", ""), spec.get("hook_name", "")))
        pbs._outcome["result"] = "exception"
        pbs._outcome["message"] = "%s: %s" % (type(exc).__name__, text)
        _finish(out_path, 254)
    if pbs._outcome["result"] is None:
        pbs._outcome["result"] = "accept"
    _finish(out_path, 0)


if __name__ == "__main__":
    main()
