"""Whether a node name resolves, as ``qmgr -c "create node NAME"`` asks (req_manager.c
``make_host_addresses_list``: getaddrinfo; a name that does not resolve is PBSE_UNKNODE).

The cluster's own fake hosts resolve (their moms run here under those names), and so does
whatever this machine's resolver knows; a name under ``.invalid`` never does, and is not looked
up (RFC 6761 reserves it for names that must not resolve).
"""
import socket
from typing import Iterable


def resolves(name: str, fake_hosts: Iterable[str]) -> bool:
    if name in set(fake_hosts):
        return True
    if name.lower().rstrip(".").endswith(".invalid") or name.lower() == "invalid":
        return False
    try:
        return bool(socket.getaddrinfo(name, None, socket.AF_UNSPEC, socket.SOCK_STREAM))
    except (OSError, UnicodeError):
        return False
