"""`/search` at 100,000 stored items: `python -m bench search [--items N] [--db sqlite|postgresql]
[--write]` (both databases by default; PostgreSQL at 127.0.0.1:5432, user postgres).

Fills a fresh, migrated database through the real write path (`store.write_items`, which keeps
the versions and the search index) with N posts over 100 feeds: about 1,500 characters of
prose each from a Zipf-distributed vocabulary (so some words are rare and some are in half
the posts), one post in twenty in Chinese, one in twenty edited once (two versions). Chat 1
follows half of the feeds. Then times the whole search use case (`Searches._search`: parse,
the query, the matching sentences) for words of every frequency, a phrase, a Chinese word, one
feed and a period: the median and the slowest of 21 runs each, after one warm-up. `--write`
replaces the "## Search" section of bench/RESULTS.md.
"""

from __future__ import annotations

import itertools
import random
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session

from bot.core.polls.plan import ItemWrite, WriteKind
from bot.core.types import Identity, ParsedItem
from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.migrate import upgrade
from bot.services.search import Searches

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / ".work"
FEEDS, CHAT, RUNS = 100, 1, 21
NOW = datetime(2026, 12, 1, tzinfo=UTC)
HANZI = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理"
QUERIES = (
    ("a rare word (in ~0.03% of posts)", "{rare}"),
    ("a word in ~1% of posts", "{mid}"),
    ("a word in ~10% of posts", "{common}"),
    ("a word in ~50% of posts", "{top}"),
    ("two words, each in ~10%", "{common} {common2}"),
    ("a phrase", '"{phrase}"'),
    ("a Chinese word inside sentences (~0.5%)", "{hanzi}"),
    ("a word in ~10%, one feed", "{common} {feed}"),
    ("a word in ~10%, since:30d", "{common} since:30d"),
)


def vocabulary(rng: random.Random, size: int = 8000) -> list[str]:
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _weights(size: int) -> list[float]:
    """Cumulative Zipf weights (word n is 1/n as frequent as the first)."""
    return list(itertools.accumulate(1 / (rank + 1) for rank in range(size)))


def prose(rng: random.Random, words: list[str], weights: list[float], chars: int) -> str:
    sentences, length = [], 0
    while length < chars:
        picked = rng.choices(words, cum_weights=weights, k=rng.randint(8, 20))
        sentence = " ".join(picked).capitalize() + "."
        sentences.append(sentence)
        length += len(sentence) + 1
    return " ".join(sentences)


def chinese(rng: random.Random, chars: int) -> str:
    out = []
    while sum(map(len, out)) < chars:
        out.append("".join(rng.choices(HANZI, k=rng.randint(10, 30))) + "。")
    return "".join(out)


def _item(key: str, title: str, body: str, published: datetime) -> ParsedItem:
    return ParsedItem(
        key=key,
        title=title,
        link=f"https://blog.example/{key}/",
        author=None,
        published=published,
        categories=(),
        text=body,
        fingerprint=str(hash(body)),
        position=0,
    )


def fill(engine: Engine, items: int) -> dict[str, Any]:
    """N posts through `store.write_items`; the seconds it took, and the words to search."""
    rng = random.Random(45)
    words = vocabulary(rng)
    weights = _weights(len(words))
    started = time.perf_counter()
    per_feed = items // FEEDS
    frequency: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    with transaction(engine) as session:
        for f in range(FEEDS):
            feed = store.add_feed(
                session,
                slug=f"feed{f}",
                url=f"https://f{f}.example/",
                title=f"Feed {f}",
                trusted=True,
            )
            if f % 2 == 0:
                store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
            else:
                store.subscribe(session, chat_id=CHAT + 1, feed_id=feed.id)
    for f in range(FEEDS):
        writes, edits = [], []
        for n in range(per_feed):
            key = f"p{f}-{n}"
            published = NOW - timedelta(minutes=rng.randint(0, 365 * 24 * 60))
            if n % 20 == 7:
                title, body = chinese(rng, 20), chinese(rng, 500)
                pairs.update({body[i : i + 2] for i in range(len(body) - 1)})
            else:
                title = prose(rng, words, weights, 40).rstrip(".")
                body = prose(rng, words, weights, 1500)
                frequency.update(set(body.lower().replace(".", "").split()))
            item = _item(key, title, body, published)
            writes.append(ItemWrite(WriteKind.INSERT, item, Identity(key, None, None)))
            if n % 20 == 3:
                edited = _item(key, title, body + " " + prose(rng, words, weights, 200), published)
                edits.append(ItemWrite(WriteKind.EDIT, edited, Identity(key, None, None)))
        with transaction(engine) as session:
            store.write_items(session, feed_id=f + 1, writes=writes, now=NOW)
        with transaction(engine) as session:
            store.write_items(session, feed_id=f + 1, writes=edits, now=NOW)
    seconds = time.perf_counter() - started
    total = items
    share = {word: count / total for word, count in frequency.items()}

    def near(target: float, skip: str = "") -> str:
        return min((w for w in share if w != skip), key=lambda w: abs(share[w] - target))

    found: dict[str, Any] = {
        "rare": near(0.0003),
        "mid": near(0.01),
        "common": near(0.10),
        "top": near(0.50),
    }
    found["common2"] = near(0.10, skip=found["common"])
    found["phrase"] = f"{words[0]} {words[1]}"
    hanzi = [p for p in pairs if all("\u4e00" <= c <= "\u9fff" for c in p)]
    found["hanzi"] = min(hanzi, key=lambda p: abs(pairs[p] / total - 0.005))
    found["feed"] = "feed4"
    found["shares"] = {k: share[found[k]] for k in ("rare", "mid", "common", "common2", "top")}
    found["shares"]["hanzi"] = pairs[found["hanzi"]] / total
    return {"seconds": seconds, "words": found}


def measure(engine: Engine, words: dict[str, str]) -> list[dict[str, Any]]:
    searches = Searches(engine, clock=lambda: NOW)
    rows = []
    for label, template in QUERIES:
        query = template.format(**words)
        times, found = [], 0
        with Session(engine) as session:
            searches._search(session, CHAT, query)  # warm-up
            for _ in range(RUNS):
                start = time.perf_counter()
                answer = searches._search(session, CHAT, query)
                times.append((time.perf_counter() - start) * 1000)
                found = len(answer.found)
        rows.append(
            {
                "label": label,
                "query": query,
                "median_ms": statistics.median(times),
                "max_ms": max(times),
                "found": found,
            }
        )
        print(
            f"    {label}: {query!r} median {rows[-1]['median_ms']:.1f} ms, "
            f"max {rows[-1]['max_ms']:.1f} ms, {found} shown",
            flush=True,
        )
    return rows


def _database(db: str, items: int) -> str:
    if db == "sqlite":
        WORK.mkdir(parents=True, exist_ok=True)
        path = WORK / f"search-{items}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return f"sqlite:///{path}"
    import psycopg

    name = f"fw_bench_search_{items}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def _size_mb(engine: Engine) -> float:
    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            pages = c.exec_driver_sql("PRAGMA page_count").scalar_one()
            size = c.exec_driver_sql("PRAGMA page_size").scalar_one()
            return float(pages * size) / 1e6
        return (
            float(c.execute(text("SELECT pg_database_size(current_database())")).scalar_one()) / 1e6
        )


def run(db: str, items: int) -> dict[str, Any]:
    url = _database(db, items)
    upgrade(url)
    engine = make_engine(url)
    try:
        print(f"  {db}: filling {items:,} posts…", flush=True)
        filled = fill(engine, items)
        if db == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(text("VACUUM ANALYZE"))
        words = filled["words"]
        shares = {k: f"{v:.2%}" for k, v in words.pop("shares").items()}
        print(f"    filled in {filled['seconds']:.0f} s; word shares {shares}", flush=True)
        return {
            "shares": shares,
            "db": db,
            "fill_seconds": filled["seconds"],
            "size_mb": _size_mb(engine),
            "rows": measure(engine, words),
        }
    finally:
        engine.dispose()


def table(results: list[dict[str, Any]], items: int) -> list[str]:
    dbs = [r["db"] for r in results]
    lines = [
        f"| Search at {items:,} posts | "
        + " | ".join(f"{d} median (max of {RUNS})" for d in dbs)
        + " | posts shown |",
        "|---|" + "---|" * len(dbs) + "---|",
    ]
    for n, (label, _) in enumerate(QUERIES):
        cells = [
            f"{r['rows'][n]['median_ms']:.1f} ms ({r['rows'][n]['max_ms']:.1f})" for r in results
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {results[0]['rows'][n]['found']} |")
    fills = ", ".join(
        f"{r['db']} {r['fill_seconds']:.0f} s, {r['size_mb']:.0f} MB" for r in results
    )
    lines += [
        "",
        f"Filling through `store.write_items` (index kept on write), and the database's size: {fills}.",
    ]
    return lines


def write(lines: list[str]) -> None:
    path = ROOT / "bench" / "RESULTS.md"
    old = path.read_text()
    head, _, rest = old.partition("\n## Search\n")
    tail = rest[rest.find("\n## ") :] if "\n## " in rest else ""
    section = [
        "",
        "## Search",
        "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; command: `python -m bench search --write`",
        "",
        *lines,
        "",
    ]
    path.write_text(head.rstrip("\n") + "\n" + "\n".join(section) + tail)


def main(argv: list[str]) -> None:
    items = int(next((a.split("=")[1] for a in argv if a.startswith("--items=")), "100000"))
    chosen = next((a.split("=")[1] for a in argv if a.startswith("--db=")), None)
    dbs = [chosen] if chosen else ["sqlite", "postgresql"]
    results = [run(db, items) for db in dbs]
    lines = table(results, items)
    print("\n" + "\n".join(lines))
    if "--write" in argv:
        write(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
