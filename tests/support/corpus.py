"""The feedparser test corpus (about 2,240 documents) in a local cache.

Fetched by the install step (`./dev test` runs `python -m tests.support.corpus` before pytest), never
during the test run: tests use no network. `FEEDWATCH_CACHE` moves the cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

VERSION = "6.0.14"
CACHE = Path(os.environ.get("FEEDWATCH_CACHE", Path.home() / ".cache" / "feedwatch"))


def corpus_dir() -> Path:
    """Where the sdist's tests/ folder is (it exists once `fetch()` has run)."""
    return CACHE / f"feedparser-{VERSION}" / "tests"


def fetch() -> int:
    """Download feedparser's sdist from the package registry and unpack its tests/ folder."""
    target = corpus_dir()
    if target.is_dir():
        return 0
    CACHE.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-binary",
            ":all:",
            "--no-deps",
            f"feedparser=={VERSION}",
            "-d",
            str(CACHE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    archive = CACHE / f"feedparser-{VERSION}.tar.gz"
    if result.returncode != 0 or not archive.exists():
        print(f"cannot download the feedparser sdist: {result.stderr.strip()[-300:]}")
        return 1
    with tarfile.open(archive) as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.name.startswith(f"feedparser-{VERSION}/tests/") and m.isfile()
        ]
        tar.extractall(CACHE, members=members, filter="data")
    return 0


if __name__ == "__main__":
    sys.exit(fetch())
