"""Property-based tests of the qsub, resource and qmgr parsers (issue 6, "Bad input"): for any
text they return a result or raise their one documented error, never anything else.  Bounded
(``max_examples``, no deadline) so that CI stays fast; no daemon is started."""
from hypothesis import given, settings, strategies as text_st

from fake_pbs.cli.qsub_options import parse_equal_list, parse_resource_list
from fake_pbs.cli.qsub_script import UnmatchedQuote, directives, split_words
from fake_pbs.model.errors import PbsError
from fake_pbs.model.qmgr_grammar import QmgrSyntaxError, parse
from fake_pbs.model.select import parse_place, parse_select, parse_size

# Text biased towards the characters these grammars care about, plus anything at all.
SPECIAL = "=,:+()\"'\\ \t\n#@.-_*[]{}$;%!"
ODD = text_st.text(alphabet=text_st.sampled_from(SPECIAL + "abcnpuswelmq0123456789"),
                   max_size=60) | text_st.text(max_size=60)
RUNS = settings(max_examples=300, deadline=None)


@RUNS
@given(ODD)
def test_qmgr_parse_returns_or_raises_its_syntax_error(line: str) -> None:
    for known in (lambda objtype, word: True, lambda objtype, word: False):
        try:
            parse(line, known)
        except QmgrSyntaxError as err:
            assert err.text and isinstance(err.exit_code, int)


@RUNS
@given(ODD)
def test_select_place_and_size_return_or_raise_their_error(text: str) -> None:
    for parser in (parse_select, parse_place):
        try:
            parser(text)
        except PbsError as err:
            assert err.code > 15000
    try:
        parse_size(text)
    except ValueError:  # its callers turn this into the attribute's PBSE error
        pass


@RUNS
@given(ODD)
def test_qsub_list_parsers_never_raise(text: str) -> None:
    for parser in (parse_resource_list, parse_equal_list):
        result = parser(text)
        assert result is None or isinstance(result, list)


@RUNS
@given(ODD, text_st.sampled_from(["#PBS", "#XX", "#"]))
def test_script_directives_and_words(script: str, prefix: str) -> None:
    try:
        found = list(directives(script, prefix))
    except UnmatchedQuote:
        return
    for line in found:
        try:
            split_words(line)
        except UnmatchedQuote:
            pass
