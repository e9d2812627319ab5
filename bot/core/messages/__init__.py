"""What a chat reads: a post's summary and the Telegram HTML around it.

- `blocks`: a post's HTML as the blocks a reader sees
- `boilerplate`: which opening blocks are the author's summary, the lede, or noise
- `summary`: the summary a message shows
- `inline`: a summary's runs of text as Telegram HTML (escaped, styled, linked)
- `sentences`: where sentences end, and how wide text is on a phone
- `machinery`: lines that say nothing the title does not (sponsors, counters, labels…)
- `point`: the post's point first: hooks and background before the news skipped
- `links`: a summary's links, relative ones resolved, at most a few shown
- `header`: a message's name for the post, its author and the categories worth a line
- `render`: a change → a Telegram message
- `edit_render`: an edit's prefix and body under the message's header
- `worddiff`: the changed words inside a changed sentence, marked
- `explain`: an edit said in one line, and whether a model's line is grounded in it
- `digest`: a period's posts → one digest message
- `ranked`: a chat's feeds' period → one digest, ranked for that chat
- `opening`: the ranked digest's opening paragraph, and when a model's is refused
- `paging`: a long reply split into messages Telegram accepts
- `escape`: the one escape for Telegram HTML
- `article`: a post's web page → its article (full text)
- `fulltext`: which pages to read, and how an article joins its post
- `modeltext`: what the operator's language model is asked and how its answer is read
- `media`: albums, playable episodes and videos, or an enclosure's line, and their limits
- `telegraph`: a long post's HTML → a Telegraph page's Nodes, through an allow-list
- `notices`: a post withdrawn from its site (or back), the "Follow changes" button's label
"""
