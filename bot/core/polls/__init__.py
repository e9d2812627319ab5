"""What one poll means for a feed, and when the next one runs.

- `plan`: one poll planned at once (the feed's intent, every item write, the changes)
- `fanout`: who receives each change (rules, quiet hours, the per-chat flood rule), before
  anything is fetched for it
- `decide`: a fetch result + the feed's state → the feed's intent
- `schedule`: the next check (interval, caching hints, backoff, Retry-After)
- `pacing`: how many feeds a scheduler may claim now
- `alerts`: when operators hear about a failing, gone or moved feed, or one that spent a
  share of the model
- `follows`: following one post: its period, the limit, when its page is read, what is news
- `duplicates`: one story, one message: a new post that repeats one sent from another feed
- `tuning`: what a 👍 or 👎 on a post's message changes (weights, mute, offers)
- `shares`: who may spend the model's calls this hour (per feed, per person, operators first)
"""
