"""`python -m bench scale --feeds N [--db sqlite|postgresql|both] [--runs 3] [--interval 300]
[--measure SECONDS] [--workers K] [--write]`: the real `python -m bot worker` (K of them, each
its own process on the same database) keeping N feeds on schedule.

Each run starts from a database where every feed is baselined (its ETag stored) and all are
overdue, as after a restart that followed downtime: the cold start. The feed server (its own
process, `scale_server.py`) answers 304 to almost every poll; about 1% of polls publish a post,
which one chat per hundred feeds receives through the fake Bot API. The run reports
- when the cold start was caught up (every feed polled once; goal: within one interval);
- then, over `--measure` seconds after the first interval: polls per 30-second window against
  the due rate (goal: each within 10%), the most overdue poll (goal: under 15 s);
- the workers' CPU as a share of the machine (goal: at most 40%), their peak RSS, the
  database's size;
- apart from it, the feed server's CPU (it shares the machine, and a real deployment does not
  carry it) and how busy the whole machine was over the measured part (every process, from
  `/proc/stat`) with the load average: on a shared machine, other work starves the worker.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from bench.scale_server import etag

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.support.fakes.bot_api import FakeBotApi

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / ".work" / "scale"
WINDOW = 30
PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


@dataclass
class Run:
    db: str
    caught_up: float  # s from the worker's start until every feed was polled once
    windows: list[float]  # polls/s per 30 s window of the measured part
    due_rate: float
    worst_delay: float  # s, the most overdue poll in the measured part
    cpu_share: float  # the workers', of the whole machine, measured part
    server_share: float  # the feed server's, of the whole machine, measured part
    db_share: float  # PostgreSQL's backends serving this database (0 on SQLite), measured part
    machine_busy: float  # every process on the machine, measured part
    load: tuple[float, float]  # 1-minute load average at the start and end of the measured part
    workers: int
    peak_rss_mb: float
    db_mb: float
    polls: int
    messages: int

    @property
    def worst_window(self) -> float:
        return max(abs(w - self.due_rate) / self.due_rate for w in self.windows)

    def line(self) -> str:
        return (
            f"{self.db}: caught up {self.caught_up:.0f} s; windows {min(self.windows):.0f}-"
            f"{max(self.windows):.0f}/s against {self.due_rate:.0f}/s due (worst "
            f"{self.worst_window:.1%} off); most overdue {self.worst_delay:.1f} s; CPU of "
            f"{self.workers} worker(s) {self.cpu_share:.1%} of the machine, feed server "
            f"{self.server_share:.1%}, PostgreSQL backends {self.db_share:.1%}, machine busy {self.machine_busy:.0%} (load "
            f"{self.load[0]:.1f} → {self.load[1]:.1f}); RSS {self.peak_rss_mb:.0f} MB; "
            f"database {self.db_mb:.0f} MB; {self.polls} polls, {self.messages} messages"
        )


def prepare(url: str, feeds: int, base: str, interval: float) -> datetime:
    """A migrated database: `feeds` baselined feeds, all overdue; one chat per 100 feeds."""
    from sqlalchemy import insert, update

    from bot.db.engine import make_engine, transaction
    from bot.db.migrate import upgrade
    from bot.db.tables import Chat, Feed, Subscription

    upgrade(url)
    engine = make_engine(url)
    overdue = datetime.now(UTC) - timedelta(seconds=interval)
    template = Feed(slug="-", url="-").model_dump(exclude={"id"})

    def rows(start: int) -> list[dict[str, object]]:  # built per batch: 300,000 at once is GBs
        return [
            {
                **template,
                "slug": f"scale-{n}",
                "url": f"{base}/f/{n}",
                "title": f"Scale feed {n}",
                "etag": etag(n, 0),
                "baseline_done": True,
                "next_check_at": overdue,
                "last_checked_at": overdue,
            }
            for n in range(start, min(start + 5000, feeds))
        ]

    with transaction(engine) as session:
        for start in range(0, feeds, 5000):
            session.execute(insert(Feed), rows(start))
        chats = [
            {**Chat(id=n + 1).model_dump(), "id": n + 1} for n in range(0, max(feeds // 100, 1))
        ]
        session.execute(insert(Chat), chats)
        template_sub = Subscription(chat_id=0, feed_id=0).model_dump(exclude={"id"})
        subs = [
            {**template_sub, "chat_id": c["id"], "feed_id": (c["id"] - 1) * 100 + 1} for c in chats
        ]
        session.execute(insert(Subscription), subs)
    # Overdue by one interval when the worker starts, however long the rows took to write (a
    # few minutes at 300,000 on a busy machine): the cold start is one interval's backlog.
    overdue = datetime.now(UTC) - timedelta(seconds=interval)
    with transaction(engine) as session:
        session.execute(update(Feed).values(next_check_at=overdue, last_checked_at=overdue))
    engine.dispose()
    return overdue


def database(kind: str, run: int) -> str:
    if kind == "sqlite":
        folder = WORK / f"run{run}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return f"sqlite:///{folder / 'feedwatch.db'}"
    from sqlalchemy import create_engine, text

    name = f"fw_scale_{run}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def database_mb(url: str) -> float:
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 2**20
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        size = conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
    engine.dispose()
    return float(size) / 2**20


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def backends_cpu(url: str) -> dict[int, float]:
    """CPU seconds of each PostgreSQL backend connected to the run's database (none on SQLite):
    the database's own work for the workers, apart from other users of the server."""
    if url.startswith("sqlite"):
        return {}
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            pids = conn.execute(
                text(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid()"
                )
            ).scalars()
            found = {}
            for pid in pids:
                with contextlib.suppress(FileNotFoundError):  # it ended meanwhile
                    found[int(pid)] = cpu_seconds(int(pid))
            return found
    finally:
        engine.dispose()


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of every CPU since boot, from /proc/stat."""
    fields = [int(f) for f in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def one_run(
    kind: str, n: int, feeds: int, interval: float, measure: float, workers: int = 1
) -> Run:
    from tests.support.fakes.bot_api import FakeBotApi
    from tests.support.processes import bot_env

    server = subprocess.Popen(
        [sys.executable, "-m", "bench.scale_server", str(feeds), "10"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    api = FakeBotApi().start()
    try:
        return _measure(kind, n, feeds, interval, measure, server, api, bot_env, workers)
    finally:
        server.terminate()
        api.stop()


def _measure(
    kind: str,
    n: int,
    feeds: int,
    interval: float,
    measure: float,
    server: subprocess.Popen[str],
    api: FakeBotApi,
    bot_env: Callable[..., dict[str, str]],
    count: int = 1,
) -> Run:
    assert server.stdout is not None
    base = f"http://127.0.0.1:{server.stdout.readline().strip()}"
    url = database(kind, n)
    print(f"  run {n + 1} ({kind}): preparing {feeds} feeds", flush=True)
    due = prepare(url, feeds, base, interval).timestamp()  # every feed's first due time
    env = bot_env(url, api, POLL_INTERVAL_SECONDS=str(int(interval)), LOG_LEVEL="INFO")
    logs = [(WORK / f"worker-{kind}-{n}-{k}.log").open("wb") for k in range(count)]
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", "worker"],
            env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
            stdout=log,
            stderr=log,
            cwd=WORK,
        )
        for log in logs
    ]
    started = time.time()
    peak = 0.0
    at: dict[str, tuple[float, float, tuple[int, int], float]] = {}
    backends: dict[str, dict[int, float]] = {}

    def sample() -> tuple[float, float, tuple[int, int], float]:
        cpu = sum(cpu_seconds(w.pid) for w in workers)
        return cpu, cpu_seconds(server.pid), machine_jiffies(), load_average()

    try:
        end = started + interval + measure
        while (now := time.time()) < end:
            peak = max(peak, sum(rss_mb(w.pid) for w in workers))
            if "start" not in at and now >= started + interval:
                at["start"] = sample()
                backends["start"] = backends_cpu(url)
            for worker, log in zip(workers, logs, strict=True):
                if worker.poll() is not None:
                    raise SystemExit(f"a worker exited with {worker.returncode}: see {log.name}")
            time.sleep(1.0)
        at["end"] = sample()
        backends["end"] = backends_cpu(url)
        with urllib.request.urlopen(f"{base}/_stats", timeout=120) as answer:
            stats = json.load(answer)
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
    (cpu0, server0, (busy0, total0), load0), (cpu1, server1, (busy1, total1), load1) = (
        at["start"],
        at["end"],
    )
    cores = os.cpu_count() or 1
    times: list[list[float]] = stats["times"]
    firsts = [t[0] - started for t in times if t]
    caught_up = max(firsts) if len(firsts) == feeds else float("inf")
    window_start = started + interval
    counts = [0] * int(measure // WINDOW)
    worst = 0.0
    for polls in times:
        if polls and polls[0] >= window_start:  # the cold start had not reached it
            worst = max(worst, polls[0] - due)
        for previous, current in itertools.pairwise(polls):
            if current >= window_start:
                worst = max(worst, current - previous - interval)
        for t in polls:
            k = int((t - window_start) // WINDOW)
            if 0 <= k < len(counts):
                counts[k] += 1
    return Run(
        db=kind,
        caught_up=caught_up,
        windows=[c / WINDOW for c in counts],
        due_rate=feeds / interval,
        worst_delay=worst,
        cpu_share=(cpu1 - cpu0) / measure / cores,
        server_share=(server1 - server0) / measure / cores,
        db_share=sum(t - backends["start"].get(pid, 0.0) for pid, t in backends["end"].items())
        / measure
        / cores,
        machine_busy=(busy1 - busy0) / max(total1 - total0, 1),
        load=(load0, load1),
        workers=count,
        peak_rss_mb=peak,
        db_mb=database_mb(url),
        polls=sum(len(t) for t in times),
        messages=len(api.sent),
    )


def spread(values: list[float], fmt: str) -> str:
    return " / ".join(fmt.format(v) for v in (min(values), statistics.median(values), max(values)))


def table(feeds: int, interval: float, runs: list[Run]) -> list[str]:
    lines = [
        f"| {feeds:,} feeds every {interval:.0f} s, min / median / max of {len(runs) // len({r.db for r in runs})} runs | "
        + " | ".join(sorted({r.db for r in runs}))
        + " | Goal |",
        "|---|" + "---|" * len({r.db for r in runs}) + "---|",
    ]
    rows = [
        ("cold start caught up (s)", lambda r: r.caught_up, "{:.0f}", f"≤ {interval:.0f}"),
        ("worst 30 s window, off the due rate", lambda r: r.worst_window * 100, "{:.1f}%", "≤ 10%"),
        (
            "slowest window (polls/s)",
            lambda r: min(r.windows),
            "{:.0f}",
            f"due {feeds / interval:.0f}",
        ),
        (
            "fastest window (polls/s)",
            lambda r: max(r.windows),
            "{:.0f}",
            f"due {feeds / interval:.0f}",
        ),
        (
            "most overdue poll after the first interval (s)",
            lambda r: r.worst_delay,
            "{:.1f}",
            "< 15",
        ),
        ("worker CPU, share of the machine", lambda r: r.cpu_share * 100, "{:.1f}%", "≤ 40%"),
        (
            "feed server CPU, share of the machine (apart)",
            lambda r: r.server_share * 100,
            "{:.1f}%",
            "-",
        ),
        (
            "PostgreSQL backends of the run, share of the machine",
            lambda r: r.db_share * 100,
            "{:.1f}%",
            "-",
        ),
        ("whole machine busy (every process)", lambda r: r.machine_busy * 100, "{:.0f}%", "-"),
        ("worker peak RSS (MB)", lambda r: r.peak_rss_mb, "{:.0f}", "-"),
        ("database size (MB)", lambda r: r.db_mb, "{:.0f}", "-"),
    ]
    for name, value, fmt, goal in rows:
        cells = [
            spread([value(r) for r in runs if r.db == db], fmt)
            for db in sorted({r.db for r in runs})
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {goal} |")
    return lines


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench scale")
    parser.add_argument("--feeds", type=int, default=100_000)
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--interval", type=float, default=300.0)
    parser.add_argument(
        "--measure", type=float, default=None, help="seconds; default: one interval"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes on the one database"
    )
    parser.add_argument("--write", action="store_true", help="append the table to bench/RESULTS.md")
    args = parser.parse_args(argv)
    measure = args.measure or args.interval
    kinds = ("sqlite", "postgresql") if args.db == "both" else (args.db,)
    WORK.mkdir(parents=True, exist_ok=True)
    runs = []
    for n in range(args.runs):
        for kind in kinds:
            run = one_run(kind, n, args.feeds, args.interval, measure, args.workers)
            print(f"    {run.line()}", flush=True)
            print(f"      windows (polls/s): {' '.join(f'{w:.0f}' for w in run.windows)}")
            runs.append(run)
    lines = table(args.feeds, args.interval, runs)
    print("\n".join(lines))
    if args.write:
        stamp = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
        command = " ".join(["python -m bench scale", *argv])
        text = "\n".join([f"\n## Scale: `{command}` ({stamp})", "", *lines, ""])
        with (ROOT / "bench" / "RESULTS.md").open("a") as out:
            out.write(text)
