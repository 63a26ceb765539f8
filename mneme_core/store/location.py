"""Where a companion's memory is: a SQLite file's path, or a PostgreSQL server's URL.

A location with a scheme (`name://...`) is never taken for a path: `postgresql://` and `postgres://` are
PostgreSQL, any other scheme is refused naming the ones allowed (it used to become a folder named
`postgresql:` with a SQLite file in it). Everything else is a path, as before.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

from ..errors import InvalidValue, describe

POSTGRES_SCHEMES = ("postgresql", "postgres")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def is_url(location: str | os.PathLike[str]) -> bool:
    """Whether `location` is a PostgreSQL URL; raises `InvalidValue` for a URL of another scheme."""
    if not isinstance(location, str):
        return False
    found = _SCHEME.match(location)
    if found is None:
        return False
    if found.group(1).lower() not in POSTGRES_SCHEMES:
        raise InvalidValue(
            f"the database is a file path or a postgresql:// URL, not {describe(redacted(location))} "
            f"(scheme {found.group(1)!r} is not known)"
        )
    return True


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def server_of(url: str) -> str:
    """`host:port/database` of a URL (a socket folder given as `?host=/path` counts as the host)."""
    parts = urlsplit(url)
    query = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)
    host = parts.hostname or query.get("host") or "localhost"
    port = parts.port or query.get("port") or 5432
    return f"{host}:{port}{parts.path or '/'}"
