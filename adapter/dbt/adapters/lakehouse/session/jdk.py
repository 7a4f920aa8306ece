"""The JDK's tools the adapter runs (java, javac, jcmd), and the small jars it
writes into the jar cache."""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Iterable
from pathlib import Path


def tool(name: str) -> Path | None:
    """JAVA_HOME's `bin/<name>` (the JDK pyspark starts), else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / name).is_file():
        return Path(home) / "bin" / name
    found = shutil.which(name)
    return Path(found) if found else None


def write_jar(target: Path, entries: Iterable[tuple[str, bytes]]) -> None:
    """A jar (a zip; no manifest is needed) of `entries` (name in the jar,
    content), written beside `target` and renamed: another process starting at
    the same time sees all of it or none of it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    with zipfile.ZipFile(partial, "w") as archive:
        for name, content in entries:
            archive.writestr(name, content)
    os.replace(partial, target)
