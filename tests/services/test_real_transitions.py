"""Transitions real feeds go through, run as an operator would: `feed add`, then the next
documents polled for real (`poll --once`), then `poll --once --dry-run` on the last one.

Each case names what subscribers must get from the last poll: the titles announced as new, the
titles announced as edited, and nothing else. The documents come from tests/support/fixtures/generators.py
(WordPress, Ghost, Hugo, Atom, YouTube, Hacker News shapes) with our own text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta

import pytest

from bot.cli.main import main
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import generators as g
from tests.support.fixtures.generators import NOW, Post, window

W = window(10)
NEWEST = Post(
    slug="pier-repairs",
    title="Pier Repairs Start Monday",
    paragraphs=("Contractors start on the pier on Monday.", "The end section stays open."),
    published=NOW + timedelta(hours=3),
    post_id=4200,
)


@dataclass(frozen=True)
class Case:
    name: str
    documents: tuple[bytes, ...]  # the first is added, the middle ones polled, the last dry-run
    new: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()
    listed: int = 0  # new posts sent as one flood-guard list
    shows: tuple[str, ...] = ()  # text the printed messages must contain
    hides: tuple[str, ...] = ()  # text they must not


def _edit(posts: tuple[Post, ...], index: int, **changes: object) -> tuple[Post, ...]:
    return (*posts[:index], replace(posts[index], **changes), *posts[index + 1 :])  # type: ignore[arg-type]


def _weekly() -> tuple[Post, Post]:
    first = Post(
        "this-week-1",
        "This Week at the Harbour",
        ("Boats, birds and weather.",),
        NOW - timedelta(days=7),
        post_id=1,
    )
    second = Post(
        "this-week-2", "This Week at the Harbour", ("New week, new boats.",), NOW, post_id=2
    )
    return first, second


def _price(value: str) -> tuple[Post, ...]:
    return _edit(
        W,
        4,
        paragraphs=(
            f"The beginner snorkel kit costs {value} this season.",
            "It includes a mask and fins.",
        ),
    )


CJK_OLD = (
    "今年秋天，志愿者沿着海岸线统计了海带的数量。在去年春天清除海胆的地方，海带林重新长了"
    "出来。仍有两处只剩裸露的岩石。"
)
CJK_NEW = CJK_OLD.replace("仍有两处只剩裸露的岩石。", "仍有三处只剩裸露的岩石。")
JA_OLD = "夜の防波堤ではタコが活発に動きます。ライトを当てるとコウイカが色を変えました。予備のライトを持ってきてください。"
JA_NEW = JA_OLD.replace("コウイカが色を変えました。", "コウイカが数秒ごとに色を変えました。")
VIEWS = tuple(f"Viewed {n} times." for n in (120, 180, 260))
GHOST = tuple(replace(p, excerpt=f"Short note {n}: {p.title.lower()}.") for n, p in enumerate(W))
HIST = window(35)
MOVED = tuple(replace(p, host="https://tidepool.example.org") for p in W)


CASES = [
    # Identity: the same posts under new keys.
    Case("wordpress guid http to https", (g.wordpress(W), g.wordpress(W, guid_scheme="https"))),
    Case("wordpress guid gains &v=2", (g.wordpress(W), g.wordpress(W, guid_suffix="&v=2"))),
    Case(
        "guid gains utm tracking", (g.wordpress(W), g.wordpress(W, guid_suffix="&utm_source=rss"))
    ),
    Case("generator switch rss to atom", (g.wordpress(W), g.atom(W))),
    Case("generator switch atom to rss", (g.atom(W), g.hugo(W))),
    Case("atom ids re-prefixed", (g.atom(W), g.atom(W, id_prefix="https://tidepool.example/p/"))),
    Case(
        "domain move with one new post",
        (
            g.wordpress(W),
            g.wordpress(
                (replace(NEWEST, host=MOVED[0].host), *MOVED[:9]),
                site="https://tidepool.example.org",
            ),
        ),
        new=(NEWEST.title,),
    ),
    # Backfill.
    Case("window grows 10 to 35", (g.hugo(W), g.hugo(HIST))),
    Case(
        "window grows with a new post on top",
        (g.hugo(W), g.hugo((NEWEST, *HIST))),
        new=(NEWEST.title,),
    ),
    Case(
        "backdated recent post placed low is new",
        (g.hugo(W), g.hugo((*W, replace(NEWEST, published=NOW - timedelta(days=2))))),
        new=(NEWEST.title,),
    ),
    Case(
        "years-old feed: a post backdated before the window by days is new",
        (
            g.hugo(window(3, newest=NOW - timedelta(days=900))),
            g.hugo(
                (
                    *window(3, newest=NOW - timedelta(days=900)),
                    replace(NEWEST, published=NOW - timedelta(days=904)),
                )
            ),
        ),
        new=(NEWEST.title,),
    ),
    Case(
        "undated window grows downward",
        (
            g.hugo(tuple(replace(p, published=None) for p in W[:5])),
            g.hugo(tuple(replace(p, published=None) for p in W)),
        ),
    ),
    Case(
        "undated post on top is new",
        (
            g.hugo(tuple(replace(p, published=None) for p in W[1:])),
            g.hugo(tuple(replace(p, published=None) for p in W)),
        ),
        new=(W[0].title,),
    ),
    Case(
        "weekly posts with the same title are new",
        (g.hugo(_weekly()[:1]), g.hugo(_weekly()[::-1])),
        new=(_weekly()[1].title,),
    ),
    Case("removed and re-added is not new", (g.hugo(W), g.hugo(W[:4] + W[5:]), g.hugo(W))),
    Case("window shrinks and grows back", (g.hugo(W), g.hugo(W[:4]), g.hugo(W))),
    # Flood guard.
    Case(
        "flood of new posts is one list",
        (
            g.hugo(W[:3]),
            g.hugo(
                (
                    *(
                        replace(p, published=NOW + timedelta(hours=24 - n))
                        for n, p in enumerate(HIST[12:24])
                    ),
                    *W[:3],
                )
            ),
        ),
        listed=12,
    ),
    # Counters.
    Case("hacker news points and comments", (g.hacker_news(W), g.hacker_news(g.bump(W)))),
    Case("youtube views and ratings", (g.youtube(W), g.youtube(g.bump(W)))),
    Case("wordpress slash:comments", (g.wordpress(W), g.wordpress(g.bump(W)))),
    Case(
        "counters plus one real title edit",
        (g.hacker_news(W), g.hacker_news(_edit(g.bump(W), 2, title="New Firmware for Buoys"))),
        edited=("New Firmware for Buoys",),
    ),
    Case(
        "price changed in one post is an edit",
        (g.hugo(_price("$45")), g.hugo(_price("$52"))),
        edited=(W[4].title,),
        shows=("$52",),
    ),
    Case(
        "a counter at the same place poll after poll",
        tuple(g.hugo(_edit(W, 0, paragraphs=(W[0].paragraphs[0], v))) for v in VIEWS),
    ),
    # Templates.
    Case("footer added to every item", (g.wordpress(W), g.wordpress(W, footer=True))),
    Case("footer removed from every item", (g.wordpress(W, footer=True), g.wordpress(W))),
    Case(
        "correction during a template change",
        (
            g.wordpress(W),
            g.wordpress(
                _edit(W, 3, extra=("Correction: the dive was at the east breakwater.",)),
                footer=True,
            ),
        ),
        edited=(W[3].title,),
        shows=("Correction: the dive was at the east breakwater.",),
        hides=("appeared first on",),
    ),
    # Excerpts and full text.
    Case("wordpress starts full text", (g.wordpress(W, full=False), g.wordpress(W))),
    Case("wordpress stops full text", (g.wordpress(W), g.wordpress(W, full=False))),
    Case("ghost custom excerpts only", (g.ghost(GHOST), g.ghost(GHOST, full=False))),
    Case("ghost full text returns", (g.ghost(GHOST, full=False), g.ghost(GHOST))),
    Case("hugo full text to summary", (g.hugo(W), g.hugo(W, full=False))),
    Case("hugo summary to full text", (g.hugo(W, full=False), g.hugo(W))),
    # Real edits and CJK.
    Case(
        "one word changed in one post",
        (
            g.atom(W),
            g.atom(
                _edit(
                    W,
                    6,
                    paragraphs=(
                        W[6].paragraphs[0],
                        "The finest caught the most but clogged slowly.",
                    ),
                )
            ),
        ),
        edited=(W[6].title,),
        shows=("The finest caught the most but clogged ~~quickly~~ slowly.",),
    ),
    Case(
        "chinese sentence edited",
        (g.atom(_edit(W, 1, paragraphs=(CJK_OLD,))), g.atom(_edit(W, 1, paragraphs=(CJK_NEW,)))),
        edited=(W[1].title,),
        shows=("仍有~~两~~ 三处只剩裸露的岩石。",),
        hides=("海带林重新长了出来。",),
    ),
    Case(
        "japanese sentence edited",
        (g.atom(_edit(W, 2, paragraphs=(JA_OLD,))), g.atom(_edit(W, 2, paragraphs=(JA_NEW,)))),
        edited=(W[2].title,),
        shows=("コウイカが数秒ごとに色を変えました。",),
        hides=("予備のライトを持ってきてください。",),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_transition(
    case: Case,
    feeds: FeedServer,
    bot_api: FakeBotApi,
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", bot_api.token)
    monkeypatch.setenv("TELEGRAM_API_BASE_URL", bot_api.base_url)
    serve: Callable[[bytes], str] = lambda body: feeds.serve("/feed.xml", body)  # noqa: E731
    assert main(["feed", "add", serve(case.documents[0]), "--name", "tide"]) == 0
    for middle in case.documents[1:-1]:
        serve(middle)
        assert main(["poll", "--once"]) == 0
    serve(case.documents[-1])
    capsys.readouterr()
    assert main(["poll", "--once", "--dry-run"]) == 0
    out = capsys.readouterr().out
    events = re.findall(r"^\[(new|edited)\] tide: (.*?)(?: <http[^>]*>)?$", out, re.MULTILINE)
    assert sorted(t for kind, t in events if kind == "new") == sorted(case.new), out
    assert sorted(t for kind, t in events if kind == "edited") == sorted(case.edited), out
    listed = re.findall(r"^\[list\] tide: (\d+) new posts", out, re.MULTILINE)
    assert [int(n) for n in listed] == ([case.listed] if case.listed else []), out
    for text in case.shows:
        assert text in out
    for text in case.hides:
        assert text not in out
