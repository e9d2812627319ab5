"""Fan-out: pending messages to many chats through PTB and the fake Bot API, in its own process:
`python -m bench.fanout API_BASE TOKEN CHATS RATE CONCURRENCY WORKDIR`."""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert

from bench.measure import emit, on_bots_loop, peak_rss_mb, span


async def run(
    api: str, token: str, chats: int, rate: float, concurrency: int, workdir: Path
) -> dict[str, object]:
    from bot.db.engine import make_engine
    from bot.db.migrate import upgrade
    from bot.db.tables import Chat, Delivery, Feed, Item
    from bot.runtime.config import load_settings
    from bot.services.wiring import make_fetcher
    from bot.telegram.app import build_application
    from bot.telegram.shared import KEY

    workdir.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{workdir / 'fanout.db'}"
    upgrade(url)
    engine = make_engine(url)
    now = datetime.now(UTC)
    text = '<b><a href="https://blog.example/post/">A new post</a></b>\nBlog · 8 Sep 2026\n\nA summary.'
    with engine.begin() as conn:
        conn.execute(
            insert(Feed),
            [
                {
                    "slug": "f",
                    "url": "http://127.0.0.1:9/",
                    "title": "F",
                    "trusted": True,
                    "status": "ok",
                    "error_count": 0,
                    "baseline_done": True,
                    "created_at": now,
                    "next_check_at": now,
                }
            ],
        )
        conn.execute(
            insert(Item),
            [
                {
                    "feed_id": 1,
                    "key": "k",
                    "title": "t",
                    "categories": [],
                    "text": "",
                    "fingerprint": "f",
                    "first_seen_at": now,
                    "last_changed_at": now,
                    "last_seen_at": now,
                }
            ],
        )
        conn.execute(
            insert(Chat),
            [
                {"id": c, "type": "private", "title": "", "active": True, "created_at": now}
                for c in range(1, chats + 1)
            ],
        )
        conn.execute(
            insert(Delivery),
            [
                {
                    "chat_id": c,
                    "feed_id": 1,
                    "item_id": 1,
                    "kind": "new",
                    "text": text,
                    "status": "pending",
                    "attempts": 0,
                    "created_at": now,
                    "next_attempt_at": now,
                }
                for c in range(1, chats + 1)
            ],
        )
    settings = load_settings(
        _env_file=None,
        database_url=url,
        telegram_bot_token=token,
        telegram_api_base_url=api,
        telegram_rate_per_second=rate,
        delivery_concurrency=concurrency,
    )
    app = build_application(settings, engine, make_fetcher(settings))
    async with app:
        deliverer = app.bot_data[KEY].deliverer
        with span() as s:
            sent = await deliverer.deliver_due()
    engine.dispose()
    return {"sent": sent, "wall": s.wall, "cpu": s.cpu, "peak_rss_mb": peak_rss_mb()}


def main() -> None:
    logging.disable(logging.WARNING)
    api, token, chats, rate, concurrency, workdir = sys.argv[1:7]
    emit(on_bots_loop(run(api, token, int(chats), float(rate), int(concurrency), Path(workdir))))


if __name__ == "__main__":
    main()
