"""A full disk: a write fails with `DiskFullError` naming the file and keeps nothing of itself, `close()`
always closes (recall-log entries that cannot be written are counted and logged), and once there is room
again the file opens with every acknowledged note. The disk is a small tmpfs mounted for the test (root
only; skipped, saying why, where it cannot be mounted)."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mneme_core import DiskFullError, Mneme, MnemeError


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"a small tmpfs could not be mounted here (needs root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    """Take every free byte of the disk; returns the filler file (remove it to make room again)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (1 << 16, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    assert os.statvfs(disk).f_bavail == 0
    return filler


def test_a_write_on_a_full_disk_is_a_disk_full_error_naming_the_file(small_disk, clock):
    path = small_disk / "m.db"
    with Mneme(path, space="test", clock=clock) as m:
        kept = [m.remember("u", f"note {i} about the cat") for i in range(20)]
        filler = fill(small_disk)
        with pytest.raises(DiskFullError) as full:
            m.remember("u", "a note that finds no room " * 10)
        assert isinstance(full.value, MnemeError) and full.value.path == str(path)
        assert str(path) in str(full.value) and "full" in str(full.value)
        filler.unlink()
        m.remember("u", "a note once there is room again")
    with Mneme(path, space="test", clock=clock) as again:
        texts = {n.text for n in again.notes("u")}
    assert texts == {n.text for n in kept} | {"a note once there is room again"}


@pytest.mark.parametrize("closing", ["close", "aclose"])
async def test_close_on_a_full_disk_closes_and_counts_what_it_could_not_write(
    small_disk, clock, caplog, closing
):
    path = small_disk / "m.db"
    m = Mneme(path, space="test", clock=clock)
    for i in range(20):
        m.remember("u", f"note {i} about the cat")
    filler = fill(small_disk)
    m.recall("u", "cat")
    m.recall("u", "note")
    assert m.recall_log.waiting == 2
    with caplog.at_level(logging.WARNING, logger="mneme_core.memory.recall_log"):
        if closing == "close":
            m.close()  # used to raise the full disk's error and leave the file open
        else:
            await m.aclose()
    assert m.store.closed and m.recall_log.dropped == 2
    assert any("2 recall-log entries could not be written" in r.getMessage() for r in caplog.records)
    filler.unlink()
    with Mneme(path, space="test", clock=clock) as again:
        assert len(again.notes("u")) == 20
