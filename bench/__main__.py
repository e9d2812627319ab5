"""`python -m bench [--quick] [--write]`: every benchmark in one run, one table.
`python -m bench scale --feeds N …`: the worker keeping N feeds on schedule (`scale.py`).
`python -m bench search [--items=N] [--db=sqlite|postgresql] [--write]`: /search at N stored
posts (`search.py`).

Each measured tool runs in its own process (so CPU time and peak RSS are its own); the feed
corpus server and the fake Bot API run in this process, on loopback.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.corpus import CorpusServer, body
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.threaded import ThreadedApp

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / ".work"
ROUNDS = 3


def child(module: str, *args: object) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if result.returncode != 0:
        raise SystemExit(f"{module} {args} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _stages(runs: list[dict[str, object]]) -> str:
    """The change cycle's CPU by poll stage (median over the rounds), and what no stage
    counts: fetching and the event loop, the parsing pool's hand-offs, the post watch."""
    from bot.runtime.metrics import STAGES

    medians = {
        s: statistics.median(run["stages"].get(s, 0.0) for run in runs)  # type: ignore[attr-defined]
        for s in STAGES
    }
    rest = statistics.median(
        run["change"]["cpu"] - sum(run["stages"].values())  # type: ignore[index, attr-defined]
        for run in runs
    )
    parts = ", ".join(f"{s} {v:.2f}" for s, v in medians.items())
    return (
        f"Change-cycle CPU by stage (s, median of rounds; `feedwatch_poll_stage_cpu_seconds`): "
        f"{parts}; fetching, the event loop and the rest {rest:.2f}."
    )


def main() -> None:
    if sys.argv[1:2] == ["scale"]:
        from bench.scale import main as scale

        scale(sys.argv[2:])
        return
    if sys.argv[1:2] == ["search"]:
        from bench.search import main as search

        search(sys.argv[2:])
        return
    quick = "--quick" in sys.argv
    feeds, chats, scale = (100, 1000, 1000) if quick else (500, 5000, 10_000)
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    started = time.monotonic()
    server = ThreadedApp(CorpusServer().app()).start()
    # The server's bodies (both versions) are made now, not while the first round's change
    # cycle is measured: generating them there ran beside it on the other core.
    for i in range(feeds):
        body(i, 1), body(i, 2)
    rows: list[tuple[str, str, str, str, str]] = []
    notes: list[str] = []

    def row(name: str, ours: str, peer: str, ratio: str, goal: str) -> None:
        rows.append((name, ours, peer, ratio, goal))
        print(f"  {name}: {ours} | {peer} | {ratio} | {goal}", flush=True)

    print(f"1. poll cycle, {feeds} feeds (60% 304, 20% same body, 20% changed)", flush=True)
    # A shared VM's CPU time for the same work varies by ±25% from run to run, so each tool's
    # cycles run ROUNDS times, alternating, and the medians are compared.
    # The bare-parse floor runs in every round too: measured once, it moved by a third between
    # runs on this shared VM (1.74 s to 2.33 s for the same bodies), which is the whole margin.
    # Measured right before and right after each Feedwatch run, it brackets that run's change
    # cycle: the VM's speed drifted by 40% between two floors 20 s apart (session 13), so each
    # round's ratio is taken against its own two floors, and the median ratio is reported.
    fws, rds, floors, ratios, least = [], [], [], [], []
    for n in range(ROUNDS):
        micro = ("--micro",) if n == 0 else ()
        before = child("bench.poll_cycle", "parse", server.base, feeds, WORK / "parse")
        fws.append(
            child("bench.poll_cycle", "feedwatch", server.base, feeds, WORK / f"fw{n}", *micro)
        )
        after = child("bench.poll_cycle", "parse", server.base, feeds, WORK / "parse")
        rds.append(child("bench.poll_cycle", "reader", server.base, feeds, WORK / f"reader{n}"))
        floors.append((before["cpu"] + after["cpu"]) / 2)  # type: ignore[operator]
        least.append(
            (before["items_cpu"] + after["items_cpu"] + before["text_cpu"] + after["text_cpu"]) / 2  # type: ignore[operator]
        )
        ratios.append(fws[-1]["change"]["cpu"] / floors[-1])  # type: ignore[index]
    fw, rd = fws[0], rds[0]
    for cycle in ("baseline", "change"):
        for kind in ("wall", "cpu"):
            a = statistics.median(run[cycle][kind] for run in fws)  # type: ignore[index]
            b = statistics.median(run[cycle][kind] for run in rds)  # type: ignore[index]
            goal = "≤ 0.5× (30), ≤ 0.2× (48)" if cycle == "change" else "-"
            row(
                f"{cycle} cycle {kind} time vs reader",
                f"{a:.2f} s",
                f"{b:.2f} s",
                f"{a / b:.2f}×",
                goal,
            )
    row(
        "peak RSS vs reader",
        f"{fw['peak_rss_mb']:.0f} MB",
        f"{rd['peak_rss_mb']:.0f} MB",
        f"{fw['peak_rss_mb'] / rd['peak_rss_mb']:.2f}×",
        "≤ 1×",
    )  # type: ignore[operator]
    change_cpu = statistics.median(run["change"]["cpu"] for run in fws)  # type: ignore[index]
    spread = ", ".join(
        f"{run['change']['cpu']:.2f}/{peer['change']['cpu']:.2f}"  # type: ignore[index]
        for run, peer in zip(fws, rds, strict=True)
    )
    print(f"  change cycle CPU per round, Feedwatch/reader: {spread}", flush=True)
    notes.append(f"Change-cycle CPU per round, Feedwatch / reader (s): {spread}.")
    notes.append(_stages(fws))
    print(f"  {notes[-1]}", flush=True)
    bare = ", ".join(
        f"{floor:.2f} ({ratio:.2f}×)" for floor, ratio in zip(floors, ratios, strict=True)
    )
    notes.append(
        "Bare feedparser parse of the changed bodies per round, the mean of the parses just "
        f"before and after that round's Feedwatch run (s), and the round's ratio: {bare}."
    )
    row(
        "change-cycle CPU vs bare feedparser on changed bodies (median of rounds)",
        f"{change_cpu:.2f} s",
        f"{statistics.median(floors):.2f} s",
        f"{statistics.median(ratios):.2f}×",
        "≤ 1.3× (41), ≤ 0.5× (48)",
    )
    items = before["items"]
    least_cpu = statistics.median(least)
    row(
        f"change-cycle CPU vs the least library work: feedparser on the {items} changed "
        "items alone, html2text on their content",
        f"{change_cpu:.2f} s",
        f"{least_cpu:.2f} s",
        f"{change_cpu / least_cpu:.1f}×",
        "-",
    )
    measured = fw["per_304"]["cpu_ms_each"]  # type: ignore[index]
    each = ", ".join(f"{ms:.2f}" for ms in measured)
    notes.append(f"CPU per 304 answer in each of the {len(measured)} measurements (ms): {each}.")
    row(
        "CPU per 304 answer (median of the measurements)",
        f"{fw['per_304']['cpu_ms']:.2f} ms",
        "reader ≈ 2 ms (the issue's figure, not measured here)",
        "-",
        "≤ 0.3 ms",
    )  # type: ignore[index]

    # Full text on for every feed: the pages of the change cycle's new posts are read too. The
    # cycle figure above has it off (the default); the page work is reported on its own.
    pages = child(
        "bench.poll_cycle", "feedwatch", server.base, feeds, WORK / "fulltext", "--full-text"
    )
    read = pages["pages"]  # type: ignore[index]
    extra_cpu = pages["change"]["cpu"] - change_cpu  # type: ignore[index,operator]
    count = read["fetched"] + read["failed"]  # type: ignore[index]
    row(
        f"full text on: {count:.0f} post pages read in the change cycle ({read['failed']:.0f} failed)",
        f"+{extra_cpu:.2f} s CPU ({extra_cpu / max(count, 1) * 1000:.1f} ms a page)",
        f"cycle wall {pages['change']['wall']:.2f} s, {read['seconds'] / max(count, 1) * 1000:.0f} ms a page",
        "-",
        "outside the figure above",
    )  # type: ignore[index,operator]

    print("2. unchanged feed, server ignores validators", flush=True)
    big = fw["per_unchanged_big"]["cpu_ms"]  # type: ignore[index]
    parse = fw["feedparser_parse_big_ms"]
    row(
        f"CPU per poll of an unchanged {fw['big_body_kb']:.0f} KB body",
        f"{big:.2f} ms",
        f"one feedparser parse: {parse:.1f} ms",
        f"{big / parse:.3f}×",
        "< 2 ms",
    )  # type: ignore[operator]

    print(f"3. fan-out to {chats} chats", flush=True)
    api = FakeBotApi().start()
    api.rate_limit = 1000
    # Sixteen chats at a time (DELIVERY_CONCURRENCY=16): what an operator with a 1,000/s paid
    # broadcast limit sets; at 1 a message waits for the previous one's round trip and mark
    # (measured at 4 / 8 / 16 / 32: 540 / 760 / 800 / 830 messages/s, session 12).
    fast = child("bench.fanout", api.base_url, api.token, chats, 1000, 16, WORK / "fanout")
    rate = fast["sent"] / fast["wall"]  # type: ignore[operator]
    row(
        "messages/s at a 1,000/s limit, 16 chats at a time (share of limit)",
        f"{rate:.0f}/s",
        "limit 1000/s",
        f"{rate / 1000:.0%}",
        "≥ 90%",
    )
    row("429 answers during the fan-out", str(api.too_many), "-", "-", "0")
    row("CPU per message", f"{fast['cpu'] / fast['sent'] * 1000:.2f} ms", "-", "-", "≤ 0.8 ms")  # type: ignore[operator]
    api.rate_limit = 40
    slow = child("bench.fanout", api.base_url, api.token, 300, 30, 1, WORK / "fanout30")
    row(
        "CPU share of one core at Telegram's 30 messages/s",
        f"{slow['cpu'] / slow['wall']:.1%}",
        f"{slow['sent'] / slow['wall']:.1f} msg/s",
        "-",
        "< 5%",
    )  # type: ignore[operator]
    api.stop()

    print(f"4. scale: {scale} small feeds, one 5-minute interval", flush=True)
    big_run = child("bench.poll_cycle", "feedwatch", server.base, scale, WORK / "scale", "--small")
    share = big_run["change"]["cpu"] / 300 / 2  # type: ignore[index]
    row(
        f"CPU share of the 2-core machine, {scale} feeds / 300 s",
        f"{share:.1%}",
        f"cycle CPU {big_run['change']['cpu']:.1f} s",
        "-",
        "< 50%",
    )  # type: ignore[index]
    row("memory (peak RSS) at that scale", f"{big_run['peak_rss_mb']:.0f} MB", "-", "-", "-")

    print(
        "5. growth: 100,000 stored items and 10,000 subscriptions, change cycle over 50 feeds",
        flush=True,
    )
    empty = child("bench.poll_cycle", "feedwatch", server.base, 50, WORK / "g0")
    full = child("bench.poll_cycle", "feedwatch", server.base, 50, WORK / "g1", "--filler=100000")
    a, b = full["change"]["cpu"], empty["change"]["cpu"]  # type: ignore[index]
    row(
        "change-cycle CPU, full vs empty database",
        f"{a:.3f} s",
        f"{b:.3f} s",
        f"{a / b:.2f}×",
        "≤ 1.2×",
    )
    server.stop()

    print("6. start-up CPU per command (median of 5 fresh interpreters)", flush=True)
    startup = child("bench.startup")
    goals = {"--help": "≤ 0.3 s", "poll --once --dry-run (one quiet feed)": "≤ 0.6 s"}
    for name, found in startup.items():
        median = found["median"]  # type: ignore[index]
        row(
            f"start-up CPU: `python -m bot {name}`",
            f"{median:.2f} s",
            "-",
            "-",
            goals.get(name, "-"),
        )
        notes.append(
            f"start-up CPU of `{name}`, five runs: "
            + ", ".join(f"{r:.2f} s" for r in found["runs"])
        )  # type: ignore[index]

    elapsed = time.monotonic() - started
    table = ["| Measure | Feedwatch | Peer / limit | Ratio | Goal |", "|---|---|---|---|---|"]
    table += [f"| {' | '.join(r)} |" for r in rows]
    print("\n" + "\n".join(table))
    print("\nquery plans with 100,000 items:")
    for name, plan in full["plans"].items():  # type: ignore[union-attr]
        print(f"  {name}: {plan}")
    print(f"\ntotal {elapsed:.0f} s")
    if "--write" in sys.argv:
        write_results(table, full["plans"], elapsed, quick, notes)  # type: ignore[arg-type]


def write_results(
    table: list[str], plans: dict[str, str], elapsed: float, quick: bool, notes: list[str]
) -> None:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"
    lines = [
        "# Benchmark results",
        "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {machine}",
        f"- Command: `python -m bench{' --quick' if quick else ''} --write` ({elapsed:.0f} s)",
        "- Peer: lemon24/reader (`update_feeds(workers=10)`, its default SQLite storage), same corpus, same server, same run.",
        f"- The poll cycles ran {ROUNDS} times per tool, alternating; their rows are medians.",
        "",
        *table,
        "",
        *notes,
        "",
        "Query plans of the hot statements with 100,000 items and 10,000 subscriptions (SQLite):",
        "",
        *[f"- {name}: `{plan}`" for name, plan in plans.items()],
        "",
    ]
    path = ROOT / "bench" / "RESULTS.md"
    old = path.read_text() if path.exists() else ""
    # The table above is this run's; the sections below it (each session's notes, the scale
    # and search runs) are history and stay: an earlier version dropped them on every write.
    kept = old[old.index("\n## ") :] if "\n## " in old else ""
    path.write_text("\n".join(lines).rstrip("\n") + "\n" + kept)


if __name__ == "__main__":
    main()
