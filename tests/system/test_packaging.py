"""A first install is quiet: building the package prints no setuptools warnings (issue 25,
item 7: 133 lines of "Package would be ignored" for the catalogs), and the wheel carries them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_building_the_wheel_warns_about_nothing_and_ships_the_catalogs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path), "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "would be ignored" not in done.stdout + done.stderr
    (wheel,) = tmp_path.glob("feedwatch-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"bot/locale/messages.pot", "bot/py.typed"} <= names
    assert {
        "bot/locale/es/LC_MESSAGES/messages.po",
        "bot/locale/zh/LC_MESSAGES/messages.po",
    } <= names
