"""Whether a server's host is reachable from this machine only: the rule behind every server of ours
(the MCP server, the web page, the OneBot adapter), which may listen without a token on loopback and needs
one anywhere else; and the socket such a server listens on, with the address it announces."""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["is_loopback", "listen", "url_of"]


def is_loopback(host: str) -> bool:
    """Whether a server bound to `host` is reachable from this machine only (else it needs a token)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host` (IPv4 or IPv6); `port` 0 picks a free one."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)


def url_of(sock: socket.socket, path: str = "/") -> str:
    """The address a server on `sock` answers at, `path` included."""
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"
