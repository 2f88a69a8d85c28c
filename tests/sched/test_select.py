"""select/place parsing, sizes, and the Resource_List the server derives at queuejob."""
import pytest

from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_UNKRESC, PbsError
from fake_pbs.model.select import Chunk, Place, Size, derive_resources, format_size, \
    parse_place, parse_select, parse_size, size_kb


def test_no_resources_gives_pbs_defaults() -> None:
    """Transcript j11f (qsub -l walltime only) and a01: ncpus=1 nodect=1 place=pack
    select=1:ncpus=1."""
    assert derive_resources({"walltime": "00:10:00"}) == {
        "ncpus": "1", "nodect": "1", "place": "pack", "select": "1:ncpus=1",
        "walltime": "00:10:00"}


def test_plain_ncpus_is_packed() -> None:
    """Transcript j10c: qsub -l ncpus=8 -> select=1:ncpus=8, place=pack."""
    assert derive_resources({"ncpus": "8"}) == {
        "ncpus": "8", "nodect": "1", "place": "pack", "select": "1:ncpus=8"}


def test_explicit_select_without_place_is_free() -> None:
    """Transcripts i02c and j10b: an explicit select gets place=free; mpiprocs is summed."""
    assert derive_resources({"Resource_List.select": "1:ncpus=2:mpiprocs=2"}) == {
        "Resource_List.mpiprocs": "2", "Resource_List.ncpus": "2",
        "Resource_List.nodect": "1", "Resource_List.place": "free",
        "Resource_List.select": "1:ncpus=2:mpiprocs=2"}


def test_job_wide_mem_moves_into_select_in_name_order() -> None:
    """Transcript j11f (368): -l mem=1gb -> select=1:mem=1gb:ncpus=1, mem=1gb."""
    assert derive_resources({"mem": "1gb"}) == {
        "mem": "1gb", "ncpus": "1", "nodect": "1", "place": "pack",
        "select": "1:mem=1gb:ncpus=1"}


def test_mem_in_bytes_is_stored_with_b_suffix() -> None:
    """Transcript j11f (370): -l mem=1048576 -> mem=1048576b and select=1:mem=1048576b:ncpus=1."""
    derived = derive_resources({"mem": "1048576"})
    assert derived["mem"] == "1048576b"
    assert derived["select"] == "1:mem=1048576b:ncpus=1"


def test_select_mem_is_kept_as_typed_and_summed() -> None:
    """Transcript j11f (369): select=1:ncpus=1:mem=512mb -> mem=512mb, place=free."""
    derived = derive_resources({"select": "1:ncpus=1:mem=512mb"})
    assert derived["select"] == "1:ncpus=1:mem=512mb"
    assert derived["mem"] == "512mb"
    assert derived["place"] == "free"


def test_chunks_are_summed_and_counted() -> None:
    """Reference §1.5: select=2:ncpus=4:mem=2gb, place=scatter -> ncpus=8 mem=4gb nodect=2."""
    derived = derive_resources({"select": "2:ncpus=4:mem=2gb", "place": "scatter"})
    assert (derived["ncpus"], derived["mem"], derived["nodect"], derived["place"]) == \
        ("8", "4gb", "2", "scatter")


def test_scatter_select_keeps_place() -> None:
    """Transcript j09b: select=2:ncpus=1 -l place=scatter -> ncpus=2 nodect=2 place=scatter."""
    derived = derive_resources({"select": "2:ncpus=1", "place": "scatter"})
    assert derived == {"ncpus": "2", "nodect": "2", "place": "scatter", "select": "2:ncpus=1"}


def test_custom_consumable_is_summed() -> None:
    """Transcript n02m: select=1:ncpus=1:ngpus=1 -> Resource_List.ngpus = 1."""
    assert derive_resources({"select": "1:ncpus=1:ngpus=1"})["ngpus"] == "1"


def test_mixed_units_sum_in_the_smaller_unit() -> None:
    """PBS adds sizes in the smaller unit: 1gb + 512mb = 1536mb."""
    assert derive_resources({"select": "1:mem=1gb+1:mem=512mb"})["mem"] == "1536mb"


@pytest.mark.parametrize("text", ["abc", "", "0:ncpus=1", "1:ncpus", "1:ncpus=x", "1:=2",
                                  "1:mem=1xb", "2:ncpus=1+", "1:ncpus=1 "])
def test_bad_select_is_15014(text: str) -> None:
    """Transcript a14: qsub -l select=abc -> Illegal attribute or resource value
    Resource_List.select (15014, exit 166)."""
    with pytest.raises(PbsError) as info:
        derive_resources({"select": text})
    assert info.value.code == PBSE_BADATVAL
    assert info.value.text == "Illegal attribute or resource value Resource_List.select"
    assert info.value.exit_code == 166


def test_unknown_chunk_resource() -> None:
    """Extra n02: select with an undefined resource -> 'Unknown resource: ngpus' (15035, 187)."""
    with pytest.raises(PbsError) as info:
        parse_select("1:ncpus=1:ngpus=1", known=["ncpus", "mem"])
    assert (info.value.code, info.value.text) == (PBSE_UNKRESC, "Unknown resource: ngpus")
    assert info.value.exit_code == 187


def test_parse_select_chunks() -> None:
    assert parse_select("2:ncpus=4:mem=2gb+1:ncpus=1:host=\"a:b\"") == [
        Chunk(2, (("ncpus", "4"), ("mem", "2gb"))),
        Chunk(1, (("ncpus", "1"), ("host", "a:b")))]
    assert parse_select("ncpus=2") == [Chunk(1, (("ncpus", "2"),))]


@pytest.mark.parametrize("text,expected", [
    ("pack", Place("pack")), ("scatter:excl", Place("scatter", "excl")),
    ("excl", Place("free", "excl")), ("vscatter:shared:group=switch",
                                      Place("vscatter", "shared", "switch")),
    ("free:exclhost", Place("free", "exclhost")),
])
def test_parse_place(text: str, expected: Place) -> None:
    assert parse_place(text) == expected


@pytest.mark.parametrize("text", ["", "packed", "pack:scatter", "excl:shared", "group=",
                                  "pack:"])
def test_bad_place_is_15014(text: str) -> None:
    """PBS rejects place values outside pack|scatter|free|vscatter, excl|shared|exclhost,
    group=res with 15014 (Illegal attribute or resource value Resource_List.place)."""
    with pytest.raises(PbsError) as info:
        derive_resources({"place": text})
    assert info.value.code == PBSE_BADATVAL
    assert info.value.text.endswith("Resource_List.place")


@pytest.mark.parametrize("text,size,shown,kb", [
    ("1gb", Size(1, 30), "1gb", 1048576), ("100mb", Size(100, 20), "100mb", 102400),
    ("2147483648", Size(2147483648, 0), "2147483648b", 2097152), ("2KB", Size(2, 10), "2kb", 2),
    ("1000b", Size(1000, 0), "1000b", 1), ("1kw", Size(8, 10), "8kb", 8),
])
def test_sizes(text: str, size: Size, shown: str, kb: int) -> None:
    """PBS size syntax (decode_size/encode_size): units k m g t p, b or w, bytes by default."""
    assert parse_size(text) == size
    assert format_size(size) == shown
    assert size_kb(size) == kb


def test_bad_size() -> None:
    with pytest.raises(ValueError):
        parse_size("1xb")


def test_nodes_spec_becomes_select() -> None:
    """cvt_nodespec_to_select: -l nodes=2:ppn=4 -> select=2:ncpus=4:mpiprocs=4, place=scatter."""
    derived = derive_resources({"nodes": "2:ppn=4"})
    assert derived["select"] == "2:ncpus=4:mpiprocs=4"
    assert derived["place"] == "scatter"
    assert derived["ncpus"] == "8"
