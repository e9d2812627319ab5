"""Guards for the layout: a pure core, and documentation that lists every setting."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.runtime.config import Settings

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
    "bot.net.fetch",
    "bot.services",
    "bot.telegram",
    # Article extraction is handed HTML we fetched; trafilatura's downloader would bypass the
    # SSRF guard and the size limits (core/messages/article.py).
    "trafilatura.downloads",
    "urllib3",
}


def test_core_is_pure() -> None:
    for path in sorted((ROOT / "bot" / "core").rglob("*.py")):
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
    """Each setting has its row in docs/configuration.md and its line in .env.example."""
    documented = (ROOT / "docs" / "configuration.md").read_text()
    example = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        variable = name.upper()
        assert f"| `{variable}` |" in documented, f"{variable} missing from docs/configuration.md"
        assert f"{variable}=" in example, f"{variable} missing from .env.example"


def _bot_modules() -> dict[str, Path]:
    modules = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every bot module `path` imports, at any depth (a late import inside a function counts:
    it only hides a cycle), except under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text())
    skipped = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot"):
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in modules else node.module)
    return found & set(modules)


def test_no_import_cycles_inside_bot() -> None:
    modules = _bot_modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycle = [*trail[trail.index(name) :], name]
            raise AssertionError("import cycle: " + " → ".join(cycle))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_no_module_over_400_lines_and_no_class_over_150() -> None:
    for name, path in _bot_modules().items():
        text = path.read_text()
        assert len(text.splitlines()) <= 400, f"{name} has {len(text.splitlines())} lines"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                assert size <= 150, f"{name}.{node.name} has {size} lines"


def test_handlers_buttons_and_digests_never_query_tables() -> None:
    """Only storage (`bot/db/store/`) builds queries; the layers above call it."""
    above = [*(ROOT / "bot" / "telegram").rglob("*.py"), ROOT / "bot" / "services" / "digests.py"]
    for path in above:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {alias.name for alias in node.names}
                assert node.module != "bot.db.tables", f"{path.name} imports tables"
                assert not (
                    node.module in ("sqlmodel", "sqlalchemy")
                    and names & {"select", "update", "delete", "insert"}
                ), f"{path.name} builds queries"


# Each bot family's layer; a module imports only its own layer and those below. The edges next
# to storage (the network, settings, logs, metrics) sit below the services that use them; PTB
# is imported only in `bot/telegram/`; the CLI sits on top.
LAYERS = ("core", "db", "services", "telegram", "cli")
FAMILY_LAYER = {
    "core": "core",
    "runtime": "db",
    "net": "db",
    "db": "db",
    "services": "services",
    "telegram": "telegram",
    "cli": "cli",
}
# The only modules outside a family: the package itself and `python -m bot`'s entry.
LOOSE = {"bot": "db", "bot.__main__": "cli"}
# Families inside the core, and the primitives they share (a module directly in `bot/core`).
CORE_FAMILIES = {"feeds", "detection", "polls", "messages", "rules", "search"}
CORE_SHARED = {"types", "modes", "text", "urls", "lang"}


def _layer(name: str) -> str:
    if name in LOOSE:
        return LOOSE[name]
    return FAMILY_LAYER[name.split(".")[1]]


def test_every_module_sits_in_a_named_family() -> None:
    """A newcomer finds a module's job from its folder: no loose module beside the families."""
    for name in _bot_modules():
        parts = name.split(".")
        if name in LOOSE:
            continue
        assert parts[1] in FAMILY_LAYER, f"{name} sits outside the families {sorted(FAMILY_LAYER)}"
        if parts[1] == "core" and len(parts) > 2:
            assert parts[2] in CORE_FAMILIES | CORE_SHARED, (
                f"{name}: a core module outside its families"
            )


def test_package_docstrings_name_every_module() -> None:
    """Each package's docstring is its map: every module and sub-package in it is named there
    (as `name`), and nothing it names is gone."""
    import re

    for init in sorted((ROOT / "bot").rglob("__init__.py")):
        folder = init.parent
        if folder.name == "locale" or "locale" in folder.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        members = {p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "__main__")}
        members |= {p.parent.name for p in folder.glob("*/__init__.py")}
        named = set(re.findall(r"^- `([a-z0-9_]+)`", doc, re.M))
        assert members <= named, (
            f"{folder.relative_to(ROOT)}: the docstring misses {sorted(members - named)}"
        )
        assert named <= members, (
            f"{folder.relative_to(ROOT)}: the docstring names {sorted(named - members)}"
        )


def test_layers_import_only_downwards() -> None:
    """core < db < services < telegram < CLI (`__main__`, previews)."""
    modules = _bot_modules()
    for name, path in modules.items():
        mine = LAYERS.index(_layer(name))
        for target in _imports(path, modules):
            theirs = LAYERS.index(_layer(target))
            assert theirs <= mine, f"{name} ({LAYERS[mine]}) imports {target} ({LAYERS[theirs]})"


def test_ptb_is_imported_only_by_the_telegram_edge_and_the_cli() -> None:
    modules = _bot_modules()
    for name, path in modules.items():
        if _layer(name) in ("telegram", "cli"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not any(n == "telegram" or n.startswith("telegram.") for n in names), (
                f"{name} imports PTB"
            )


HANDLERS = ("bot/telegram/commands", "bot/telegram/context.py", "bot/telegram/views.py")
WRITES = ("insert", "update", "delete", "add", "merge", "enqueue", "upsert", "set_", "toggle")


def _store_functions() -> dict[str, ast.FunctionDef]:
    found = {}
    for path in (ROOT / "bot" / "db" / "store").glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                found[node.name] = node
    return found


def _writes(function: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> bool:
    """Does a store function change anything (a statement or a call that does)?"""
    for node in ast.walk(function):
        name = None
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        elif isinstance(node, ast.Name) and node.id.startswith(("_INSERT", "_UPDATE", "_DELETE")):
            return True
        if name and (name.startswith(WRITES) or name in ("commit", "flush")):
            return True
    return False


def test_handlers_change_state_only_through_services() -> None:
    """A handler parses, calls a service, renders: it may read storage for what it shows, but
    every change goes through `bot/services` (`svc.chats`, `svc.subscriptions`, the catalog)."""
    functions = _store_functions()
    paths = [
        p
        for h in HANDLERS
        for p in ((ROOT / h).rglob("*.py") if (ROOT / h).is_dir() else [ROOT / h])
    ]
    used: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "store":
                used.add(node.attr)
            if isinstance(node, ast.Attribute) and node.attr == "write":
                raise AssertionError(f"{path.name} opens a write transaction")
    assert len(used) >= 5  # the scan sees the reads
    for name in sorted(used):
        assert name in functions, name
        assert not _writes(functions[name], functions), f"a handler calls store.{name}, a write"
    assert _writes(functions["subscribe"], functions)  # the check can tell a write
    assert _writes(functions["set_paused"], functions)


def test_readme_is_read_to_the_end_and_its_links_exist() -> None:
    """The README is what a newcomer reads whole: short, both set-up commands on its first
    screen, and every document it points to present."""
    import re

    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines"
    first_screen = "\n".join(lines[:60])
    assert "./dev run" in first_screen and "./dev test" in first_screen
    for target in re.findall(r"\]\(([^)#]+)", "\n".join(lines)):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), f"README links to {target}, which is missing"


def test_every_package_is_in_the_wheel() -> None:
    """pyproject lists packages by hand (the migrations ride along under another name): a new
    folder left out installs without its modules, and the image fails at start-up."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "bot").rglob("__init__.py")
    }
    assert found - listed == set()
