"""Guards for the layout: a pure core, and documentation that lists every setting."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_CORE = {
    "telegram",
    "httpx",
    "httpcore",
    "sqlmodel",
    "sqlalchemy",
    "aiohttp",
    "asyncio",
    "socket",
    "bot.db",
    "bot.fetch",
    "bot.services",
    "bot.telegram",
}


def test_core_is_pure() -> None:
    for path in sorted((ROOT / "bot" / "core").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not any(
                    name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_IN_CORE
                ), f"{path.name} imports {name}"
            if isinstance(node, ast.Attribute) and node.attr in {"now", "utcnow", "today"}:
                raise AssertionError(f"{path.name} reads the clock; pass the time in")
            assert not isinstance(node, ast.Await | ast.AsyncFunctionDef), f"{path.name} does I/O"


def test_every_setting_is_documented() -> None:
    readme = (ROOT / "README.md").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        variable = name.upper()
        assert f"`{variable}`" in readme, f"{variable} missing from the README"
        assert f"{variable}=" in example, f"{variable} missing from .env.example"
