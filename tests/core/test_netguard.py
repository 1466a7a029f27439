"""The network guard: nothing but loopback, in this process and (in the test namespace) in child processes.

Only TEST-NET-1 addresses (192.0.2.x, never routed) and ``example.org`` are used, and only while the
guard is installed, so that a refusal happens before anything could be sent.
"""
import _socket
import os
import socket
import subprocess
import sys

import pytest

from proofbook.core import netguard

pytestmark = pytest.mark.unit

OFF_MACHINE = ("192.0.2.1", 80)  # TEST-NET-1


@pytest.fixture(autouse=True)
def guard_is_on():
    """Every test here runs with the guard installed (tests/conftest.py installs it)."""
    assert netguard.installed(), "the guard must be installed before any test sends anything"
    yield
    assert netguard.installed()


@pytest.fixture
def tcp_server():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    with server:
        yield server.getsockname()


def test_blocked_is_a_runtime_error_and_an_os_error():
    assert issubclass(netguard.NetworkBlocked, RuntimeError) and issubclass(netguard.NetworkBlocked, OSError)


def test_network_is_blocked_but_loopback_is_not(tcp_server):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(netguard.NetworkBlocked):
        sock.connect(OFF_MACHINE)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(netguard.NetworkBlocked):
        sock.connect_ex(OFF_MACHINE)
    with pytest.raises(netguard.NetworkBlocked, match="192.0.2.1"):
        socket.create_connection(OFF_MACHINE, timeout=2)
    with socket.create_connection(tcp_server, timeout=5):
        pass
    with socket.create_connection(("localhost", tcp_server[1]), timeout=5):
        pass


def test_connecting_to_a_name_is_blocked():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(netguard.NetworkBlocked):
        sock.connect(("example.org", 80))
    with pytest.raises(netguard.NetworkBlocked, match="example.org"):
        socket.create_connection(("example.org", 80), timeout=2)


def test_dns_lookups_are_blocked():
    for lookup in (socket.gethostbyname, socket.gethostbyname_ex, socket.gethostbyaddr):
        with pytest.raises(netguard.NetworkBlocked, match="example.org"):
            lookup("example.org")
    with pytest.raises(netguard.NetworkBlocked):
        socket.getaddrinfo("example.org", 443)
    with pytest.raises(netguard.NetworkBlocked):
        socket.getaddrinfo(host="example.org", port=443, type=socket.SOCK_STREAM)
    with pytest.raises(netguard.NetworkBlocked):
        socket.getaddrinfo("192.0.2.1", 80)  # numeric, but not loopback
    with pytest.raises(netguard.NetworkBlocked):
        socket.gethostbyaddr("192.0.2.1")  # a reverse look-up
    with pytest.raises(netguard.NetworkBlocked):
        socket.getnameinfo(OFF_MACHINE, 0)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock, pytest.raises(netguard.NetworkBlocked):
        sock.bind(("example.org", 0))


def test_loopback_names_still_resolve():
    addresses = {info[4][0] for info in socket.getaddrinfo("localhost", 80, type=socket.SOCK_STREAM)}
    assert addresses and all(netguard._is_loopback_host(a) for a in addresses), addresses
    assert socket.getaddrinfo("127.0.0.1", 80, socket.AF_INET)[0][4] == ("127.0.0.1", 80)
    assert socket.getaddrinfo(None, 80, socket.AF_INET, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)[0][4][0] \
        == "0.0.0.0"
    assert socket.gethostbyname("localhost").startswith("127.")
    assert socket.getnameinfo(OFF_MACHINE, socket.NI_NUMERICHOST | socket.NI_NUMERICSERV) == ("192.0.2.1", "80")
    assert socket.getfqdn("0.0.0.0")  # falls back to the bare host name instead of failing


def test_udp_to_another_host_is_refused_but_loopback_works():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(5)
        with pytest.raises(netguard.NetworkBlocked, match="sendto"):
            sender.sendto(b"x", ("192.0.2.1", 9))
        with pytest.raises(netguard.NetworkBlocked, match="sendto"):
            sender.sendto(b"x", 0, ("192.0.2.1", 9))
        with pytest.raises(netguard.NetworkBlocked, match="sendmsg"):
            sender.sendmsg([b"x"], [], 0, ("192.0.2.1", 9))
        with pytest.raises(netguard.NetworkBlocked, match="sendto"):
            sender.sendto(b"x", ("example.org", 9))
        with pytest.raises(netguard.NetworkBlocked):
            sender.connect(("192.0.2.1", 9))
        sender.sendto(b"one", receiver.getsockname())
        sender.sendmsg([b"two"], [], 0, receiver.getsockname())
        assert receiver.recvfrom(16)[0] == b"one" and receiver.recvfrom(16)[0] == b"two"


def test_install_is_idempotent_and_uninstall_restores_everything():
    resolvers = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo")
    methods = ("connect", "connect_ex", "sendto", "sendmsg", "bind")
    patched = {name: getattr(socket, name) for name in resolvers}
    netguard.install()
    assert {name: getattr(socket, name) for name in resolvers} == patched
    try:
        netguard.uninstall()
        assert not netguard.installed()
        for name in resolvers:
            assert getattr(socket, name) is patched[name].__wrapped__, name
        for name in methods:
            assert getattr(socket.socket, name) is getattr(_socket.socket, name), name
            assert name not in socket.socket.__dict__, name
        netguard.uninstall()  # twice is harmless
    finally:
        netguard.install()
    assert netguard.installed() and socket.getaddrinfo is not _socket.getaddrinfo
    assert os.environ["PROOFBOOK_NO_NETWORK"] == "1"


# A child process tries 192.0.2.1:80 -- but only where it is certain that nothing can leave: it checks
# first that it has the guard (GUARDED) or that its network namespace has nothing but loopback (ISOLATED).
CHILD = """
import errno, socket, sys
{check}
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.settimeout(2)
try:
    sock.connect(("192.0.2.1", 80))
except Exception as err:
    print("failed", type(err).__name__, errno.errorcode.get(getattr(err, "errno", None) or 0, "-"), err)
    sys.exit(0)
print("connected")
sys.exit(1)
"""
GUARDED = """
from proofbook.core import netguard
if not netguard.installed():
    print("the child has no guard"); sys.exit(3)
"""
ISOLATED = """
if [name for _, name in socket.if_nameindex()] != ["lo"]:
    print("the child is not in an isolated network namespace"); sys.exit(3)
"""


def run_child(check: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD.format(check=check)], capture_output=True, text=True,
                          env=env, timeout=60)


def test_python_child_that_imports_proofbook_is_guarded():
    assert os.environ["PROOFBOOK_NO_NETWORK"] == "1"  # inherited by the child
    child = run_child(GUARDED, dict(os.environ))
    assert child.returncode == 0 and "failed NetworkBlocked" in child.stdout, child.stdout + child.stderr


def test_any_child_process_cannot_reach_the_network():
    if not netguard.isolated():
        pytest.skip("not in an isolated network namespace, so a child process that does not import proofbook "
                    "is not isolated (`make test` runs the suite under `unshare --net`)")
    env = {k: v for k, v in os.environ.items() if k != "PROOFBOOK_NO_NETWORK"}  # no in-process guard at all
    child = run_child(ISOLATED, env)
    assert child.returncode == 0, child.stdout + child.stderr
    # no route off the machine: the connection fails before a packet is sent
    assert child.stdout.split()[:3] in (["failed", "OSError", "ENETUNREACH"], ["failed", "OSError", "EHOSTUNREACH"]), \
        child.stdout
