"""Where MCP clients keep their servers, and the entry that starts `mneme mcp` for one companion.

Each client reads a JSON file with an object `mcpServers` of named entries `{"command", "args", "env"}`
and starts each server itself over stdio (as their documentation describes; Claude Code's entries also say
`"type": "stdio"`):

    client          scope     file
    claude-desktop  user      macOS ~/Library/Application Support/Claude/claude_desktop_config.json,
                              Windows %APPDATA%\\Claude\\claude_desktop_config.json, elsewhere
                              $XDG_CONFIG_HOME (~/.config)/Claude/claude_desktop_config.json
    claude-code     user      ~/.claude.json (its `mcpServers`, for every project)
                    project   .mcp.json in the current folder (shared with whoever checks it out)
    cursor          user      ~/.cursor/mcp.json
                    project   .cursor/mcp.json in the current folder

The entry runs this Python (`sys.executable -m mneme_core`, so the client starts the Mneme that wrote it,
whatever its PATH) with the database, space and config as absolute paths, and `mcp` with the subject,
prefix and source asked for. Writing keeps everything else in the file: it is read whole, the one entry is
set, and the file is replaced in one step (a temporary file beside it, then a rename), so a client never
reads half a file. A file that is not a JSON object is left alone and refused.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import InvalidValue

CLIENTS = ("claude-desktop", "claude-code", "cursor")
SCOPES = ("user", "project")
SERVERS = "mcpServers"


def config_path(client: str, scope: str, *, platform: str = sys.platform, cwd: Path | None = None) -> Path:
    """The file `client` reads its MCP servers from, for `scope`."""
    home, here = Path.home(), cwd or Path.cwd()
    if client == "claude-desktop":
        if scope != "user":
            raise InvalidValue("claude-desktop has no project scope: its one file is the user's")
        if platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        if platform == "win32":
            base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
            return base / "Claude" / "claude_desktop_config.json"
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        return base / "Claude" / "claude_desktop_config.json"
    if client == "claude-code":
        return home / ".claude.json" if scope == "user" else here / ".mcp.json"
    if client == "cursor":
        return (home if scope == "user" else here) / ".cursor" / "mcp.json"
    raise InvalidValue(f"the client is one of {', '.join(CLIENTS)}, not {client!r}")


def entry(
    client: str,
    *,
    db: str,
    space: str,
    config: str | None = None,
    subject: str | None = None,
    prefix: str = "",
    source: str = "auto",
) -> dict[str, Any]:
    """The server entry that starts `mneme mcp` for this database, space and subject."""
    args = ["-m", "mneme_core", "--db", str(Path(db).expanduser().resolve()), "--space", space]
    if config is not None:
        args += ["--config", str(Path(config).expanduser().resolve())]
    args.append("mcp")
    if subject is not None:
        args += ["--subject", subject]
    if prefix:
        args += ["--prefix", prefix]
    if source != "auto":
        args += ["--source", source]
    found: dict[str, Any] = {"command": sys.executable, "args": args, "env": {}}
    return {"type": "stdio", **found} if client == "claude-code" else found


def merged(current: object, name: str, server: Mapping[str, Any], path: Path) -> tuple[dict[str, Any], str]:
    """The client's settings with `server` as `mcpServers[name]`, everything else kept; and what changed:
    "added", "replaced" or "unchanged"."""
    if not isinstance(current, dict):
        raise InvalidValue(f"{path} is not a JSON object; it was left as it is")
    servers = current.get(SERVERS, {})
    if not isinstance(servers, dict):
        raise InvalidValue(f"{SERVERS} in {path} is not a JSON object; the file was left as it is")
    before = servers.get(name)
    outcome = "added" if before is None else "unchanged" if before == server else "replaced"
    return {**current, SERVERS: {**servers, name: dict(server)}}, outcome


def read(path: Path) -> object:
    """The client's settings as they are, {} when there is no file yet."""
    if not path.exists():
        return {}
    raw = path.read_text(encoding="utf-8")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError as err:
        raise InvalidValue(f"{path} is not valid JSON ({err}); it was left as it is") from None


def write(path: Path, settings: Mapping[str, Any]) -> None:
    """Replace `path` with `settings` in one step, keeping its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(settings, out, ensure_ascii=False, indent=2)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def install(path: Path, name: str, server: Mapping[str, Any]) -> str:
    """Set `mcpServers[name]` in the client's file; returns "added", "replaced" or "unchanged"."""
    settings, outcome = merged(read(path), name, server, path)
    if outcome != "unchanged":
        write(path, settings)
    return outcome
