"""What ``/metrics`` tells an operator, in Prometheus's format (prometheus-client).

Counts and histograms are kept as things happen; gauges (live tables,
connections, the bot queue, the engine's caches) are read when scraped.
Each app has a registry of its own, so that several apps in one process
(the tests) do not share numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .. import caches

#: Round trips people feel: an action received until every client was told (seconds).
ROUND_TRIP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self, gauges: Callable[[], dict[str, tuple[str, float]]]) -> None:
        self.registry = CollectorRegistry()
        self.actions = Counter("biriba_actions", "Actions played and committed", ["by"], registry=self.registry)
        self.round_trip = Histogram(
            "biriba_round_trip_seconds",
            "A person's action, from its message to every client told",
            buckets=ROUND_TRIP_BUCKETS,
            registry=self.registry,
        )
        self.refused = Counter(
            "biriba_refusals", "Requests and messages refused, by code", ["code"], registry=self.registry
        )
        self.cut = Counter(
            "biriba_clients_cut",
            "Connections the server closed, by close code: 4420 fell behind, 4429 over a cap, 1012 table reloading",
            ["code"],
            registry=self.registry,
        )
        self.registry.register(_Gauges(gauges))

    def text(self) -> bytes:
        return generate_latest(self.registry)


class _Gauges(Collector):
    """The gauges read at each scrape: the server's (``gauges()``) and the engine caches' sizes."""

    def __init__(self, gauges: Callable[[], dict[str, tuple[str, float]]]) -> None:
        self.gauges = gauges

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for name, (help_text, value) in self.gauges().items():
            yield GaugeMetricFamily(f"biriba_{name}", help_text, value=value)
        entries = GaugeMetricFamily(
            "biriba_engine_cache_entries", "Entries in the engine's shared caches", labels=["cache"]
        )
        for cache, count in caches.stats().items():
            entries.add_metric([cache], count)
        yield entries
