"""`python -m bot …`: the command line lives in `bot/cli/`."""

import sys

from bot.cli.main import run

if __name__ == "__main__":
    sys.exit(run())
