"""PBS's access control lists (attr_fn_acl.c ``acl_check``), as pure functions.

A list is a comma list of entries; an entry may start with ``+`` (allow) or ``-`` (deny), and a
bare ``+`` or ``-`` sets what a name that matches no entry gets (deny unless a ``+`` says so).
The first matching entry decides.  PBS keeps every list sorted by its order function
(``user_order``, ``host_order``, ``group_order``: set_allacl inserts each new entry in order), so
which entry matches first depends on that order, not on the order the manager typed: the check
here sorts the same way before it walks the list.

Matching: hosts compare from the end, case-insensitively, and an entry that begins with ``*``
matches any host ending in the rest after at least one character (``*.example.com``; ``*``
alone, every host).  Users are ``user`` (any host) or ``user@host`` with the host matched as
above.  Groups match when the named group is among the user's groups (``getgrouplist``: login
group and memberships).  An unset or empty list allows no user or group; an empty host list
allows only the server's host.
"""
import grp
import os
import pwd
from typing import Callable, List, Sequence

HOST = "host"
USER = "user"
GROUP = "group"


def entries(value: str) -> List[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def host_matches(name: str, pattern: str) -> bool:
    """hacl_match: compare backwards; a leading ``*`` in the pattern stands for at least one
    character (``*.example.com`` matches ``a.example.com``, not ``.example.com``)."""
    name, pattern = name.lower(), pattern.lower()
    if pattern.startswith("*"):
        return len(name) >= len(pattern) and name.endswith(pattern[1:])
    return name == pattern


def user_matches(name: str, pattern: str) -> bool:
    """user_match: ``user`` matches ``user`` on any host, ``user@host`` only on that host."""
    user, _, host = name.partition("@")
    want_user, at, want_host = pattern.partition("@")
    if user != want_user:
        return False
    if not at:
        return True
    return bool(host) and host_matches(host, want_host)


def group_matches(user: str, group: str) -> bool:
    """gacl_match: ``group`` is among ``user``'s groups (an unknown user is in none)."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return False
    for gid in os.getgrouplist(user, entry.pw_gid):
        try:
            if grp.getgrgid(gid).gr_name == group:
                return True
        except KeyError:
            continue
    return False


def _bare(entry: str) -> str:
    return entry[1:] if entry[:1] in ("+", "-") else entry


def _host_order(a: str, b: str) -> int:
    """host_order: from the end of the names; a wildcard entry sorts after a plain one."""
    a, b = _bare(a), _bare(b)
    i, j = len(a) - 1, len(b) - 1
    while True:
        diff = (ord(b[j]) if j >= 0 else 0) - (ord(a[i]) if i >= 0 else 0)
        if i > 0 and j > 0:
            if diff:
                return diff
            i, j = i - 1, j - 1
        elif i <= 0 and j <= 0:
            if a[:1] == "*":
                return 1
            if b[:1] == "*":
                return -1
            return diff
        elif i <= 0:
            return 1
        else:
            return -1


def _user_order(a: str, b: str) -> int:
    """user_order: user names first (to the ``@``), then the hosts by host order."""
    a, b = _bare(a), _bare(b)
    index = 0
    while True:
        ca = a[index] if index < len(a) else ""
        cb = b[index] if index < len(b) else ""
        diff = (ord(ca) if ca else 0) - (ord(cb) if cb else 0)
        if diff:
            return diff
        if ca in ("@", ""):
            return _host_order(a[index + 1:] or "\0", b[index + 1:] or "\0")
        index += 1


def _group_order(a: str, b: str) -> int:
    a, b = _bare(a), _bare(b)
    return (a > b) - (a < b)


_ORDER = {HOST: _host_order, USER: _user_order, GROUP: _group_order}


def ordered(items: Sequence[str], kind: str) -> List[str]:
    """The list as PBS stores it: each entry inserted before the first that orders after it."""
    order = _ORDER[kind]
    out: List[str] = []
    for item in items:
        at = next((k for k, old in enumerate(out) if order(old, item) > 0), len(out))
        out.insert(at, item)
    return out


def check(value: str, name: str, kind: str, server_host: str) -> bool:
    """Whether ``name`` (a host, ``user@host`` or a user name for a group list) is allowed."""
    listed = entries(value or "")
    if not listed:
        return kind == HOST and host_matches(name, server_host)
    match: Callable[[str, str], bool] = {
        HOST: host_matches, USER: user_matches, GROUP: group_matches}[kind]
    default = False
    for entry in ordered(listed, kind):
        sign = entry[:1] if entry[:1] in ("+", "-") else ""
        bare = entry[1:] if sign else entry
        if sign and not bare:
            default = sign == "+"
            continue
        if match(name, bare):
            return sign != "-"
    return default
