"""A throwaway PostgreSQL server for the tests: `initdb` into a temporary folder, `pg_ctl start` listening
on a unix socket in that folder only, stopped and removed afterwards. `.ci/run` starts one with
`python3 tests/pgserver.py start` (and stops it with `stop FOLDER`); `conftest.py` starts one itself when
`MNEME_TEST_POSTGRES` is not set and the server's programs are installed (Debian's `postgresql-15`:
/usr/lib/postgresql/15/bin).

PostgreSQL refuses to run as root, so as root the folder is made for the `postgres` user and every program
runs as that user (`runuser`). The socket is the server's only door (no TCP port another program on the
machine could take over) and it asks for the password (scram), so a test can try wrong credentials.
Durability is off (`fsync=off`): a test server that crashes is thrown away anyway. Standard library only:
`.ci/run` calls it before any virtual environment exists.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

PASSWORD = "mneme-test"
USER = "postgres"


def bindir() -> str | None:
    """The folder of initdb and pg_ctl, if a server is installed here."""
    given = os.environ.get("MNEME_PG_BIN")
    if given:
        return given
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[-3]))
    if found:
        return os.path.dirname(found[-1])
    on_path = shutil.which("initdb")
    return os.path.dirname(on_path) if on_path else None


def _as_server_user(args: list[str]) -> list[str]:
    return ["runuser", "-u", USER, "--", *args] if os.geteuid() == 0 else args


def start() -> tuple[str, str]:
    """Start a server; returns (its URL, its folder)."""
    bin_ = bindir()
    if bin_ is None:
        raise RuntimeError("no PostgreSQL server programs here (initdb); set MNEME_PG_BIN to their folder")
    folder = tempfile.mkdtemp(prefix="mneme-pg-")
    if os.geteuid() == 0:
        shutil.chown(folder, USER, USER)
    os.chmod(folder, 0o700)
    pwfile = os.path.join(folder, "pw")
    with open(pwfile, "w") as f:
        f.write(PASSWORD)
    if os.geteuid() == 0:
        shutil.chown(pwfile, USER, USER)
    data, log = os.path.join(folder, "data"), os.path.join(folder, "log")
    run = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    subprocess.run(
        _as_server_user(
            [
                *(f"{bin_}/initdb", "-D", data, "-U", USER, f"--pwfile={pwfile}", "--auth=scram-sha-256"),
                *("--no-sync", "-E", "UTF8", "--locale=C.UTF-8"),
            ]
        ),
        **run,
    )
    port = 5432  # names the socket file in `folder`: no TCP port is opened
    options = (
        f"-c listen_addresses='' -p {port} -k {folder} -c fsync=off -c synchronous_commit=off "
        "-c full_page_writes=off -c max_connections=300 -c shared_buffers=64MB"
    )
    subprocess.run(
        _as_server_user([f"{bin_}/pg_ctl", "-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]),
        **run,
    )
    return f"postgresql://{USER}:{PASSWORD}@/postgres?host={folder}&port={port}", folder


def stop(folder: str) -> None:
    """Stop the server in `folder` (at once: nothing in it is kept) and remove the folder."""
    bin_ = bindir()
    data = os.path.join(folder, "data")
    if bin_ and os.path.isdir(data):
        subprocess.run(
            _as_server_user([f"{bin_}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["start"]:
        url, folder = start()
        print(url, folder)
    elif len(sys.argv) == 3 and sys.argv[1] == "stop":
        stop(sys.argv[2])
    else:
        sys.exit("usage: pgserver.py start | stop FOLDER")
