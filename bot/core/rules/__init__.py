"""What a chat lets through, and when it is told.

- `filters`: category and keyword filters (`/filter`, `/keywords`)
- `fields`: field rules (`/filter FEED title:release -author:bot text:/v2/`)
- `quiet`: quiet hours (a window in the chat's zone when messages are held)
- `leaving`: how long a left subscription can be undone and keeps its settings
"""
