"""Prometheus metrics (served only when METRICS_PORT is set)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Gauge, Histogram, start_http_server

POLLS = Counter("feedwatch_polls_total", "Feed polls by outcome", ["outcome"])
ITEMS = Counter("feedwatch_items_detected_total", "Items detected by kind", ["kind"])
DELIVERIES = Counter("feedwatch_deliveries_total", "Delivery attempts by outcome", ["outcome"])
PENDING = Gauge("feedwatch_pending_deliveries", "Messages waiting to be sent")
SEND_SECONDS = Histogram("feedwatch_send_seconds", "Latency of Telegram sendMessage calls")
BUDGET_TAKEN = Counter(
    "feedwatch_telegram_budget_taken_total", "Messages that took a slot of the shared budget"
)
BUDGET_WAIT = Counter(
    "feedwatch_telegram_budget_wait_seconds_total", "Seconds spent waiting for budget slots"
)
TOO_MANY = Counter("feedwatch_telegram_429_total", "429 answers from Telegram", ["retried"])

PAGES = Counter("feedwatch_pages_total", "Post pages read for full text, by outcome", ["outcome"])
PAGE_SECONDS = Histogram(
    "feedwatch_page_seconds", "Time to fetch and extract a post's page (full-text feeds)"
)

MODEL_CALLS = Counter(
    "feedwatch_model_calls_total", "Calls to the operator's language model", ["outcome"]
)
MODEL_CACHE_HITS = Counter(
    "feedwatch_model_cache_hits_total", "Model texts found stored instead of asked again"
)
MODEL_FALLBACKS = Counter(
    "feedwatch_model_fallbacks_total", "Model texts wanted but not had: extractive instead"
)

# Where a changed poll's CPU goes (`./dev bench` prints the split): which stage to work on is
# read here, not guessed. Thread CPU, so polls running meanwhile in other threads do not count.
STAGES = ("parse", "read", "plan", "render", "write", "quiet", "index")
POLL_STAGE_CPU = Counter(
    "feedwatch_poll_stage_cpu_seconds",
    f"CPU seconds of polls by stage: {', '.join(STAGES)} (SQLite's search rows, written after "
    "the commit; PostgreSQL's are part of write)",
    ["stage"],
)


@contextmanager
def cpu_of(stage: str) -> Iterator[None]:
    """Count the calling thread's CPU time inside the block as the stage's."""
    started = time.thread_time()
    try:
        yield
    finally:
        POLL_STAGE_CPU.labels(stage).inc(time.thread_time() - started)


def stage_totals() -> dict[str, float]:
    """CPU seconds counted so far, by stage (the bench reads a cycle's as a difference)."""
    return {
        sample.labels["stage"]: sample.value
        for family in POLL_STAGE_CPU.collect()
        for sample in family.samples
        if sample.name.endswith("_total")
    }


def serve(port: int, address: str = "127.0.0.1") -> None:
    """Loopback unless METRICS_LISTEN says otherwise: metrics say which feeds and chats exist."""
    start_http_server(port, addr=address)
