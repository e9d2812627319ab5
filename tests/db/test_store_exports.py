"""`bot.db.store` loads its modules on first use (issue 48): every name the type checker sees
re-exported is in `EXPORTS` under the module that holds it, and `store.name` is that object."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from bot.db import store

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "bot" / "db" / "store" / "__init__.py"


def type_checked_exports() -> dict[str, tuple[str, ...]]:
    """The imports under `if TYPE_CHECKING:`, by module: what mypy sees re-exported."""
    found: dict[str, list[str]] = {}
    for node in ast.parse(INIT.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imported in node.body:
                assert isinstance(imported, ast.ImportFrom) and imported.module
                module = imported.module.removeprefix("bot.db.store.")
                for alias in imported.names:
                    assert alias.asname == alias.name, f"{alias.name} is not re-exported"
                    found.setdefault(module, []).append(alias.name)
    return {module: tuple(names) for module, names in found.items()}


def test_exports_list_every_name_the_type_checker_sees_under_its_module() -> None:
    assert type_checked_exports() == store.EXPORTS


@pytest.mark.parametrize("module", sorted(store.EXPORTS))
def test_each_name_is_the_object_its_module_holds(module: str) -> None:
    home = importlib.import_module(f"bot.db.store.{module}")
    for name in store.EXPORTS[module]:
        assert getattr(store, name) is getattr(home, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = store.nothing_here  # type: ignore[attr-defined]
    assert not hasattr(store, "nothing_here")


def test_importing_the_package_loads_none_of_its_modules() -> None:
    probe = (
        "import sys, bot.db.store as s; "
        "print(sorted(m for m in sys.modules if m.startswith('bot.db.store.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"
