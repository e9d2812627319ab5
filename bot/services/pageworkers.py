"""Post pages' articles extracted in worker processes that can be stopped.

trafilatura can run for seconds to minutes on one page, and a thread running it cannot be
stopped: in the two-thread parsing pool, two 449 KB pages of inline spans delayed an unrelated
feed's post from 5.2 s to 84.7 s and another chat's `/list` waited 19.6 s. Here a page goes to
one of `WORKERS` processes of their own (`python -m bot.services.pageworkers`), started on the
first page and reused across pages, at a lower priority (nice 10), each with an address-space
limit and a CPU-time limit per page. A page not done within `DEADLINE_SECONDS` has its worker
killed (a new one starts for the next page) and is the feed's excerpt. The parent waits in
threads of this module's own, never in the parsing pool feeds need or the database's.

Protocol on the worker's stdin/stdout: frames of a 4-byte length and the bytes; a request is a
JSON header (`url`, `title`) and the page, an answer one JSON frame (`html`, `image`, `error`).
Workers get no secrets: their environment is only what Python needs to start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from bot.core.messages.article import Article, failed

log = logging.getLogger(__name__)

WORKERS = 2
DEADLINE_SECONDS = 10.0  # wall time for one page; a bounded page takes well under a second
CPU_SECONDS = 5  # CPU time for one page (the kernel stops the worker past it)
MEMORY_BYTES = 512 * 1024 * 1024  # address space a page may add to a worker
START_SECONDS = 60.0  # a new worker's start-up (imports) under load
MAX_FRAME = 8 * 1024 * 1024
_ENVIRONMENT = ("PATH", "PYTHONPATH", "PYTHONHOME", "LANG", "LC_ALL", "HOME", "TMPDIR")
_HEADER = struct.Struct(">I")


class WorkerGone(Exception):
    """The worker ended (killed at a limit, crashed) or said nothing in time."""


class _Worker:
    """One worker process and its pipes (used by one thread at a time)."""

    def __init__(self, cpu_seconds: int, memory_bytes: int) -> None:
        env = {name: os.environ[name] for name in _ENVIRONMENT if name in os.environ}
        self.process = subprocess.Popen(  # noqa: S603 - our own module, no shell
            [sys.executable, "-m", __name__, str(cpu_seconds), str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        if _read_frame(self.stdout, time.monotonic() + START_SECONDS) != b"ready":
            raise WorkerGone("the worker did not start")

    def extract(self, page: bytes, url: str, title: str, deadline: float) -> dict[str, Any]:
        try:
            _write_frame(self.stdin, json.dumps({"url": url, "title": title}).encode())
            _write_frame(self.stdin, page)
            self.stdin.flush()
        except OSError as exc:
            raise WorkerGone(str(exc)) from None
        answer: dict[str, Any] = json.loads(_read_frame(self.stdout, deadline))
        return answer

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.stdin, self.stdout):
            pipe.close()


class PageWorkers:
    """The pool: `extract` a page in a worker within `deadline` seconds, or say why not."""

    def __init__(
        self,
        workers: int = WORKERS,
        deadline: float = DEADLINE_SECONDS,
        cpu_seconds: int = CPU_SECONDS,
        memory_bytes: int = MEMORY_BYTES,
    ) -> None:
        self.deadline, self.cpu_seconds, self.memory_bytes = deadline, cpu_seconds, memory_bytes
        self._threads = ThreadPoolExecutor(workers, thread_name_prefix="feedwatch-pages")
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self.started = self.killed = 0
        self._warming = False
        # Workers also end when this process does (their stdin closes); this ends them when
        # the pool is dropped without `close` (a test's poller) or at exit.
        weakref.finalize(self, _kill_all, self._all)

    async def extract(self, page: bytes, url: str, title: str) -> Article:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._threads, self._extract, page, url, title)

    def warm(self) -> None:
        """Start a worker now, in the background, unless one is there: the first page of a
        poll is being fetched meanwhile, so it does not wait for the worker's start-up."""
        with self._lock:
            if self._all or self._warming:
                return
            self._warming = True
        self._threads.submit(self._start_idle)

    def _start_idle(self) -> None:
        try:
            worker = _Worker(self.cpu_seconds, self.memory_bytes)
        except (OSError, WorkerGone, ValueError) as exc:
            log.warning("page workers: cannot start one: %s", exc)
            return
        finally:
            with self._lock:
                self._warming = False
        with self._lock:
            self._all.add(worker)
            self._idle.append(worker)
            self.started += 1

    def close(self) -> None:
        """Kill every worker (the bot is stopping); pages being read get an error. A later
        page starts a new one."""
        _kill_all(self._all)

    def _extract(self, page: bytes, url: str, title: str) -> Article:
        try:
            worker = self._take()
        except (OSError, WorkerGone, ValueError) as exc:
            log.warning("page workers: cannot start one: %s", exc)
            return failed(f"extraction unavailable: {exc}")
        deadline = time.monotonic() + self.deadline
        try:
            answer = worker.extract(page, url, title, deadline)
        except TimeoutError:
            self._drop(worker)
            return failed(f"extraction stopped after {self.deadline:g} s (the page costs too much)")
        except (WorkerGone, ValueError) as exc:
            self._drop(worker)
            code = worker.process.returncode
            why = f"signal {-code}" if code is not None and code < 0 else str(exc) or "ended"
            return failed(f"extraction stopped at a CPU or memory limit ({why})")
        self._give_back(worker)
        return Article(html=answer["html"], image=answer["image"], error=answer["error"])

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.poll() is None:
                    return worker
                self._all.discard(worker)
        worker = _Worker(self.cpu_seconds, self.memory_bytes)
        with self._lock:
            self._all.add(worker)
            self.started += 1
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all:  # not killed by `close` meanwhile
                self._idle.append(worker)

    def _drop(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)
            self.killed += 1


def _kill_all(workers: set[_Worker]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()


def _write_frame(pipe: IO[bytes], data: bytes) -> None:
    pipe.write(_HEADER.pack(len(data)))
    pipe.write(data)


def _read_frame(pipe: IO[bytes], deadline: float | None = None) -> bytes:
    """One frame; `deadline` (monotonic): TimeoutError past it. EOF: WorkerGone."""
    size = _HEADER.unpack(_read_exactly(pipe, _HEADER.size, deadline))[0]
    if size > MAX_FRAME:
        raise WorkerGone(f"a frame of {size} bytes")
    return _read_exactly(pipe, size, deadline)


def _read_exactly(pipe: IO[bytes], size: int, deadline: float | None) -> bytes:
    out = bytearray()
    fd = pipe.fileno()
    while len(out) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(size - len(out), 1 << 20))
        if not chunk:
            raise WorkerGone("the worker ended")
        out += chunk
    return bytes(out)


# --- the worker process ------------------------------------------------------------------------


def serve(cpu_seconds: int, memory_bytes: int) -> None:
    """Answer pages until stdin closes: trafilatura loaded first, then a lower priority, an
    address-space limit for the process and a CPU-time limit for each page."""
    from bot.core.messages.article import extract_article

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C is the parent's to handle
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # stopped at its CPU limit: no core file
    extract_article(b"<html><body><p>warm</p></body></html>", "http://localhost/")
    os.nice(10)  # pages yield to the bot; start-up (imports, once) did not need to
    _limit_memory(memory_bytes)
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    _write_frame(answers, b"ready")
    answers.flush()
    while True:
        try:
            header = json.loads(_read_frame(requests))
            page = _read_frame(requests)
        except WorkerGone:
            return
        used = resource.getrusage(resource.RUSAGE_SELF)
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        budget = int(used.ru_utime + used.ru_stime) + 1 + cpu_seconds
        resource.setrlimit(resource.RLIMIT_CPU, (budget, hard))
        # Past the memory limit, lxml's parse fails (no article); a MemoryError anywhere else
        # ends the worker, which the parent reports as a limit reached.
        article = extract_article(page, header["url"], header["title"])
        del page
        _write_frame(answers, json.dumps(_fields(article)).encode())
        answers.flush()


def _fields(article: Article) -> dict[str, Any]:
    return {"html": article.html, "image": article.image, "error": article.error}


def _limit_memory(extra: int) -> None:
    """The address space the worker has now (imports done) plus `extra`."""
    try:
        with open("/proc/self/statm") as statm:
            now = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # not Linux: no limit by address space (macOS does not enforce it)
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = now + extra
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
