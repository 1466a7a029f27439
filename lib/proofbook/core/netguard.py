"""Refuse all network access except to this machine's loopback (used by the tests).

When ``PROOFBOOK_NO_NETWORK=1`` is set, importing :mod:`proofbook` calls :func:`install`.  The test
suite sets it in ``tests/conftest.py`` before anything imports :mod:`proofbook`.  While the guard is
installed, :class:`NetworkBlocked` is raised *before* anything is sent when Python code in this process:

* connects a socket (TCP or UDP, ``connect`` / ``connect_ex``) to an address that is not loopback
  (127.0.0.0/8, ``::1``, ``::ffff:127.x.x.x``, or ``localhost``); Unix sockets are allowed;
* sends a datagram to such an address (``sendto``, or ``sendmsg`` with an address);
* resolves a name: ``getaddrinfo``, ``gethostbyname``, ``gethostbyname_ex``, ``gethostbyaddr`` and
  ``getnameinfo`` accept only ``localhost``, loopback addresses and the wildcard addresses (``None``,
  ``""``, ``0.0.0.0``, ``::``, which servers bind to); every other name or address is refused, numeric ones
  too, so ``socket.create_connection(("192.0.2.1", 80))`` fails at the look-up.  ``getnameinfo`` with
  ``NI_NUMERICHOST`` needs no look-up and is allowed.  ``localhost`` is resolved by the system (from
  ``/etc/hosts``);
* binds a socket to a host *name* other than ``localhost`` (binding to a name would look it up; binding to
  any numeric address sends nothing and is allowed).

:class:`NetworkBlocked` is both a :class:`RuntimeError` (as it always was) and an :class:`OSError`.  The
second is deliberate: libraries turn an ``OSError`` from a socket call into their own connection error
(httpx: ``ConnectError``, openai: ``APIConnectionError``, urllib: ``URLError``), whose cause names the
guard, and standard-library code that copes with a failed look-up keeps working (``socket.getfqdn`` of
this host's name, which ``http.server`` calls when it binds to ``0.0.0.0``, falls back to the bare name).
The price: code that silently falls back on any ``OSError`` falls back instead of failing -- still,
nothing is sent.

:func:`install` is idempotent, :func:`uninstall` restores every patched function, and while the guard is
installed ``PROOFBOOK_NO_NETWORK=1`` is in ``os.environ``, so child processes inherit it: a Python child
(a notebook kernel, a script) that imports :mod:`proofbook` installs the guard too.

What the in-process guard cannot reach: child processes that do not import :mod:`proofbook` (``curl``,
``git``, a plain ``python -c``), C libraries that open their own sockets (ZeroMQ, libcurl), and names
bound before :func:`install` ran (``from socket import getaddrinfo``).  For those the test suite runs in
a fresh network namespace that has only a loopback interface: ``make test`` runs pytest under
``unshare --net`` (with ``lo`` brought up, since the tests talk to fake servers on 127.0.0.1) where that
is permitted, and says so when it is not.  :func:`isolated` tells whether this process is in such a
namespace.  The guard deliberately does *not* rewrite each child process into its own ``unshare --net``:
every child would get a separate loopback, so a Jupyter kernel could no longer reach the test process
over 127.0.0.1 (the notebook tests depend on that), and it would need root and would change the argv,
``shell=True`` and process-id semantics of :mod:`subprocess`.  One namespace around the whole run covers
every child and every library at once.
"""
from __future__ import annotations

import ipaddress
import os
import socket

ENV_VAR = "PROOFBOOK_NO_NETWORK"
_MISSING = object()
_RESOLVERS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo")
_SOCKET_METHODS = ("connect", "connect_ex", "sendto", "sendmsg", "bind")
_originals: dict[str, object] = {}  # what install() replaced, to put back; empty when not installed
_saved_env: object = _MISSING


class NetworkBlocked(RuntimeError, OSError):
    """Raised instead of reaching (or looking up) a host other than loopback; an OSError too, see above."""


def _blocked(what: str) -> NetworkBlocked:
    return NetworkBlocked(f"network access blocked ({ENV_VAR}=1): {what}; only loopback is allowed")


def _host_text(host) -> str | None:
    if isinstance(host, (bytes, bytearray)):
        return bytes(host).decode("ascii", "replace")
    return host if isinstance(host, str) else None


def _ip(host: str):
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_loopback_host(host) -> bool:
    """``localhost`` or a numeric loopback address (IPv4-mapped ones included)."""
    text = _host_text(host)
    if text is None:
        return False
    if text.lower().rstrip(".") == "localhost":
        return True
    address = _ip(text)
    if address is None:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def _is_wildcard_host(host) -> bool:
    """The addresses a server binds to: ``None``, ``""``, ``0.0.0.0``, ``::`` (a look-up sends nothing)."""
    if host is None or host == "" or host == b"":
        return True
    text = _host_text(host)
    address = _ip(text) if text is not None else None
    return address is not None and address.is_unspecified


def _is_local(address) -> bool:
    """Whether connecting or sending to a socket ``address`` stays on this machine."""
    if isinstance(address, (str, bytes, bytearray)):  # AF_UNIX path
        return True
    host = address[0]
    return host == "" or _is_loopback_host(host)


def _needs_lookup(host) -> bool:
    """A host name (not ``localhost``, not numeric) that the C socket layer would resolve."""
    text = _host_text(host)
    if text is None or text in ("", "<broadcast>") or _is_loopback_host(text):
        return False
    return _ip(text) is None


def _check_inet(sock, address, action: str) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and address is not None and not _is_local(address):
        raise _blocked(f"{action} to {address!r}")


def _guard_connect(original):
    def connect(self, address):
        _check_inet(self, address, "connect")
        return original(self, address)
    connect.__wrapped__ = original
    return connect


def _guard_sendto(original):
    def sendto(self, data, *args):  # sendto(data, address) or sendto(data, flags, address)
        _check_inet(self, args[-1] if args else None, "sendto")
        return original(self, data, *args)
    sendto.__wrapped__ = original
    return sendto


def _guard_sendmsg(original):
    def sendmsg(self, buffers, *args):  # sendmsg(buffers[, ancdata[, flags[, address]]])
        _check_inet(self, args[2] if len(args) > 2 else None, "sendmsg")
        return original(self, buffers, *args)
    sendmsg.__wrapped__ = original
    return sendmsg


def _guard_bind(original):
    def bind(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) \
                and _needs_lookup(address[0]):
            raise _blocked(f"bind to {address!r} would look up the name {address[0]!r}")
        return original(self, address)
    bind.__wrapped__ = original
    return bind


def _guard_lookup(name: str, original):
    def lookup(host, *args, **kwargs):
        if not (_is_loopback_host(host) or _is_wildcard_host(host)):
            raise _blocked(f"socket.{name}({host!r})")
        return original(host, *args, **kwargs)
    lookup.__name__ = lookup.__qualname__ = name
    lookup.__wrapped__ = original
    return lookup


def _guard_gethostbyaddr(original):
    def gethostbyaddr(ip_address):  # a reverse look-up, unless the address is loopback
        if not _is_loopback_host(ip_address):
            raise _blocked(f"socket.gethostbyaddr({ip_address!r})")
        return original(ip_address)
    gethostbyaddr.__wrapped__ = original
    return gethostbyaddr


def _guard_getnameinfo(original):
    def getnameinfo(sockaddr, flags):
        host = sockaddr[0] if isinstance(sockaddr, tuple) and sockaddr else None
        if not (flags & socket.NI_NUMERICHOST or _is_loopback_host(host) or _is_wildcard_host(host)):
            raise _blocked(f"socket.getnameinfo({sockaddr!r}) (a reverse look-up)")
        return original(sockaddr, flags)
    getnameinfo.__wrapped__ = original
    return getnameinfo


def install() -> None:
    """Patch :mod:`socket` as described above; calling it again while installed does nothing."""
    global _saved_env
    if _originals:
        return
    socket_wrappers = {"connect": _guard_connect, "connect_ex": _guard_connect, "sendto": _guard_sendto,
                       "sendmsg": _guard_sendmsg, "bind": _guard_bind}
    for name in _SOCKET_METHODS:
        _originals["socket." + name] = socket.socket.__dict__.get(name, _MISSING)
        setattr(socket.socket, name, socket_wrappers[name](getattr(socket.socket, name)))
    for name in _RESOLVERS:
        original = getattr(socket, name)
        _originals[name] = original
        if name == "gethostbyaddr":
            wrapper = _guard_gethostbyaddr(original)
        elif name == "getnameinfo":
            wrapper = _guard_getnameinfo(original)
        else:
            wrapper = _guard_lookup(name, original)
        setattr(socket, name, wrapper)
    _saved_env = os.environ.get(ENV_VAR, _MISSING)
    os.environ[ENV_VAR] = "1"


def uninstall() -> None:
    """Put back everything :func:`install` replaced (and ``PROOFBOOK_NO_NETWORK`` as it was)."""
    global _saved_env
    if not _originals:
        return
    for key, original in _originals.items():
        if key.startswith("socket."):
            name = key[len("socket."):]
            if original is _MISSING:
                delattr(socket.socket, name)
            else:
                setattr(socket.socket, name, original)
        else:
            setattr(socket, key, original)
    _originals.clear()
    if _saved_env is _MISSING:
        os.environ.pop(ENV_VAR, None)
    else:
        os.environ[ENV_VAR] = _saved_env
    _saved_env = _MISSING


def installed() -> bool:
    """Whether the guard is in place in this process."""
    return bool(_originals)


def isolated() -> bool:
    """Whether this process is in a network namespace whose only interface is loopback (``unshare --net``).

    There, nothing -- no child process, no C library -- can send a packet off this machine.
    """
    try:
        names = [name for _, name in socket.if_nameindex()]
    except (AttributeError, OSError):
        return False
    return bool(names) and all(name == "lo" for name in names)
