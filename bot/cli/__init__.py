"""The command line (`python -m bot …`, installed as `feedwatch`).

- `main`: the parser and one function per command
- `preview`: `preview URL_OR_FILE`, what chats would read, without a database
- `health`: `health`, is the database reachable and is polling alive
"""
