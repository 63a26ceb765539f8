"""`/metrics` in Prometheus's text format (prometheus-client), from two sources:

- The file, read at each scrape for every open space (one read transaction each, a few indexed counts):
  live notes by kind, people, entries in the recall log, exchanges waiting to be observed and those whose
  last try failed. These say what any process wrote: the bot's, the CLI's, this one's.
- This process, from `Mneme.report()` and the meaning tiers' counts: decisions each tier answered,
  abstained on, failed, found unavailable or skipped; what observe did; which tier placed each recall's
  query; events plugins are told (`track_event`: notes remembered, updated, forgotten, erased, and a bot's
  turns when the app runs in the bot's process); and the latency of every API route, which is the latency
  of the verb behind it as a caller sees it. A separate `mneme serve` process counts its own work only:
  mount the app in the bot's process (`create_app(m)`) to count the bot's.

Each app has its own registry, so two apps in one process (tests) never share a count.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fastapi import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.concurrency import run_in_threadpool

from ..hookspecs import hookimpl

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from ..mneme import Mneme
    from ..plugins import Event
    from .companions import Companions

OUTCOMES = ("answered", "abstained", "failed", "unavailable", "skipped")
PLUGIN = "mneme-web-metrics"
API = "/api/"


def _counts(conn: Any, space: str) -> dict[str, Any]:
    """What the file holds for one space, in one read."""
    kinds = conn.execute(
        "select n.kind, count(*) from notes n join subjects s on s.id = n.subject_id "
        "where s.space = ? and n.deleted_at is null and n.superseded_by is null group by n.kind",
        (space,),
    ).fetchall()
    people = conn.execute("select count(*) from subjects where space = ?", (space,)).fetchone()[0]
    logged = conn.execute(
        "select count(*) from recalls r join subjects s on s.id = r.subject_id where s.space = ?", (space,)
    ).fetchone()[0]
    waiting, failing = conn.execute(
        "select count(*), count(error) from waiting_observes where space = ?", (space,)
    ).fetchone()
    return {"kinds": dict(kinds), "people": people, "logged": logged, "waiting": waiting, "failing": failing}


class Memory(Collector):
    """The gauges read from the file and the counters of each open companion's report, at each scrape."""

    def __init__(self, companions: Companions) -> None:
        self.companions = companions

    def collect(self) -> Iterator[Metric]:
        notes = GaugeMetricFamily("mneme_notes", "Live notes, by kind.", labels=["space", "kind"])
        people = GaugeMetricFamily("mneme_people", "People the companion has anything of.", labels=["space"])
        logged = GaugeMetricFamily("mneme_recall_log_entries", "Recalls kept in the log.", labels=["space"])
        waiting = GaugeMetricFamily(
            "mneme_observes_waiting", "Exchanges waiting to be observed.", labels=["space", "state"]
        )
        decisions = CounterMetricFamily(
            "mneme_decisions",
            "Questions each decision tier took, by outcome.",
            labels=["space", "tier", "outcome"],
        )
        observes = CounterMetricFamily(
            "mneme_observe", "What observe did, by outcome.", labels=["space", "outcome"]
        )
        placed = CounterMetricFamily(
            "mneme_recall_queries", "Recall queries, by the tier that placed them.", labels=["space", "tier"]
        )
        for m in self.companions.open:
            if m.store.closed:
                continue
            found = m.store.read(_counts, m.space)
            for kind, count in sorted(found["kinds"].items()):
                notes.add_metric([m.space, kind], count)
            people.add_metric([m.space], found["people"])
            logged.add_metric([m.space], found["logged"])
            waiting.add_metric([m.space, "failing"], found["failing"])
            waiting.add_metric([m.space, "due"], found["waiting"] - found["failing"])
            report = m.report()
            for tier, stats in report["decisions"].items():
                for outcome in OUTCOMES:
                    decisions.add_metric([m.space, tier, outcome], stats.get(outcome, 0))
            for outcome, count in sorted(report["observe"].items()):
                observes.add_metric([m.space, outcome], count)
            for tier, count in sorted(m.tiers.counts.items()):
                placed.add_metric([m.space, tier], count)
        yield from (notes, people, logged, waiting, decisions, observes, placed)


class Counting:
    """A plugin on the companions' manager: counts each event it is told, by name (`track_event`)."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter

    @hookimpl
    def track_event(self, mneme: Mneme, event: Event) -> None:
        self.counter.labels(mneme.space, event.name).inc()


class Metrics:
    """One app's registry: the file's gauges, the reports' counters, events, and each route's latency."""

    def __init__(self, companions: Companions) -> None:
        self.companions = companions
        self.registry = CollectorRegistry(auto_describe=True)
        self.registry.register(Memory(companions))
        self.requests = Histogram(
            "mneme_request_seconds",
            "How long each API route took to answer, by route and status.",
            ["method", "route", "status"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        events = Counter(
            "mneme_events", "Events plugins were told, by name.", ["space", "event"], registry=self.registry
        )
        self.plugin = Counting(events)

    def start(self) -> None:
        manager = self.companions.default.plugins
        if not manager.is_registered(self.plugin):
            manager.register(self.plugin, name=PLUGIN)

    def stop(self) -> None:
        manager = self.companions.default.plugins
        if manager.is_registered(self.plugin):
            manager.unregister(self.plugin)

    def timed(self, app: ASGIApp) -> ASGIApp:
        """`app`, each API call's latency observed by route (the route's path, not the URL) and status."""

        async def timing(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started, status = time.perf_counter(), [500]

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status[0] = message["status"]
                await send(message)

            try:
                await app(scope, receive, sending)
            finally:
                route = getattr(scope.get("route"), "path", None)
                if isinstance(route, str) and scope["path"].startswith(API):
                    # The route's own path: FastAPI keeps it with or without the router's prefix.
                    route = route if route.startswith(API) else API + route.lstrip("/")
                    took = time.perf_counter() - started
                    self.requests.labels(scope["method"], route, str(status[0])).observe(took)

        return timing

    async def endpoint(self) -> Response:
        body = await run_in_threadpool(generate_latest, self.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)
