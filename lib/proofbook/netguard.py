"""Refuse every network connection that is not to this machine (used by the tests).

When ``PROOFBOOK_NO_NETWORK=1`` is set, importing :mod:`proofbook` installs the guard, so the tests
and every notebook kernel they start fail loudly if any code tries to reach a host other than the
loopback addresses (127.0.0.0/8, ::1) or a Unix socket.
"""
from __future__ import annotations

import ipaddress
import socket

_original_connect = socket.socket.connect
_original_connect_ex = socket.socket.connect_ex


class NetworkBlocked(RuntimeError):
    """Raised instead of opening a connection to a non-loopback address."""


def _is_local(address) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name that would need DNS


def _guarded(original):
    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address):
            raise NetworkBlocked(f"network access to {address!r} is blocked (PROOFBOOK_NO_NETWORK=1)")
        return original(self, address)
    return connect


def install() -> None:
    """Patch :class:`socket.socket` so that only loopback connections go through."""
    socket.socket.connect = _guarded(_original_connect)
    socket.socket.connect_ex = _guarded(_original_connect_ex)


def uninstall() -> None:
    socket.socket.connect = _original_connect
    socket.socket.connect_ex = _original_connect_ex
