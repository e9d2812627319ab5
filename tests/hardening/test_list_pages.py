"""`/list` with 50 subscriptions stays under Telegram's 100 buttons a message, in pages; the
fake Bot API refuses what Telegram refuses: more than 100 buttons, and broken HTML (issue 23,
extras)."""

from __future__ import annotations

from typing import cast

import httpx

from bot.db import store
from bot.db.engine import transaction
from tests.support.fakes.bot_api import BUTTONS_LIMIT, FakeBotApi
from tests.support.fakes.telegram_entities import entity_problem
from tests.support.harness import ask, bot_settings, press, running_bot

CHAT = 111


def buttons(markup: dict[str, object] | None) -> list[dict[str, str]]:
    rows = cast(list[list[dict[str, str]]], (markup or {}).get("inline_keyboard") or [])
    return [button for row in rows for button in row]


async def test_fifty_subscriptions_are_listed_in_pages(
    sqlite_url: str, bot_api: FakeBotApi
) -> None:
    async with running_bot(bot_settings(sqlite_url, bot_api)) as bot:
        with transaction(bot.engine) as session:
            for n in range(50):
                feed = store.add_feed(
                    session,
                    slug=f"blog-{n:02d}",
                    url=f"https://b{n}.example/feed",
                    title=f"Blog {n}",
                    trusted=True,
                )
                store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
        first = await ask(bot_api, "/list")
        assert first.startswith("<b>Subscriptions</b> 1/3")
        assert "blog-00" in first and "blog-19" in first and "blog-20" not in first
        sent = bot_api.sent[-1]
        shown = buttons(sent.params.get("reply_markup"))
        assert len(shown) <= BUTTONS_LIMIT
        assert shown[-1]["callback_data"] == "page:1"
        await press(bot_api, "page:1", chat_id=CHAT)
        await bot_api.wait_for(lambda: any("2/3" in text for _, _, text in bot_api.edits))
        page = next(text for _, _, text in bot_api.edits if "2/3" in text)
        assert "blog-20" in page and "blog-39" in page and "blog-19" not in page
        await press(bot_api, "page:999", chat_id=CHAT)  # past the end: the last page
        await bot_api.wait_for(lambda: any("3/3" in text for _, _, text in bot_api.edits))
        # Unsubscribing from a feed on page 3 shows page 3 again.
        await press(bot_api, f"unsub:{50}", chat_id=CHAT)
        await bot_api.wait_for(
            lambda: "blog-49" not in bot_api.edits[-1][2] and "3/3" in bot_api.edits[-1][2]
        )


async def test_the_fake_refuses_what_telegram_refuses(bot_api: FakeBotApi) -> None:
    url = f"{bot_api.base_url}{bot_api.token}/sendMessage"
    many = {"inline_keyboard": [[{"text": "x", "callback_data": f"d{n}"}] for n in range(101)]}
    async with httpx.AsyncClient() as client:
        too_many = await client.post(url, json={"chat_id": 5, "text": "hi", "reply_markup": many})
        assert too_many.status_code == 400
        assert too_many.json()["description"] == "Bad Request: reply markup is too long"
        broken = await client.post(
            url, json={"chat_id": 5, "text": "<b>open", "parse_mode": "HTML"}
        )
        assert broken.status_code == 400
        assert broken.json()["description"].startswith("Bad Request: can't parse entities")
        fine = await client.post(
            url,
            json={
                "chat_id": 5,
                "text": '<b>ok</b> &amp; <a href="https://a.example/">x</a>',
                "parse_mode": "HTML",
            },
        )
        assert fine.status_code == 200
        plain = await client.post(url, json={"chat_id": 5, "text": "<b>open & plain"})
        assert plain.status_code == 200  # no parse mode: nothing to parse


def test_entity_problems() -> None:
    assert entity_problem('<b>a</b> <i>b</i> <a href="https://x.example/">c</a> &lt;&#38;') is None
    assert entity_problem('<pre><code class="language-python">x</code></pre>') is None
    assert (
        entity_problem('<span class="tg-spoiler">s</span><blockquote expandable>q</blockquote>')
        is None
    )
    assert entity_problem("<b>a") is not None
    assert entity_problem("<b>a</i>") is not None
    assert entity_problem("<div>a</div>") is not None
    assert entity_problem("a < b") is not None
    assert entity_problem("fish & chips") is not None
    assert entity_problem("&nbsp;") is not None
    assert entity_problem("<a>x</a>") is not None
