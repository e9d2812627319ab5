"""The command line (`python -m bot …`, installed as `feedwatch`).

- `main`: the parser; each command's module is imported only when it runs
- `feeds`: `feed add|list|set|…`, the operator's commands for watched feeds
- `errors`: the CLI's one-line failure
- `poll`: `poll --once [--dry-run]`, every feed polled once
- `preview`: `preview URL_OR_FILE`, what chats would read, without a database
- `health`: `health`, is the database reachable and is polling alive
"""
