"""Feed URLs shown without their secrets, and the one check of what may be fetched."""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.feeds.parse import parse_feed
from bot.core.urls import off_placeholder, redact_urls, safe_link, shown_url, url_problem

SECRET = "https://deploy:s3cret@feeds.example:8443/private/feed.xml?token=abc#top"


def test_a_chat_sees_neither_credentials_nor_query() -> None:
    assert shown_url(SECRET) == "https://feeds.example:8443/private/feed.xml?…#top"


def test_an_operator_sees_the_query_but_not_the_credentials() -> None:
    assert shown_url(SECRET, operator=True) == (
        "https://feeds.example:8443/private/feed.xml?token=abc#top"
    )


def test_a_url_without_port_or_query_is_shown_as_it_is() -> None:
    assert shown_url("https://blog.example/feed/") == "https://blog.example/feed/"
    assert shown_url("https://blog.example/feed/", operator=True) == "https://blog.example/feed/"


def test_ipv6_hosts_keep_their_brackets() -> None:
    assert shown_url("http://u:p@[2001:db8::1]:8080/feed") == "http://[2001:db8::1]:8080/feed"
    assert shown_url("http://[2001:db8::1]/feed") == "http://[2001:db8::1]/feed"


def test_a_url_without_host_stays_without_one() -> None:
    assert shown_url("file:///etc/passwd") == "file:///etc/passwd"


def test_an_unparsable_url_is_redacted_by_pattern() -> None:
    broken = "https://user:pw@host.example:99999/feed?key=1"
    assert shown_url(broken) == "https://…@host.example:99999/feed?…"
    assert shown_url(broken, operator=True) == "https://host.example:99999/feed?key=1"


def test_log_lines_lose_credentials_and_queries_of_every_url() -> None:
    line = (
        "fetch https://bot:hunter2@a.example/feed?token=1 failed, "
        "then HTTP://b.example/x?sig=2&u=3 and https://c.example/plain"
    )
    assert redact_urls(line) == (
        "fetch https://…@a.example/feed?… failed, then HTTP://b.example/x?… and https://c.example/plain"
    )


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://blog.example/feed", None),
        ("HTTP://blog.example/feed", None),
        ("ftp://blog.example/feed", "only http and https URLs are fetched, not 'ftp'"),
        ("blog.example/feed", "only http and https URLs are fetched, not 'none'"),
        ("https:///feed", "the URL has no host name"),
        ("https://blog.example:99999/feed", "invalid URL: Port out of range 0-65535"),
    ],
)
def test_url_problem_names_the_reason(url: str, problem: str | None) -> None:
    assert url_problem(url) == problem


def test_url_problem_messages_are_bounded() -> None:
    problem = url_problem("http://host.example:" + "9x" * 300 + "/feed")
    assert problem is not None and problem.startswith("invalid URL: Port could not be cast")
    assert len(problem) == 300


def _safe_link_by_every_character(value: str) -> str | None:
    """safe_link as first written: format characters quoted, then every character checked."""
    link = "".join(quote(ch) if unicodedata.category(ch) == "Cf" else ch for ch in value.strip())
    if url_problem(link) is not None:
        return None
    if any(ch.isspace() or ord(ch) < 32 for ch in link) or len(link) > 2000:
        return None
    return link


@given(
    st.sampled_from(["https://a.example/", "http://b.example:8080/x?y=", "ftp://c/", ""]),
    st.text(
        st.characters(categories=["L", "N", "P", "S", "Zs", "Zl", "Zp", "Cc", "Cf"]),
        max_size=30,
    ),
)
def test_the_quick_path_for_printable_links_changes_no_answer(start: str, rest: str) -> None:
    value = start + rest
    assert safe_link(value) == (_safe_link_by_every_character(value) if value else None)


def test_a_placeholder_host_moves_to_the_host_the_feed_came_from() -> None:
    link = "http://yourdomain.com/2016/06/24/post.html?x=1#top"
    assert off_placeholder(link, "https://dewet.example/feed.xml") == (
        "https://dewet.example/2016/06/24/post.html?x=1#top"
    )
    assert off_placeholder("http://www.your-site.com/a", "http://127.0.0.1:8080/f") == (
        "http://127.0.0.1:8080/a"
    )


def test_real_hosts_example_hosts_localhost_and_no_better_base_stay() -> None:
    for link in ("https://blog.real.org/a", "http://localhost:4000/a", "https://example.com/a"):
        assert off_placeholder(link, "https://dewet.example/feed.xml") == link
    link = "http://yourdomain.com/a"
    for base in ("", "http://yourdomain.com/feed", "ftp://files.example/feed", "not a url"):
        assert off_placeholder(link, base) == link


def test_a_feed_s_placeholder_links_work_and_keep_their_keys() -> None:
    body = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>B</title>'
        b"<link>http://yourdomain.com</link><item><title>Post</title>"
        b"<link>http://yourdomain.com/2016/06/24/post.html</link></item></channel></rss>"
    )
    moved = parse_feed(body, {}, "https://dewet.example/feed.xml").items[0]
    kept = parse_feed(body, {}, "").items[0]
    assert moved.link == "https://dewet.example/2016/06/24/post.html"
    assert kept.link == "http://yourdomain.com/2016/06/24/post.html"
    assert moved.key == kept.key  # no stored post is announced again


def test_a_json_feed_s_placeholder_links_work_too() -> None:
    body = (
        b'{"version": "https://jsonfeed.org/version/1.1", "title": "B", "items": [{"id": "1", '
        b'"url": "http://yourdomain.com/p/1", "content_text": "Hello there."}]}'
    )
    item = parse_feed(body, {}, "https://dewet.example/feed.json").items[0]
    assert item.link == "https://dewet.example/p/1"


def test_a_base_without_a_host_or_on_a_placeholder_itself_changes_nothing() -> None:
    link = "http://yourdomain.com/a"
    assert off_placeholder(link, "http:///feed.xml") == link
    assert off_placeholder(link, "https://yourdomain.com/feed.xml") == link
