"""qstat's pure renderers rebuild the exact outputs of OpenPBS 23.06.06 transcripts from the
attribute pairs read back out of those transcripts (see test_render_cases)."""
from typing import Any, Dict, List

import pytest

from fake_pbs.cli.render import alttable, full, jobtable, queues
from fake_pbs.cli.render.pbsjson import JsonDoc, escape_value, is_c_number, ESCAPE
from .test_render_cases import (case, normalize_timestamp, pbs_json_objects, unfold_full_text,
                                use_utc)


def _json_doc(section: str, objects: Any, kind: str = "job") -> str:
    doc = JsonDoc()
    doc.integer("timestamp", 0)
    doc.string("pbs_version", "23.06.06")
    doc.string("pbs_server", "vm")
    if objects:
        doc.open_object(section)
    for name, pairs in objects:
        triples = full.job_triples(pairs) if kind == "job" else full.plain_triples(pairs)
        full.json_block(doc, name, triples)
    doc.close()
    return doc.render()


@pytest.mark.parametrize("text_case,json_case", [
    ("b02_qstat_f_running", "b03_qstat_f_json_running"),
    ("b15_qstat_fx_text_exit3", "b07b_qstat_fxjson_exit3"),
])
def test_full_text_and_json_from_the_same_pairs(text_case: str, json_case: str) -> None:
    """b02/b03 and b15/b07b: `qstat -f` folding at 78 columns (Variable_List continuation lines,
    blank line per job) and `-f -F json` (4-space indent, strtod typing, Variable_List object,
    ctime dates, epoch history_timestamp) from one attribute list."""
    use_utc()
    text = case(text_case)["stdout"]
    name, pairs = unfold_full_text(text)[0]
    assert full.text_block("Job Id: " + name, full.job_triples(pairs), wide=False) == text
    expected = case(json_case)["stdout"]
    assert _json_doc("Jobs", [(name, pairs)]) == normalize_timestamp(expected)


@pytest.mark.parametrize("json_case", ["b03b_qstat_f_json_queued", "a19f_qstat_fjson_backslash"])
def test_json_round_trip(json_case: str) -> None:
    """b03b (queued job) and a19f: the 23.06 backslash bug (`\\d` copied raw: invalid JSON)."""
    use_utc()
    expected = case(json_case)["stdout"]
    objects = pbs_json_objects(expected, "Jobs")
    assert _json_doc("Jobs", objects) == normalize_timestamp(expected)


def test_json_two_jobs_with_tab_value() -> None:
    """b22b: two jobs in one document; a real TAB in a -v value is written as \\t."""
    use_utc()
    expected = case("b22b_qstat_fjson_two_ids_noX")["stdout"]
    objects = pbs_json_objects(expected, "Jobs")
    fixed = [(n, [(k, v.replace("x\\ty", "x\ty")) for k, v in p]) for n, p in objects]
    assert _json_doc("Jobs", fixed) == normalize_timestamp(expected)


def test_json_without_jobs_has_no_final_newline() -> None:
    """b11e: only unknown ids -> the prologue, a closing brace and no trailing newline."""
    assert _json_doc("Jobs", []) == normalize_timestamp(
        case("b11e_qstat_fjson_only_unknown")["stdout"])


def test_json_typing_follows_strtod() -> None:
    """openpbs-behaviour 2.4: numbers raw unless they start with 0 and are >= 1; inf/nan raw."""
    assert is_c_number("0") and is_c_number("-29") and is_c_number("0.5")
    assert not is_c_number("005") and not is_c_number("00:00:00") and not is_c_number("1gb")
    assert is_c_number("inf") and is_c_number("+5") and is_c_number(".5")
    assert not is_c_number("True") and not is_c_number("") and not is_c_number(" ")


def test_json_partial_escaping() -> None:
    """pbs_json.c JSON_ESCAPE: backslash pairs copied, \\' and \\, lose the backslash, a quote
    is escaped unless preceded by a backslash or first."""
    assert escape_value("c\\d", ESCAPE) == "c\\d"
    assert escape_value("a\\,b\\'c", ESCAPE) == "a,b'c"
    assert escape_value('a"b', ESCAPE) == 'a\\"b'
    assert escape_value('"ab', ESCAPE) == '"ab'
    assert escape_value("a\nb", ESCAPE) == "a\\nb"


@pytest.mark.parametrize("text_case,json_case,section", [
    ("b13b_qstat_Qf", "b16_qstat_Q_json", "Queue"),
    ("b14b_qstat_Bf", "b16b_qstat_B_json", "Server"),
])
def test_queue_and_server_full(text_case: str, json_case: str, section: str) -> None:
    """b13b/b16 and b14b/b16b: -Qf / -Bf text (state_count folded mid-word) and JSON."""
    text = case(text_case)["stdout"]
    name, pairs = unfold_full_text(text)[0]
    label = "Queue: " if section == "Queue" else "Server: "
    assert full.text_block(label + name, full.plain_triples(pairs), wide=False) == text
    expected = case(json_case)["stdout"]
    assert _json_doc(section, [(name, pairs)], kind="plain") == normalize_timestamp(expected)


def test_queue_and_server_tables() -> None:
    """b13 (-Q: Type cut to `Exe*`) and b14 (-B: Status padded to 10)."""
    qname, qpairs = unfold_full_text(case("b13b_qstat_Qf")["stdout"])[0]
    assert queues.QUEUE_HEADER + queues.queue_row(qname, qpairs) == case("b13_qstat_Q")["stdout"]
    sname, spairs = unfold_full_text(case("b14b_qstat_Bf")["stdout"])[0]
    assert queues.SERVER_HEADER + queues.server_row(sname, spairs) == \
        case("b14_qstat_B")["stdout"]


def test_dsv_queue_and_server() -> None:
    """k08p / k08q: -Q -f -F dsv and -B -f -F dsv, one line, no trailing delimiter."""
    for name, label in (("k08p_qstat_Q_f_dsv", "Queue"), ("k08q_qstat_B_f_dsv", "Server")):
        expected = case(name)["stdout"]
        head, *items = expected.rstrip("\n").split("|")
        pairs = [tuple(item.split("=", 1)) for item in items]
        rendered = full.dsv_block(head, full.plain_triples(pairs), "|")
        assert head.startswith(label) and rendered == expected


def _table_records(stdout: str) -> List[Dict[str, Any]]:
    records = []
    for line in stdout.splitlines()[2:]:
        job_id, name, user, used, state, queue = line.split()
        attrs = [["Job_Name", name], ["Job_Owner", user + "@vm"]]
        if used != "0":
            attrs.append(["resources_used.cput", used])
        attrs += [["job_state", state], ["queue", queue]]
        records.append({"id": job_id, "attrs": attrs})
    return records


def test_default_table() -> None:
    """b01: the default table, its header, `0` for no cput, trailing blanks of the queue."""
    expected = case("b01_qstat_default")["stdout"]
    records = _table_records(expected)
    assert jobtable.header(None, False, False, False) + \
        jobtable.table(records, False, False, False) == expected


def test_default_table_truncation() -> None:
    """qstat.c display_statjob: long names end in `*`, the id keeps one server component."""
    record = {"id": "123456789012345.host.example.com",
              "attrs": [["Job_Name", "a_rather_long_job_name"],
                        ["Job_Owner", "someone_with_a_long_name@h"], ["job_state", "R"],
                        ["queue", "workq"]]}
    line = jobtable.table([record], False, False, False)
    assert line.startswith("123456789012345.* a_rather_long_j* someone_with_a_*         0 R ")


def _alt_records() -> List[Dict[str, Any]]:
    """The jobs of the k08 cases (extra set), as the server would send them."""
    def job(seq: int, name: str, sess: str, state: str, walltime: str, used: str,
            exec_host: str, comment: str) -> Dict[str, Any]:
        attrs = [["Job_Name", name], ["Job_Owner", "pbsuser@vm"]]
        if used:
            attrs.append(["resources_used.walltime", used])
        attrs += [["job_state", state], ["queue", "workq"]]
        if exec_host:
            attrs.append(["exec_host", exec_host])
        attrs += [["Resource_List.ncpus", "1"], ["Resource_List.nodect", "1"]]
        if walltime:
            attrs.append(["Resource_List.walltime", walltime])
        if sess:
            attrs.append(["session_id", sess])
        if comment:
            attrs.append(["comment", comment])
        return {"id": "%d.vm" % seq, "attrs": attrs}
    ran = "Job run at Sat Nov 21 at 21:01 on (vm:ncpus=1)"
    nofree = "Not Running: Not enough free nodes available"
    return [job(389, "newrunname", "25753", "R", "00:10:00", "00:00:33", "vm/0", ran),
            job(390, "trapRN", "25859", "R", "", "00:00:20", "vm/1", ran),
            job(393, "forqrun", "26339", "S", "", "00:00:10", "vm/1", nofree),
            job(394, "selheld", "", "H", "", "", "", ""),
            job(395, "selq", "", "Q", "", "", "", nofree)]


@pytest.mark.parametrize("name,opts", [
    ("k08b_qstat_n", alttable.AltOptions(nodes=True)),
    ("k08c_qstat_1_n", alttable.AltOptions(nodes=True, one_line=True)),
    ("k08k_qstat_s_1", alttable.AltOptions(comment=True, one_line=True)),
    ("k08l_qstat_n_1_s_w",
     alttable.AltOptions(wide=True, nodes=True, comment=True, one_line=True)),
    ("k08m_qstat_a_w", alttable.AltOptions(wide=True)),
])
def test_alternate_display(name: str, opts: alttable.AltOptions) -> None:
    """k08b/c/k/l/m: -n, -1 -n, -s -1, -n -1 -s -w, -a -w (blank ` -- ` columns, node lines)."""
    expected = case(name)["stdout"]
    rendered = alttable.header("vm", None, opts.wide, False, False) + \
        alttable.table(_alt_records(), opts)
    assert rendered == expected


def test_percent_done() -> None:
    """k08n: qstat -p, walltime used / requested, `--` otherwise."""
    expected = case("k08n_qstat_p")["stdout"]
    records = _alt_records()
    records[0]["attrs"][2] = ["resources_used.walltime", "00:00:33"]
    assert jobtable.header(None, False, False, True) + \
        jobtable.table(records, False, False, True) == expected


def test_cnv_size() -> None:
    """qstat.c cnv_size: sizes shown in the unit that keeps 4 digits (j12 `1gb`, `1024k`)."""
    assert alttable.cnv_size("1gb", 0) == "1gb"
    assert alttable.cnv_size("1048576kb", 0) == "1024mb"
    assert alttable.cnv_size("1024kb", 0) == "1024kb"
    assert alttable.cnv_size("1gb", alttable.SIZE_GB) == "1gb"


def test_memory_column_keeps_five_characters() -> None:
    """Extra j11g: qstat -a copies cnv_size's text into a 6-byte buffer, so `1024kb` (mem=1048576
    bytes) shows as `1024k`, while `1gb` and `512mb` are whole."""
    assert alttable.size_field("1024kb", 0) == "1024k"
    assert alttable.size_field("512mb", 0) == "512mb"
    opts = alttable.AltOptions()
    line = alttable.row("370.vm", [["Resource_List.mem", "1024kb"]], opts)
    assert " 1024k " in line and "1024kb" not in line
