"""The operating-system account that owns the cluster and runs its commands:
PostgreSQL refuses to run as root (the package's doc says which account)."""

from __future__ import annotations

import os
import pwd
import subprocess
from dataclasses import dataclass
from pathlib import Path

from adlake.servers.catalog.layout import OS_USER_ENV, CatalogError, Layout


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int

    @property
    def is_me(self) -> bool:
        return self.uid == os.geteuid()


def service_account(lay: Layout) -> Account:
    """Who owns the cluster and runs its commands (see the module's doc)."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    if (lay.pgdata / "PG_VERSION").exists():
        owner = lay.pgdata.stat().st_uid
        if owner != 0:
            entry = pwd.getpwuid(owner)
            return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    names = [os.environ.get(OS_USER_ENV, ""), "postgres", "nobody"]
    for name in filter(None, names):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            if name == os.environ.get(OS_USER_ENV):
                raise CatalogError(f"{OS_USER_ENV}={name}: no such account") from None
            continue
        if entry.pw_uid == 0:
            raise CatalogError(f"PostgreSQL cannot run as {name} (uid 0); set {OS_USER_ENV}")
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    raise CatalogError(f"no unprivileged account to run PostgreSQL as: set {OS_USER_ENV}")


def run_as(account: Account, cmd: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    """Run cmd as the service account, with a minimal environment."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LC_ALL": "C",
        "HOME": str(cwd),
        "USER": account.name,
        "LOGNAME": account.name,
        "PGAPPNAME": "lakehouse-catalog",
    }
    if not account.is_me:
        kwargs.update(user=account.uid, group=account.gid, extra_groups=[])
    return subprocess.run(cmd, cwd=cwd, env=env, **kwargs)


def chown(account: Account, *paths: Path) -> None:
    if not account.is_me:
        for path in paths:
            os.chown(path, account.uid, account.gid)


def prepare_folders(lay: Layout, account: Account) -> None:
    lay.root.mkdir(parents=True, exist_ok=True)
    if not any(lay.root.iterdir()):  # new (or empty): ours to set up
        # The service account must reach its folders; nobody needs to list this
        # one, which holds the password file (itself 0600).
        os.chmod(lay.root, 0o700 if account.is_me else 0o711)
    for folder in (lay.run, lay.logs):
        folder.mkdir(exist_ok=True)
        chown(account, folder)
        os.chmod(folder, 0o700)
    if not account.is_me:
        probe = run_as(account, ["test", "-w", str(lay.run)], cwd=Path("/"), capture_output=True)
        if probe.returncode != 0:
            raise CatalogError(
                f"The account {account.name}, which runs PostgreSQL here, cannot reach {lay.root}: "
                "it, or a folder above it, is not traversable by other users (mode 0700?). "
                "Choose a --dir under a folder others can traverse (the repository, /tmp)."
            )
