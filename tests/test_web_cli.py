"""`mneme serve`: refused off loopback without a token before anything is opened, and a real server on a
free loopback port that answers the page, the API and, with --mcp, the MCP server."""

from __future__ import annotations

import os
import re

import httpx
import pytest
from click.testing import CliRunner
from loopback import spawn

from mneme_core import Mneme
from mneme_core.cli import main

TOKEN = "a-token-for-the-cli-tests-0123456789"


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "example.com"])
def test_off_loopback_serve_will_not_start_without_a_token(db_path, host):
    result = CliRunner().invoke(
        main, ["--db", str(db_path), "serve", "--host", host], env={"MNEME_WEB_TOKEN": None}
    )
    assert result.exit_code == 2
    assert "needs a bearer token: give --token or MNEME_WEB_TOKEN" in result.output
    assert not db_path.exists()


@pytest.mark.parametrize("args", [["--token", "short"], ["--port", "70000"]])
def test_bad_serve_options_are_refused_before_the_file_is_opened(db_path, args):
    result = CliRunner().invoke(main, ["--db", str(db_path), "serve", *args])
    assert result.exit_code == 2, result.output
    assert not db_path.exists()


def test_serve_answers_on_loopback_with_the_token_it_was_given(db_path):
    with Mneme(db_path, space="mio") as m:
        m.remember("discord:1", "Has a cat named Mochi", kind="fact")
    env = {**os.environ, "MNEME_WEB_TOKEN": TOKEN, "MNEME_LOAD_PLUGINS": ""}
    child = spawn(
        ["-m", "mneme_core", "--db", str(db_path), "--space", "mio", "serve", "--port", "0", "--mcp"], env
    )
    try:
        line = child.stderr.readline()
        found = re.search(r"the page at (http://127\.0\.0\.1:\d+/)", line)
        assert found, (
            f"the server did not start: {line}{child.stderr.read() if child.poll() is not None else ''}"
        )
        url = found[1]
        with httpx.Client(base_url=url, timeout=10) as http:
            assert http.get("/").status_code == 200
            assert http.get("/api/people").status_code == 401
            people = http.get("/api/people", headers={"authorization": "Bearer " + TOKEN}).json()
            assert [p["subject"] for p in people["people"]] == ["discord:1"]
            about = http.get("/api/about", headers={"authorization": "Bearer " + TOKEN}).json()
            assert about["features"]["mcp"] is True and about["space"] == "mio"
    finally:
        child.terminate()
        child.communicate(timeout=20)
    assert child.returncode in (0, -15)
