"""Where the adapter's shared code names a table format.

Counts the lines of code (comments and docstrings left aside) that name
Hudi, Iceberg or Delta in the adapter's Python and macros, outside the
format's own package (adapter/dbt/adapters/lakehouse/formats/<format>/ and
macros/formats/<format>/) and the registry of formats (formats/registry.py,
and formats/__init__.py, which registers them). Delta counts as the format,
not as Hudi's delta commits and logs, a change's delta or a timedelta.

    python tools/format_names.py            # a line per format, and per file
    python tools/format_names.py --lines    # every counted line
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "adapter" / "dbt"
PACKAGE = ROOT / "adapters" / "lakehouse"
MACROS = ROOT / "include" / "lakehouse" / "macros"
REGISTRY = {PACKAGE / "formats" / "registry.py", PACKAGE / "formats" / "__init__.py"}

NAMES = {
    "hudi": re.compile(r"hudi|hoodie", re.IGNORECASE),
    "iceberg": re.compile(r"iceberg", re.IGNORECASE),
    # Delta the format: not Hudi's delta commits / log files, not a delta of values.
    "delta": re.compile(
        r"(?<!time)delta(?![ ._]?commit|[ _]?log[ _]?file| logs?\b|s\b|s? of|[._]seconds|_rows)",
        re.IGNORECASE,
    ),
}


def python_code(path: Path) -> list[tuple[int, str]]:
    """The lines of a Python file with comments and docstrings blanked."""
    source = path.read_text()
    lines = source.splitlines()
    blank: set[int] = set()
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
        # A string that is a statement of its own is a docstring.
        if token.type == tokenize.STRING and previous in (
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.NL,
        ):
            blank.update(range(token.start[0], token.end[0] + 1))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.type
    return [(n, line) for n, line in enumerate(lines, 1) if n not in blank]


def sql_code(path: Path) -> list[tuple[int, str]]:
    """The lines of a macro file with jinja and SQL comments blanked."""
    text = re.sub(
        r"\{#.*?#\}", lambda m: "\n" * m.group(0).count("\n"), path.read_text(), flags=re.S
    )
    return [(n, re.sub(r"--.*", "", line)) for n, line in enumerate(text.splitlines(), 1)]


def own_package(path: Path) -> str | None:
    """The format whose own package holds `path`, if any."""
    for base in (PACKAGE / "formats", MACROS / "formats"):
        if base in path.parents:
            return path.relative_to(base).parts[0]
    return None


def count() -> tuple[Counter[str], Counter[tuple[str, str]], list[str]]:
    by_format: Counter[str] = Counter()
    by_file: Counter[tuple[str, str]] = Counter()
    shown: list[str] = []
    files = [(p, python_code) for p in PACKAGE.rglob("*.py")]
    files += [(p, sql_code) for p in MACROS.rglob("*.sql")]
    for path, reader in sorted(files):
        if path in REGISTRY:
            continue
        owner = own_package(path)
        name = str(path.relative_to(ROOT))
        for number, line in reader(path):
            for fmt, pattern in NAMES.items():
                if fmt != owner and pattern.search(line):
                    by_format[fmt] += 1
                    by_file[(fmt, name)] += 1
                    shown.append(f"{name}:{number}: [{fmt}] {line.strip()}")
    return by_format, by_file, shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", action="store_true", help="print every counted line")
    args = parser.parse_args()
    by_format, by_file, shown = count()
    if args.lines:
        print("\n".join(shown))
        return 0
    for fmt in NAMES:
        files = [name for (f, name) in by_file if f == fmt]
        print(f"{fmt}: {by_format[fmt]} lines in {len(files)} files")
    for (fmt, name), n in sorted(by_file.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:4} {fmt:8} {name}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # its reader stopped early (`| head`): not an error
        sys.exit(0)
