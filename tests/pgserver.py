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

`start(BUNDLED)` starts a second kind: the PostgreSQL 16 with pgvector that PyPI's `pgserver` wheel
carries (the `test` extra installs it on Linux x86_64), for the tests of the pgvector path. Its programs are
copied into the server's folder first: the `postgres` user may not read a virtual environment under /root
or a CI clone, and the copy keeps the wheel's layout (`pgserver/pginstall/bin` finds its libraries at
`../../../pgserver.libs`).
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


BUNDLED = "bundled"  # start(BUNDLED): the pgserver wheel's PostgreSQL, with pgvector


def bundled() -> str | None:
    """The pgserver wheel's folder (site-packages), if it is installed and carries pgvector; found by its
    metadata, never imported (this file is `pgserver` too, for the tests)."""
    from importlib import metadata

    try:
        dist = metadata.distribution("pgserver")
    except metadata.PackageNotFoundError:
        return None
    root = str(dist.locate_file(""))
    install = os.path.join(root, "pgserver", "pginstall")
    vector = os.path.join(install, "lib", "postgresql", "vector.so")
    return root if os.path.exists(os.path.join(install, "bin", "initdb")) and os.path.exists(vector) else None


def _copied(root: str, folder: str) -> str:
    """The wheel's server programs and libraries copied into `folder`; their bin folder."""
    into = os.path.join(folder, "install")
    shutil.copytree(os.path.join(root, "pgserver", "pginstall"), os.path.join(into, "pgserver", "pginstall"))
    libs = os.path.join(root, "pgserver.libs")
    if os.path.isdir(libs):
        shutil.copytree(libs, os.path.join(into, "pgserver.libs"))
    return os.path.join(into, "pgserver", "pginstall", "bin")


def _as_server_user(args: list[str]) -> list[str]:
    return ["runuser", "-u", USER, "--", *args] if os.geteuid() == 0 else args


def start(kind: str | None = None) -> tuple[str, str]:
    """Start a server (the installed one, or with `BUNDLED` the pgserver wheel's); returns (its URL, its
    folder)."""
    folder = tempfile.mkdtemp(prefix="mneme-pg-")
    if kind == BUNDLED:
        root = bundled()
        if root is None:
            os.rmdir(folder)
            raise RuntimeError("the pgserver wheel (PostgreSQL with pgvector) is not installed")
        bin_: str | None = _copied(root, folder)
    else:
        bin_ = bindir()
    if bin_ is None:
        os.rmdir(folder)
        raise RuntimeError("no PostgreSQL server programs here (initdb); set MNEME_PG_BIN to their folder")
    with open(os.path.join(folder, "bin"), "w") as f:
        f.write(bin_)
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
    try:
        with open(os.path.join(folder, "bin")) as f:
            bin_: str | None = f.read()
    except OSError:
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
        url, folder = start(BUNDLED if sys.argv[2:3] == [BUNDLED] else None)
        print(url, folder)
    elif len(sys.argv) == 3 and sys.argv[1] == "stop":
        stop(sys.argv[2])
    else:
        sys.exit("usage: pgserver.py start [bundled] | stop FOLDER")
