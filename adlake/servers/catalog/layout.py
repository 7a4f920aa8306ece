"""Where a catalog folder keeps its files, the catalog's names, and the
error its commands raise."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from adlake import ROOT

DEFAULT_DIR = ROOT / ".cache" / "catalog"
JARS_DIR = ROOT / ".cache" / "jars"

PASSWORD_ENV = "LAKEHOUSE_CATALOG_PASSWORD"
OS_USER_ENV = "LAKEHOUSE_CATALOG_OS_USER"
ROLE = "lakehouse"
DATABASE = "metastore"
HOST = "127.0.0.1"


class CatalogError(Exception):
    """A failure with a message meant for the user."""


@dataclass(frozen=True)
class Layout:
    """The files and folders of a catalog folder. One property a path: the
    properties are alike in shape, each names a different entry."""

    root: Path

    @property
    def pgdata(self) -> Path:
        return self.root / "pgdata"

    @property
    def run(self) -> Path:  # the Unix socket's folder
        return self.root / "run"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def server_log(self) -> Path:
        return self.logs / "postgres.log"

    @property
    def pid_file(self) -> Path:
        return self.root / "postgres.pid"

    @property
    def state_file(self) -> Path:
        return self.root / "catalog.json"

    @property
    def password_file(self) -> Path:
        return self.root / "password"


def layout(directory: Path | None = None) -> Layout:
    return Layout(Path(directory or DEFAULT_DIR).resolve())


def read_state(lay: Layout) -> dict:
    try:
        return json.loads(lay.state_file.read_text())
    except FileNotFoundError:
        return {}


def write_state(lay: Layout, state: dict) -> None:
    tmp = lay.state_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    tmp.replace(lay.state_file)
