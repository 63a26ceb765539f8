"""`mneme mcp install claude-desktop|claude-code|cursor`: the client's entry written into its own file (the
rest of the file kept), shown with `--print`, refused where it cannot be written; and the entry it writes
starts a server the MCP SDK's client talks to.

HOME (and XDG_CONFIG_HOME, APPDATA) point into the test's folder; the project is the test's folder too.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters, stdio_client

from mneme_core import Mneme
from mneme_core.cli import main
from mneme_core.cli.mcp_clients import config_path

ROOT = Path(__file__).resolve().parents[1]
S = "discord:42"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    found = tmp_path / "home"
    found.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("HOME", str(found))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(project)
    return found


def served(db: Path, *before_mcp: str) -> list[str]:
    """What an entry runs after this Python, up to `mcp`: the database and space, and `before_mcp`."""
    return ["-m", "mneme_core", "--db", str(db.resolve()), "--space", "test", *before_mcp, "mcp"]


def install(db: Path, *args: str):
    return CliRunner().invoke(main, ["--db", str(db), "--space", "test", "mcp", "install", *args])


@pytest.mark.parametrize(
    ("client", "scope", "where"),
    [
        ("claude-desktop", "user", "home/.config/Claude/claude_desktop_config.json"),
        ("claude-code", "user", "home/.claude.json"),
        ("claude-code", "project", "project/.mcp.json"),
        ("cursor", "user", "home/.cursor/mcp.json"),
        ("cursor", "project", "project/.cursor/mcp.json"),
    ],
)
def test_the_entry_goes_into_the_clients_own_file(home, db_path, client, scope, where):
    path = home.parent / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": "dark", "mcpServers": {"other": {"command": "other-server"}}}))

    result = install(db_path, client, "--scope", scope, "--subject", S)

    assert result.exit_code == 0, result.output
    assert f"added to {path}" in result.output
    written = json.loads(path.read_text())
    assert written["theme"] == "dark" and written["mcpServers"]["other"] == {"command": "other-server"}
    entry = written["mcpServers"]["mneme"]
    assert entry["command"] == sys.executable
    assert entry["args"] == [*served(db_path), "--subject", S]
    assert entry.get("type") == ("stdio" if client == "claude-code" else None)
    assert not db_path.exists()  # nothing was opened

    again = install(db_path, client, "--scope", scope, "--subject", S)
    assert again.exit_code == 0 and "already in" in again.output
    other = install(db_path, client, "--scope", scope, "--subject", "discord:7", "--source", "mcp")
    assert other.exit_code == 0 and "replaced in" in other.output
    args = json.loads(path.read_text())["mcpServers"]["mneme"]["args"]
    assert args[-4:] == ["--subject", "discord:7", "--source", "mcp"]


def test_print_shows_the_entry_and_writes_nothing(home, db_path, tmp_path):
    config = tmp_path / "bot.toml"
    result = CliRunner().invoke(
        main,
        [
            "--db",
            str(db_path),
            "--space",
            "test",
            "--config",
            str(config),
            "mcp",
            "--subject",
            S,
            "install",
            "cursor",
            "--print",
            "--prefix",
            "memory_",
        ],
    )

    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown == {
        "mcpServers": {
            "mneme": {
                "command": sys.executable,
                "args": [
                    *served(db_path, "--config", str(config.resolve())),
                    "--subject",
                    S,
                    "--prefix",
                    "memory_",
                ],
                "env": {},
            }
        }
    }
    assert not (home / ".cursor").exists()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["claude-desktop", "--scope", "project"], "no project scope"),
        (["cursor", "--subject", "a\nb"], "subject"),
        (["cursor", "--prefix", "bad prefix"], "prefix"),
        (["cursor", "--name", "my server"], "a server name is"),
        (["cursor", "--source", " "], "source"),
        (["vscode"], "Invalid value"),
    ],
)
def test_bad_options_are_refused_before_anything_is_written(home, db_path, args, error):
    result = install(db_path, *args)

    assert result.exit_code == 2 and error in result.output, result.output
    assert list(home.iterdir()) == [] and not db_path.exists()


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"mcpServers": []}'])
def test_a_file_that_is_not_a_settings_object_is_left_alone(home, db_path, content):
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(content)

    result = install(db_path, "cursor")

    assert result.exit_code == 2 and "left as it is" in result.output
    assert path.read_text() == content


def test_where_claude_desktop_keeps_its_file(home, monkeypatch):
    assert config_path("claude-desktop", "user", platform="darwin") == (
        home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    )
    monkeypatch.setenv("APPDATA", str(home / "Roaming"))
    assert config_path("claude-desktop", "user", platform="win32") == (
        home / "Roaming" / "Claude" / "claude_desktop_config.json"
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    assert config_path("claude-desktop", "user", platform="linux") == (
        home / "xdg" / "Claude" / "claude_desktop_config.json"
    )


async def test_the_written_entry_starts_a_server_the_sdk_talks_to(home, db_path, tmp_path):
    with Mneme(db_path, space="test") as m:
        m.remember(S, "Has a cat named Mochi", kind="fact")
    assert install(db_path, "claude-code", "--scope", "project", "--subject", S).exit_code == 0
    entry = json.loads((tmp_path / "project" / ".mcp.json").read_text())["mcpServers"]["mneme"]

    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**entry["env"], "PYTHONPATH": path}, cwd=tmp_path
    )
    with open(tmp_path / "server.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            block = await session.read_resource("mneme://memory")
            tools = await session.list_tools()
    assert "- Has a cat named Mochi" in block.contents[0].text.splitlines()
    assert "update" in [t.name for t in tools.tools]
