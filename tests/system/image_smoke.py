"""Smoke test of the built container image (`./dev image` runs it after building).

Inside the image, as its own user: not root; no compiler or build leftovers; site-packages not
writable; `--help`; `migrate` twice; `health` before any cycle (a clear non-zero answer);
`preview` of a small feed; the default command without a token (one clear line); `feed add` +
`poll --once` against the project's fake Bot API on loopback, then the image's HEALTHCHECK;
`run` as PID 1 in its own PID namespace, healthy, then SIGTERM → exit 0 within 10 s; and the
compose service's environment (`.env.example` + compose's `DATABASE_URL`) on the local
PostgreSQL. Containers use the host network and reach only 127.0.0.1.

Usage: python -m tests.system.image_smoke IMAGE BASE_IMAGE
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bot import __version__
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog

ROOT = Path(__file__).resolve().parents[2]
BUILDAH = ["buildah", "--storage-driver", "vfs"]
PG_ADMIN = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
USER = "10001:10001"
failures: list[str] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    print(
        f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}", flush=True
    )
    if not ok:
        failures.append(name)


def sh(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)


class Container:
    """A working container of the image (buildah), commands run as the image's user."""

    def __init__(self, image: str) -> None:
        self.image = image
        self.name = sh(*BUILDAH, "from", "--pull=never", image).stdout.strip().splitlines()[-1]

    def run(
        self, *cmd: str, env: dict[str, str] | None = None, user: str = USER
    ) -> subprocess.CompletedProcess[str]:
        args = [*BUILDAH, "run", "--isolation", "chroot", "--network", "host", "--user", user]
        for key, value in (env or {}).items():
            args += ["--env", f"{key}={value}"]
        return sh(*args, self.name, "--", *cmd)

    def copy(self, source: Path, target: str) -> None:
        sh(*BUILDAH, "copy", "--chown", USER, self.name, str(source), target)

    def mount(self) -> str:
        return sh(*BUILDAH, "mount", self.name).stdout.strip()

    def remove(self) -> None:
        sh(*BUILDAH, "umount", self.name)
        sh(*BUILDAH, "rm", self.name)


def config(image: str) -> dict[str, object]:
    found = sh(*BUILDAH, "inspect", "--type", "image", image).stdout
    return json.loads(found)["Docker"]["config"]  # type: ignore[no-any-return]


def size_mb(image: str) -> float:
    """The image's size as buildah reports it ("433 MB")."""
    found = json.loads(sh(*BUILDAH, "images", "--json", image).stdout)
    number, unit = str(found[0]["size"]).split()
    return float(number) * {"kB": 1e-3, "KB": 1e-3, "MB": 1.0, "GB": 1e3}[unit]


BUILDAH_NOISE = ("subprocess exited with status", "Error: exit status")


def one_line(result: subprocess.CompletedProcess[str]) -> bool:
    """The program's own output is one line (buildah adds its exit-status lines)."""
    lines = [
        line
        for line in (result.stdout + result.stderr).strip().splitlines()
        if line.strip() and not line.startswith(BUILDAH_NOISE)
    ]
    return len(lines) == 1 and "Traceback" not in lines[0]


def smoke(image: str, base: str) -> None:
    api, feeds = FakeBotApi().start(), FeedServer().start()
    box = Container(image)
    bot_env = {"TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_API_BASE_URL": api.base_url}
    try:
        check("runs as a non-root user", box.run("id", "-u").stdout.strip() == "10001")
        leftovers = box.run(
            "sh", "-c", "command -v gcc cc g++ make; ls /wheels /root/.cache/pip 2>/dev/null"
        )
        check("no compiler or build leftovers", leftovers.stdout.strip() == "", leftovers.stdout)
        writable = box.run(
            "python", "-c", "import os, site; print(os.access(site.getsitepackages()[0], os.W_OK))"
        )
        check(
            "site-packages not writable",
            writable.stdout.strip() == "False",
            writable.stdout + writable.stderr,
        )
        helped = box.run("python", "-m", "bot", "--help")
        check(
            "--help", helped.returncode == 0 and "usage: feedwatch" in helped.stdout, helped.stderr
        )
        script = box.run("feedwatch", "--version")
        check(
            "the console script",
            script.stdout.strip() == f"feedwatch {__version__}",
            script.stdout + script.stderr,
        )
        spoken = box.run(
            "python",
            "-c",
            "from bot.runtime.i18n import translator as t; print(t('es').gettext('Other'))",
        )
        check("the translations are installed", spoken.stdout.strip() == "Otros", spoken.stderr)
        for n in (1, 2):
            migrated = box.run("python", "-m", "bot", "migrate")
            check(f"migrate ({n})", migrated.returncode == 0, migrated.stderr)
        health = box.run("python", "-m", "bot", "health")
        check(
            "health before a cycle says no, in one line",
            health.returncode != 0 and one_line(health),
            health.stdout + health.stderr,
        )
        box.copy(ROOT / "tests" / "data" / "hugo.rss", "/tmp/feed.xml")  # /data is a volume
        preview = box.run("python", "-m", "bot", "preview", "/tmp/feed.xml")
        check(
            "preview of a small feed",
            preview.returncode == 0 and "Profiling a cold start" in preview.stdout,
            preview.stderr,
        )
        no_token = box.run("python", "-m", "bot", "run")
        check(
            "the default command without a token is one clear line",
            no_token.returncode == 1
            and one_line(no_token)
            and "TELEGRAM_BOT_TOKEN" in no_token.stderr,
            no_token.stderr,
        )
        url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
        added = box.run("python", "-m", "bot", "feed", "add", url, "--name", "lumen")
        check("feed add", added.returncode == 0, added.stderr)
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        polled = box.run("python", "-m", "bot", "poll", "--once", env=bot_env)
        check("poll --once against the fake Bot API", polled.returncode == 0, polled.stderr)
        test = config(image)["Healthcheck"]["Test"]  # type: ignore[index]
        healthy = box.run(*test[1:]) if test[0] == "CMD" else box.run("sh", "-c", test[1])
        check(
            "HEALTHCHECK healthy after a cycle",
            healthy.returncode == 0,
            healthy.stdout + healthy.stderr,
        )
        pid_one(box, bot_env, api)
        compose(box, bot_env, feeds)
        grown = size_mb(image) - size_mb(base)
        print(f"     the app's layers add {grown:.0f} MB to the base image", flush=True)
        # 82 MB before full text and the model (issues 27-29): trafilatura with lxml and its
        # date libraries, the openai client (30 MB with its compiled types) and RE2 add ~55 MB;
        # aiohttp with yarl, multidict and propcache (issue 30: feeds and the Bot API, a fifth
        # of httpx's CPU per request) about 8 MB more: 151 MB; uvloop (issue 30: a sixth less
        # CPU a message in a fan-out; its one compiled module is 13.6 MB as its wheel ships it)
        # 14 MB more: 165 MB measured.
        check("the app adds at most 170 MB to the base", grown <= 170, f"{grown:.0f} MB")
    finally:
        box.remove()
        api.stop()
        feeds.stop()


def pid_one(box: Container, bot_env: dict[str, str], api: FakeBotApi) -> None:
    """`run` as PID 1 of its own PID namespace (as a container runtime starts it)."""
    root = box.mount()
    env = {
        "PATH": "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/data",
        "DATABASE_URL": "sqlite:////data/feedwatch.db",
        "POLL_INTERVAL_SECONDS": "60",
        **bot_env,
    }
    process = subprocess.Popen(
        [
            "unshare",
            "--pid",
            "--fork",
            f"--mount-proc={root}/proc",
            "chroot",
            f"--userspec={USER}",
            root,
            "/usr/bin/env",
            "-i",
            *(f"{k}={v}" for k, v in env.items()),
            "python",
            "-m",
            "bot",
            "run",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not api.calls_to("getUpdates"):
            time.sleep(0.2)
        child = sh("pgrep", "-P", str(process.pid)).stdout.split()
        nspid = Path(f"/proc/{child[0]}/status").read_text() if child else ""
        match = re.search(r"NSpid:\s+\d+\s+(\d+)", nspid)
        check(
            "run is PID 1 in its own PID namespace",
            bool(match and match.group(1) == "1"),
            nspid[-200:],
        )
        healthy = box.run("python", "-m", "bot", "health")
        check("healthy while running", healthy.returncode == 0, healthy.stdout + healthy.stderr)
        started = time.monotonic()
        if child:
            os.kill(int(child[0]), signal.SIGTERM)
        code = process.wait(timeout=15)
        elapsed = time.monotonic() - started
        check(
            "SIGTERM stops PID 1 with status 0 within 10 s",
            code == 0 and elapsed < 10,
            f"status {code} after {elapsed:.1f} s",
        )
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def compose(box: Container, bot_env: dict[str, str], feeds: FeedServer) -> None:
    """The compose service's environment: `.env.example`, then compose's `DATABASE_URL`."""
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"fw_image_{uuid.uuid4().hex[:8]}"
    admin = make_url(PG_ADMIN).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        env = {}
        for line in (ROOT / ".env.example").read_text().splitlines():
            if line.strip() and not line.startswith("#") and "=" in line:
                key, value = line.split("=", 1)
                env[key] = value
        env["DATABASE_URL"] = (
            make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)
        )
        env.update(bot_env)
        url = feeds.serve("/compose/", blog.rss(blog.BEFORE_POSTS))
        steps = [
            ("migrate",),
            ("feed", "add", url, "--name", "compose"),
            ("poll", "--once"),
            ("health",),
        ]
        for step in steps:
            result = box.run("python", "-m", "bot", *step, env=env)
            check(
                f"compose environment on PostgreSQL: {' '.join(step[:2])}",
                result.returncode == 0,
                result.stdout + result.stderr,
            )
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    smoke(sys.argv[1], sys.argv[2])
    print(f"image smoke test: {'all passed' if not failures else ', '.join(failures) + ' failed'}")
    sys.exit(1 if failures else 0)
