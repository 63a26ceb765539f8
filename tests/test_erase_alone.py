"""An erase copies out only what it wrote: its transaction carries none of the writes that ride along with
the others (the recall log's waiting entries), which wait for the next write instead, and nothing of them is
lost; and the `-wal` it leaves behind is cut to nothing, as before."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing

from mneme_core import Mneme


def logged(db) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("select count(*) from recalls").fetchone()[0]


def test_an_erase_leaves_the_recall_log_of_others_waiting(tmp_path) -> None:
    db = tmp_path / "m.db"
    with Mneme(db) as m:
        for who in ("discord:1", "discord:2"):
            m.remember(who, f"{who} keeps bees on the roof")
        m.recall("discord:2", "bees")
        m.recall("discord:2", "roof")
        waiting = m.recall_log.waiting
        assert waiting >= 1
        assert m.erase("discord:1") == 1
        assert m.recall_log.waiting == waiting  # still waiting: not written by the erase
        assert logged(db) == 0
        assert os.path.getsize(str(db) + "-wal") == 0
        m.remember("discord:2", "the bees swarmed in May")  # the next write takes them along
        assert m.recall_log.waiting == 0
        assert logged(db) == waiting
