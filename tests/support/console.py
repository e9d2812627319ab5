"""Try the bot without Telegram: the project's fake Bot API on a fixed port, and this terminal
as a private chat with the bot.

    .venv/bin/python -m tests.support.console          # prints the command that runs the bot
    TELEGRAM_BOT_TOKEN=… TELEGRAM_API_BASE_URL=http://127.0.0.1:8081/bot \\
        ALLOW_PRIVATE_FEED_URLS=true ./dev run          # in a second terminal

Each line typed here is a message from you (`/start`, `/subscribe https://…`, a pasted link);
the bot's replies and edits are printed as they arrive, with their buttons; `press DATA` presses
the button whose data is DATA. Ctrl-D ends.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any

from bot.core.messages.render import to_plain
from tests.support.fakes.bot_api import TOKEN, FakeBotApi

YOU = 111  # your private chat's id (a private chat's id is its user's)


def _show(text: str, markup: Any) -> None:
    print("\n" + to_plain(text))
    for row in (markup or {}).get("inline_keyboard", []) if isinstance(markup, dict) else []:
        print("   " + "  ".join(f"[{b['text']}] (press {b.get('callback_data')})" for b in row))
    print("> ", end="", flush=True)


def _echo(api: FakeBotApi, stop: threading.Event) -> None:
    shown, edits = 0, 0
    while not stop.is_set():
        with api.lock:
            sent, edited = api.sent[shown:], api.edits[edits:]
            shown, edits = len(api.sent), len(api.edits)
        for message in sent:
            _show(message.text, message.params.get("reply_markup"))
        for _chat, _message, text in edited:
            _show("(edited) " + text, None)
        time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--language", default="en", help="your client's language (en, es, zh)")
    args = parser.parse_args(argv)
    api = FakeBotApi().start(port=args.port)
    print(
        "Fake Bot API ready. Run the bot in another terminal:\n\n"
        f"  TELEGRAM_BOT_TOKEN={TOKEN} TELEGRAM_API_BASE_URL={api.base_url} "
        "ALLOW_PRIVATE_FEED_URLS=true ./dev run\n\nThen type here, e.g. /start\n> ",
        end="",
        flush=True,
    )
    stop = threading.Event()
    threading.Thread(target=_echo, args=(api, stop), daemon=True).start()
    try:
        for line in sys.stdin:
            text = line.strip()
            if text.startswith("press "):
                _press(api, text.removeprefix("press ").strip())
            elif text:
                api.push_command(text, chat_id=YOU, user_id=YOU, language=args.language)
    except KeyboardInterrupt:
        pass
    stop.set()
    api.stop()
    return 0


def _press(api: FakeBotApi, data: str) -> None:
    chat = {"id": YOU, "type": "private", "first_name": "You"}
    api.push_update(
        {
            "callback_query": {
                "id": str(time.monotonic_ns()),
                "from": {"id": YOU, "is_bot": False, "first_name": "You"},
                "chat_instance": "console",
                "data": data,
                "message": {"message_id": 1, "date": int(time.time()), "chat": chat, "text": ""},
            }
        }
    )


if __name__ == "__main__":
    sys.exit(main())
