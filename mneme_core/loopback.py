"""Whether a server's host is reachable from this machine only: the rule behind every server of ours
(the MCP server, the OneBot adapter), which may listen without a token on loopback and needs one anywhere
else."""

from __future__ import annotations

import ipaddress

__all__ = ["is_loopback"]


def is_loopback(host: str) -> bool:
    """Whether a server bound to `host` is reachable from this machine only (else it needs a token)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
