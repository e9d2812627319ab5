"""`./dev mutate`: mutation testing of the pure core, scored per file.

Runs mutmut (configured in pyproject.toml: every mutant of `bot/core`, killed by `tests/core`
alone), then reads its verdicts and prints, for each file, the mutants killed out of those that
count. Mutants listed in `tests/mutation-equivalents.txt` (one name per line, `#` and the reason
after it) cannot be killed by any test (they behave exactly like the original) and do not count.
A mutant that no core test runs counts as surviving.

    python -m tests.mutation               # every file; exit 1 below the thresholds
    python -m tests.mutation --report      # score the last run again without re-running
    python -m tests.mutation bot/core/text.py bot/core/messages/render.py   # only these files
    python -m tests.mutation --changed HEAD~3   # only bot/core files changed since that commit
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = ROOT / "tests" / "mutation-equivalents.txt"
META = ROOT / "mutants" / "bot" / "core"
OVERALL_MIN = 90.0
PER_FILE_MIN = 85.0
# mutmut's own reading of a mutant's exit code (mutmut.stats.status_by_exit_code)
KILLED = {"killed", "timeout", "segfault", "caught by type check"}


@dataclass
class Score:
    killed: int = 0
    counted: int = 0
    equivalent: int = 0

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.counted if self.counted else 100.0


def equivalents() -> set[str]:
    names = set()
    for line in EQUIVALENTS.read_text(encoding="utf-8").splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.add(name)
    return names


def scores(files: list[str]) -> tuple[dict[str, Score], list[str], list[str]]:
    """Per-file scores, the surviving mutants, and problems with the equivalents list."""
    skip = equivalents()
    table: dict[str, Score] = {}
    survivors: list[str] = []
    problems: list[str] = []
    seen: set[str] = set()
    for meta in sorted(META.rglob("*.py.meta")):
        source = f"bot/core/{meta.relative_to(META).as_posix().removesuffix('.meta')}"
        if files and source not in files:
            continue
        verdicts = json.loads(meta.read_text())["exit_code_by_key"]
        score = table.setdefault(source, Score())
        for name, code in verdicts.items():
            seen.add(name)
            if name in skip:
                score.equivalent += 1
                if status_of(code) in KILLED:  # the code changed and the name moved on
                    problems.append(f"{name} is listed as equivalent but a test kills it")
                continue
            score.counted += 1
            if status_of(code) in KILLED:
                score.killed += 1
            else:  # survived, no tests, not checked, suspicious
                survivors.append(name)
    if not files:
        problems += [f"{name} is listed as equivalent but no longer exists" for name in skip - seen]
    return {k: v for k, v in table.items() if v.counted or v.equivalent}, survivors, problems


def status_of(code: int | None) -> str:
    from mutmut.stats import status_by_exit_code  # only installed with the dev extras

    return str(status_by_exit_code[code])


def report(table: dict[str, Score], survivors: list[str], problems: list[str]) -> bool:
    total = Score()
    print(f"{'file':28} {'killed':>7} {'of':>5} {'equiv.':>6} {'score':>7}")
    passed = True
    for source, score in table.items():
        total.killed += score.killed
        total.counted += score.counted
        total.equivalent += score.equivalent
        low = score.percent < PER_FILE_MIN
        passed &= not low
        flag = f"  < {PER_FILE_MIN:.0f}%" if low else ""
        print(
            f"{source:28} {score.killed:7} {score.counted:5} {score.equivalent:6} "
            f"{score.percent:6.1f}%{flag}"
        )
    passed &= total.percent >= OVERALL_MIN
    print(
        f"{'all':28} {total.killed:7} {total.counted:5} {total.equivalent:6} "
        f"{total.percent:6.1f}%  (needs {OVERALL_MIN:.0f}% overall, {PER_FILE_MIN:.0f}% per file)"
    )
    if survivors:
        print(f"\n{len(survivors)} surviving (see one with `.venv/bin/mutmut show NAME`):")
        for name in survivors:
            print(f"  {name}")
    if problems:
        print(f"\n{EQUIVALENTS.name} is out of date:")
        for problem in problems:
            print(f"  {problem}")
    return passed and not problems


def changed_core_files(ref: str) -> list[str]:
    """Python files under bot/core that differ between `ref` and the work tree (still present)."""
    listed = subprocess.run(
        ["git", "diff", "--name-only", ref, "--", "bot/core"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sorted(f for f in listed if f.endswith(".py") and (ROOT / f).exists())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="only these bot/core files")
    parser.add_argument("--report", action="store_true", help="score the last run only")
    parser.add_argument("--jobs", type=int, default=2, help="mutmut's parallel children")
    parser.add_argument("--changed", metavar="REF", help="only bot/core files changed since REF")
    args = parser.parse_args(argv)
    files = [str(Path(f)) for f in args.files]
    if args.changed:
        files = changed_core_files(args.changed)
        if not files:
            print(f"no bot/core file changed since {args.changed}: nothing to mutate")
            return 0
        print(f"mutating the bot/core files changed since {args.changed}: {', '.join(files)}")
    if not args.report:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)  # no stale verdicts
        command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs)]
        if files:
            modules = [f.removesuffix(".py").replace("/", ".") for f in files]
            command += [f"{module}.*" for module in modules]
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            print(f"mutmut failed (exit {done.returncode})", file=sys.stderr)
            return done.returncode
    return 0 if report(*scores(files)) else 1


if __name__ == "__main__":
    sys.exit(main())
