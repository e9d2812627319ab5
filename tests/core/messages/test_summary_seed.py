"""Snapshots of the three seed-shaped posts' messages (issue 25): read them as a subscriber
would. The membership post ends at a whole sentence, the press release shows its own Summary
list, the community post its TL;DR."""

from __future__ import annotations

import pytest

from bot.core.messages.render import render_change
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.fixtures.seed_posts import COMMUNITY, MEMBERSHIP, PRESS_RELEASE
from tests.support.telegram_html import assert_valid_telegram_html

SNAPSHOTS = {
    MEMBERSHIP.key: (
        '<b><a href="https://blog.lumen.example/corvid-labs-premier-member/">Corvid Labs Joins the Lumen Foundation as a Premier Member</a></b>\n'
        "Lumen Blog · Lumen Foundation · 8 Sep 2026\n"
        "<i>Announcements</i>\n"
        "\n"
        "Corvid Labs, which designs accelerator chips for training and inference, has joined the Lumen Foundation as a Premier member.\n"
        "\n"
        "Corvid Labs has shipped support for the framework's compiler since 2024. In the meantime, Corvid Labs has worked with maintainers on the new back-end API, contributing kernels, tests and documentation that other vendors now build on."
    ),
    PRESS_RELEASE.key: (
        '<b><a href="https://blog.lumen.example/lisbon-open-model-stack/">Acme Compute, Borealis AI and Corvid Labs Meet in Lisbon to Grow the Open Model Stack</a></b>\n'
        "Lumen Blog · Lumen Foundation · 8 Sep 2026\n"
        "<i>Announcements · Press Release</i>\n"
        "\n"
        "• Acme Compute and Corvid Labs joined the Lumen Foundation as Premier members.\n"
        "• Borealis AI joined as a General member.\n"
        "• Keynotes on compilers, serving and training at scale open LumenConf Europe."
    ),
    COMMUNITY.key: (
        '<b><a href="https://blog.lumen.example/pune-meetup/">Lumen × Sprocket in Pune: Training the Next Wave of Compiler Contributors</a></b>\n'
        "Lumen Blog · Priya Raman · 7 Sep 2026\n"
        "<i>Community</i>\n"
        "\n"
        "More than two hundred engineers met in Pune for talks and hands-on labs, and twelve first-time contributors landed their first compiler patches."
    ),
}


@pytest.mark.parametrize("item", [MEMBERSHIP, PRESS_RELEASE, COMMUNITY], ids=lambda i: i.key[-6:])
def test_seed_post_messages(item: ParsedItem) -> None:
    message = render_change(Change(ChangeKind.NEW, item), FeedInfo("lumen", "Lumen Blog"))
    assert message == SNAPSHOTS[item.key]
    assert_valid_telegram_html(message)


# Issue 42: the same posts as a `title` and a `full` subscription receive them.
OTHER_FORMATS = {
    (MEMBERSHIP.key, Format.TITLE): (
        '<b><a href="https://blog.lumen.example/corvid-labs-premier-member/">Corvid Labs Joins the Lumen Foundation as a Premier Member</a></b>\n'
        "Lumen Blog · Lumen Foundation · 8 Sep 2026"
    ),
    (MEMBERSHIP.key, Format.FULL): (
        '<b><a href="https://blog.lumen.example/corvid-labs-premier-member/">Corvid Labs Joins the Lumen Foundation as a Premier Member</a></b>\n'
        "Lumen Blog · Lumen Foundation · 8 Sep 2026\n"
        "<i>Announcements</i>\n"
        "\n"
        "Corvid Labs, which designs accelerator chips for training and inference, has joined the Lumen Foundation as a Premier member.\n"
        "\n"
        "Corvid Labs has shipped support for the framework's compiler since 2024. In the meantime, Corvid Labs has worked with maintainers on the new back-end API, contributing kernels, tests and documentation that other vendors now build on.\n"
        "\n"
        "Its engineers will join the hardware working group this autumn."
    ),
    (PRESS_RELEASE.key, Format.TITLE): (
        '<b><a href="https://blog.lumen.example/lisbon-open-model-stack/">Acme Compute, Borealis AI and Corvid Labs Meet in Lisbon to Grow the Open Model Stack</a></b>\n'
        "Lumen Blog · Lumen Foundation · 8 Sep 2026"
    ),
    (PRESS_RELEASE.key, Format.FULL): (
        '<b><a href="https://blog.lumen.example/lisbon-open-model-stack/">Acme Compute, Borealis AI and Corvid Labs Meet in Lisbon to Grow the Open Model Stack</a></b>\n'
        "Lumen Blog · Lumen Foundation · 8 Sep 2026\n"
        "<i>Announcements · Press Release</i>\n"
        "\n"
        "<i>New members bring chips, clouds and compilers to the open model stack</i>\n"
        "\n"
        "• Acme Compute and Corvid Labs joined the Lumen Foundation as Premier members.\n"
        "• Borealis AI joined as a General member.\n"
        "• Keynotes on compilers, serving and training at scale open LumenConf Europe.\n"
        "\n"
        "LISBON – The Lumen Foundation, home of the open model framework, announced the new memberships Sept. 8 at LumenConf Europe in Lisbon."
    ),
    (COMMUNITY.key, Format.TITLE): (
        '<b><a href="https://blog.lumen.example/pune-meetup/">Lumen × Sprocket in Pune: Training the Next Wave of Compiler Contributors</a></b>\n'
        "Lumen Blog · Priya Raman · 7 Sep 2026"
    ),
    (COMMUNITY.key, Format.FULL): (
        '<b><a href="https://blog.lumen.example/pune-meetup/">Lumen × Sprocket in Pune: Training the Next Wave of Compiler Contributors</a></b>\n'
        "Lumen Blog · Priya Raman · 7 Sep 2026\n"
        "<i>Community</i>\n"
        "\n"
        "<b>TL;DR:</b> More than two hundred engineers met in Pune for talks and hands-on labs, and twelve first-time contributors landed their first compiler patches.\n"
        "\n"
        "The day opened with a talk on profiling: what you cannot measure, you cannot speed up. Mentors then paired newcomers with maintainers.\n"
        "\n"
        "<b>What we learned</b>\n"
        "\n"
        "• Start with a failing test.\n"
        "• Ask for review early."
    ),
}


@pytest.mark.parametrize("form", [Format.TITLE, Format.FULL])
@pytest.mark.parametrize("item", [MEMBERSHIP, PRESS_RELEASE, COMMUNITY], ids=lambda i: i.key[-6:])
def test_seed_post_messages_in_the_other_formats(item: ParsedItem, form: Format) -> None:
    feed = FeedInfo("lumen", "Lumen Blog")
    message = render_change(Change(ChangeKind.NEW, item), feed, form=form)
    assert message == OTHER_FORMATS[(item.key, form)]
    assert_valid_telegram_html(message)
