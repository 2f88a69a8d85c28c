"""PBS's ACL matching (OpenPBS src/lib/Libattr/attr_fn_acl.c: acl_check, user_match,
hacl_match, gacl_match and the user_order/host_order sort set_allacl keeps lists in)."""
import grp
import os
import pwd

import pytest

from fake_pbs.model import acl


@pytest.mark.parametrize("value,name,allowed", [
    ("pbsuser", "pbsuser@vm", True),             # no host: any host
    ("pbsuser@vm", "pbsuser@vm", True),
    ("pbsuser@VM", "pbsuser@vm", True),          # hosts compare case-insensitively
    ("pbsuser@other", "pbsuser@vm", False),
    ("pbsuser@*", "pbsuser@vm", True),
    ("pbsuser@*.example.com", "pbsuser@a.example.com", True),
    ("pbsuser@*.example.com", "pbsuser@example.org", False),
    ("pbsuser@*.example.com", "pbsuser@.example.com", False),  # '*' is one character or more
    ("pbsuse", "pbsuser@vm", False),             # whole names only
    ("pbsuser2", "pbsuser@vm", False),
    ("", "pbsuser@vm", False),                   # an empty list admits no user
    ("-pbsuser,+", "pbsuser@vm", False),         # '-' denies; bare '+' admits the rest
    ("-pbsuser,+", "other@vm", True),
    ("+,-pbsuser@*", "pbsuser@vm", False),
    ("-", "pbsuser@vm", False),
])
def test_user_lists(value: str, name: str, allowed: bool) -> None:
    assert acl.check(value, name, acl.USER, "vm") is allowed


@pytest.mark.parametrize("value,name,allowed", [
    ("", "vm", True),                            # no list: the server's host only
    ("", "other", False),
    ("other", "vm", False),
    ("*", "vm", True),
    ("*.example.com", "n1.example.com", True),
    ("-vm,*", "vm", False),                      # sorted: the plain entry before the wildcard
    ("*,-vm", "vm", False),
    ("N1.Example.COM", "n1.example.com", True),
])
def test_host_lists(value: str, name: str, allowed: bool) -> None:
    assert acl.check(value, name, acl.HOST, "vm") is allowed


def test_entries_are_matched_in_pbs_sorted_order() -> None:
    """host_order sorts wildcards after plain names: ``*`` first as typed still decides last."""
    assert acl.ordered(["*", "-a.x", "b.x"], acl.HOST) == ["b.x", "-a.x", "*"]
    assert acl.ordered(["bob@*", "-bob@vm", "al"], acl.USER)[0] == "al"


def test_groups_are_the_users_groups() -> None:
    me = pwd.getpwuid(os.getuid())
    login = grp.getgrgid(me.pw_gid).gr_name
    assert acl.check(login, me.pw_name, acl.GROUP, "vm")
    assert not acl.check("no-such-group-xyz", me.pw_name, acl.GROUP, "vm")
    assert not acl.check(login, "no-such-user-xyz", acl.GROUP, "vm")
