"""`point.py` rule by rule, at its bounds: how title words are compared, how short a hook is,
how far the opening is read, when history and news move the start. Our own sentences."""

from __future__ import annotations

from bot.core.messages.blocks import Block, LazyBlocks, Run
from bot.core.messages.point import (
    HOOK_WORDS,
    QUESTION_CHARS,
    WINDOW,
    WINDOW_CHARS,
    _inside_link,
    _names_better,
    _news_later,
    _opens_aside,
    _skippable,
    is_hook,
    opening_sentences,
    point_start,
    shared,
    tail_runs,
    title_words,
    to_the_point,
)


def p(text: str) -> Block:
    return Block("p", (Run(text),))


def test_title_words_drop_short_and_function_words_and_a_plural_s() -> None:
    assert title_words("Customers of the bus class get news") == {
        "customer", "bus", "class", "get", "news"
    }  # fmt: skip
    assert title_words("An ox is here") == set()  # "an", "ox", "is": shorter than three letters
    assert title_words("ＡＢＣＤＥ ｂｕｓｅｓ") == {"abcde", "buse"}  # full-width letters, NFKC
    assert shared("Two customers wrote.", title_words("A customer")) == 1
    assert shared("anything", frozenset()) == 0


def test_a_hook_exclamation_and_question_at_their_bounds() -> None:
    words = title_words("Kettle timer")
    assert is_hook(" ".join(["Wow"] * HOOK_WORDS) + "!", words)
    assert not is_hook(" ".join(["Wow"] * (HOOK_WORDS + 1)) + "!", words)
    question = "Hey, remember " + "a" * (QUESTION_CHARS - len("Hey, remember ?")) + "?"
    assert len(question) == QUESTION_CHARS and is_hook(question)
    assert not is_hook(question[:-1] + "a?")
    assert not is_hook("Kettle now!", words)  # names the title
    assert is_hook("Kettle now!")  # without a title, nothing is named


def test_the_opening_is_read_for_four_sentences_and_600_characters() -> None:
    blocks = [p("One here. Two here."), p("Three here. Four here. Five here.")]
    found = opening_sentences(blocks)
    assert len(found) == WINDOW and found[-1] == (1, 11, 22)
    assert opening_sentences([p("One here."), Block("li", (Run("Item."),)), p("Two.")]) == [
        (0, 0, 9)
    ]
    long = p("A" * (WINDOW_CHARS + 50) + ". Next one.")
    assert opening_sentences([long]) == []  # the cut is not a sentence's end
    exact = p("Short one. " + "B" * (WINDOW_CHARS - 11))  # 600 characters: all read
    assert opening_sentences([exact]) == [(0, 0, 10), (0, 10, WINDOW_CHARS)]
    over = p("Short one. " + "B" * (WINDOW_CHARS - 10))  # one more: its end is not read
    assert opening_sentences([over]) == [(0, 0, 10)]


def test_the_start_moves_only_for_the_shapes_and_at_their_bounds() -> None:
    assert point_start([], "Kettle") == 0
    assert point_start(["Oops!", "Kettle 2 has a timer now."], "Kettle") == 1
    assert point_start(["Hey, how are you?", "Kettle 2 has a timer now."], "Kettle") == 1
    assert point_start(["Kettle 2 has a timer now.", "Today we launch it."], "Kettle") == 0
    # the hook names a title word: it stays (and the news does not name two more)
    assert point_start(["Kettle!", "We launch the kettle today."], "Kettle timer") == 0
    assert point_start(["Oops!", "It has a timer."], "Kettle") == 1  # past a hook, the title's
    assert point_start(["In my last post I built it.", "It has a timer."], "Kettle") == 0
    assert point_start(["Oops!", "Timer works."], "Kettle") == 0  # two words: too few to open


def test_skippable_is_any_of_the_three_shapes() -> None:
    words = title_words("Kettle")
    assert _skippable("Oops!", words)
    assert _skippable("In my last post I set up the build.", words)
    assert _skippable("Last year we moved the servers.", words)
    assert not _skippable("Kettle now!", words)
    assert not _skippable("The timer works.", words)


def test_history_gives_way_only_to_a_better_sentence() -> None:
    words = title_words("Faster map tiles")
    history = ["Last week we heard the map tiles load slowly.", "Oops!", "Tiles are quick."]
    assert not _names_better(history, 0, words)  # "tile" only, against "map tile"
    history[2] = "We are replacing the map tiles with faster ones."
    assert _names_better(history, 0, words)  # states news
    assert not _names_better(["Last week we met.", "Oops!"], 0, words)  # nothing follows
    assert _names_better(["Oops!", "Last week we met.", "Faster map tiles."], 1, words)


def test_the_news_later_rule_at_its_bounds() -> None:
    words = title_words("Google Play closes Android bounty")
    base = "Bugs hide in apps."
    news = "Today Google announced the Play bounty closes."  # names google, play, bounty, close
    assert _news_later([base, news], words) == 1
    assert _news_later([news, base], words) == 0  # the opening is the news
    assert _news_later(["Google Play paid well.", news], words) == 0  # the opening names two
    assert _news_later(["Play paid well.", news], words) == 1  # one name: still background
    two = "Today we launch Google things."  # names google: one more than the opening
    assert _news_later([base, two], words) == 0
    exactly = "Today we launch Google Play."  # names google, play: exactly two more
    assert _news_later([base, exactly], words) == 1
    assert _news_later(["Play games.", exactly], words) == 0  # one more than "play"


def test_aside_openings_are_questions_exclamations_and_shapes() -> None:
    assert _opens_aside("Why now?")
    assert _opens_aside("Oops!")
    assert _opens_aside("Here is the big news.")
    assert not _opens_aside("The kettle works.")


def test_to_the_point_keeps_the_block_s_kind_number_and_styles() -> None:
    quote = Block(
        "p", (Run("Oops! "), Run("Kettle 2 has a timer now.", italic=True, code=True)), None
    )
    kept = list(to_the_point([quote, Block("li", (Run("Timer."),), 3)], "Kettle"))
    assert kept[0] == Block("p", (Run("Kettle 2 has a timer now.", None, False, True, True),))
    assert kept[1] == Block("li", (Run("Timer."),), 3)
    lazy = LazyBlocks(iter([p("Oops! Kettle 2 has a timer now.")]))
    assert [b.text for b in to_the_point(lazy, "Kettle")] == ["Kettle 2 has a timer now."]


def test_tail_runs_at_a_run_s_boundary() -> None:
    runs = (Run("Oops!"), Run(" Kettle", bold=True, italic=True))
    assert tail_runs(runs, 5) == (Run("Kettle", None, True, True),)
    assert tail_runs(runs, 12) == ()


def test_inside_a_link_is_strictly_inside_its_text() -> None:
    runs = (Run("For "), Run("try! Swift", "https://c.example/"), Run(", we go."))
    assert _inside_link(runs, 9)  # after "try!"
    assert not _inside_link(runs, 4)  # the link's start
    assert not _inside_link(runs, 14)  # the link's end
    assert not _inside_link(runs, 2)  # plain text
    assert not _inside_link(runs, 40)  # past the end
    spaced = (Run("A"), Run("  B", "https://c.example/"))
    assert not _inside_link(spaced, 2)  # only spaces of the link before: at its start


def test_it_opens_after_a_hook_only_and_never_after_a_question() -> None:
    # skipped as thanks, but it names the title: not a hook, so "It" leans on it
    assert point_start(["Thanks all, Kettle fans!", "It has a timer now."], "Kettle timer") == 0
    # a question among the skipped ones, even with a space after its mark
    assert point_start(["So you bake? ", "Yay!", "It is a kiln now."], "Emberline") == 0
    assert point_start(["Yay!", "It is a kiln now."], "Emberline") == 1
    # three words are enough to open at
    assert point_start(["Oops!", "Kettle has timers."], "Brew") == 1
