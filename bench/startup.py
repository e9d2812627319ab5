"""Start-up CPU per command (issue 48): `python -m bench` row 6, or `python -m bench.startup`.

Each command runs in a fresh interpreter five times; its CPU (user + system, all threads) is
read from the child's resource usage and the median is reported. `poll --once --dry-run` polls
one quiet feed (the loopback server answers 304), so its time is nearly all start-up.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.fakes.feed_server import FeedServer

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5
QUIET_FEED = (
    b'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Quiet</title>'
    b"<link>https://quiet.example/</link><item><title>Hello</title>"
    b"<link>https://quiet.example/1</link><guid>q1</guid><description>One post.</description>"
    b"</item></channel></rss>"
)
COMMANDS = {
    "--help": ["--help"],
    "health": ["health"],
    "poll --once --dry-run (one quiet feed)": ["poll", "--once", "--dry-run"],
}


def cpu_of(args: list[str], env: dict[str, str], cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, cwd=cwd, capture_output=True, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure() -> dict[str, list[float]]:
    server = FeedServer().start()
    try:
        with tempfile.TemporaryDirectory() as work:
            env = {
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "DATABASE_URL": f"sqlite:///{work}/startup.db",
                "ALLOW_PRIVATE_FEED_URLS": "true",
                "LOG_LEVEL": "WARNING",
            }
            url = server.serve("/quiet.xml", QUIET_FEED)
            added = subprocess.run(
                [sys.executable, "-m", "bot", "feed", "add", url, "--name", "quiet"],
                env=env, cwd=work, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if added.returncode != 0:
                raise SystemExit(f"feed add failed: {added.stderr[-500:]}")
            return {
                name: [cpu_of(args, env, work) for _ in range(RUNS)]
                for name, args in COMMANDS.items()
            }
    finally:
        server.stop()


def main() -> None:
    runs = measure()
    print(
        json.dumps({name: {"median": statistics.median(r), "runs": r} for name, r in runs.items()})
    )


if __name__ == "__main__":
    main()
