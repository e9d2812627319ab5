"""Sequencing: each service reads from storage, calls the pure core, and writes back, in order.
No PTB here: the same use cases run from a chat, the CLI, a benchmark or a test.

Polling:
- `scheduler`: the steady schedule, due feeds claimed in small batches
- `polling`: one poll cycle (claim → fetch → decide → enrich → write)
- `poll_result`: one feed's result: read, plan and route once; render; write in one transaction
- `outcome`: what one poll of one feed came to (all a quiet poll loads of the two above)
- `quiet_polls`: the polls that found nothing new (304, the same body), written in one batch
- `enrich`: what the routed new posts get besides the feed (pages, the model's texts)
- `articles`: full text, each new post's page read once through the guard
- `pageworkers`: pages' articles extracted in worker processes killed at a deadline
- `models`: the operator's language model, each new post's texts asked once
- `explanations`: the model explaining a substantive edit in one sentence, per language
- `model_budget`: the model's hourly budget for every process, in shares
- `telegraph`: long posts as Telegraph pages (published, edited, or the cut message)
- `cpu`: the small pool CPU-bound parsing runs in
- `loops`: the background loops every process runs (poll, deliver)
- `watch`: after the polls, followed posts' pages and withdrawal checks

Delivery:
- `outbox`: the one planner, (event | backlog | digest) × audience → outbox rows
- `delivery`: the outbox walked to the chats, in order per chat, never losing a message
- `marks`: "sent" marks written together
- `retries`: when a failed message is tried again
- `messenger`: what delivery needs from a chat service, as plain values
- `ranked`: one ranked digest across a chat's feeds (`/digest all`), the model's opening
- `stories`: one story, one message: a post repeating one sent from another feed folded
- `digests`: held messages turned into digests when a period ends
- `quiet`: what quiet hours held, released when the window ends

Chats and feeds:
- `catalog`: the watched feeds (add, import, move, remove)
- `discovery`: subscribe by address (a watched feed, a new feed, a page linking feeds)
- `subscribing`: what a chat follows, and how
- `leaving`: Undo after leaving a feed; left subscriptions forgotten after a while
- `chats`: a chat's own settings
- `follows`: following one post's changes (follow, stop, list)
- `tuning`: reactions that tune: weights, a feed muted for a day, a 👎's offers
- `search`: /search, a chat's posts found by any version of their text
- `indexing`: the search rows of committed polls, written a batch at a time (SQLite)

Shared:
- `run`: the one way the async layers reach the database (a thread, a transaction)
- `wiring`: settings → logging → database (migrated) → fetcher, for every command
"""
