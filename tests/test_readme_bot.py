"""README's "A bot in two minutes" holds: its `bot.toml` is a config the installed openai plugin and the
console accept, and `mneme run console --config bot.toml` starts a bot from it that answers through the
endpoint it names (a real HTTP server on loopback in DeepSeek's place) as the persona it gives, with the key
read from the environment."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import loopback
import pytest
from click.testing import CliRunner
from test_console_honesty import lines, logging_kept  # noqa: F401  (autouse: `mneme run` logs as a bot)

from mneme_core.cli import main

README = Path(__file__).parent.parent / "README.md"
KEY = "sk-readme-0123456789"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## A bot in two minutes", 1)[1].split("\n## ", 1)[0]


def bot_toml() -> str:
    (found,) = re.findall(r"```toml\n(.*?)```", section(), re.S)
    return found


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    asked: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            asked.append({"auth": self.headers.get("Authorization"), "messages": body["messages"]})
            said = {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi Leo, I'm Mio!"}}]
            }
            loopback.send_json(self, 200, said)

        def log_message(self, *args: object) -> None:
            pass

    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    with loopback.serving(Handler) as url:
        yield url, asked


def test_the_readme_gives_a_whole_bot_toml_and_the_command():
    config = tomllib.loads(bot_toml())
    assert set(config) == {"companion", "plugins", "adapters"}
    assert config["companion"]["persona"]
    assert set(config["plugins"]["openai"]) == {"base_url", "model", "api_key"}
    assert config["plugins"]["openai"]["api_key"] == {"$env": "DEEPSEEK_API_KEY"}
    assert list(config["adapters"]) == ["console"]
    assert "\nmneme run console --config bot.toml\n" in section()


def test_the_readme_bot_answers_as_its_persona_through_its_endpoint(tmp_path, endpoint):
    url, asked = endpoint
    bot = tmp_path / "bot.toml"
    bot.write_text(bot_toml().replace("https://api.deepseek.com/v1", url), encoding="utf-8")
    env = {"MNEME_LOAD_PLUGINS": "openai", "DEEPSEEK_API_KEY": KEY, "OPENAI_API_KEY": None}

    done = CliRunner().invoke(
        main,
        ["--db", str(tmp_path / "mneme.db"), "run", "console", "--config", str(bot)],
        input="Hi, I'm Leo.\n/quit\n",
        env=env,
    )

    assert done.exit_code == 0, (done.output, done.exception)
    assert "> Hi Leo, I'm Mio!" in done.stdout and "Offline" not in done.stdout
    reply = next(a for a in asked if a["messages"][-1]["content"] == "Hi, I'm Leo.")
    assert reply["auth"] == f"Bearer {KEY}"
    assert reply["messages"][0]["content"].startswith("You are Mio, a warm and curious companion.")
    kept = lines(tmp_path / "mneme.db", "console:leo", space="default")
    assert [text for _, text in kept] == ["Hi, I'm Leo.", "Hi Leo, I'm Mio!"]
