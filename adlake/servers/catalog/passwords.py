"""The role's password: from the environment or generated once, and the
SCRAM verifier that reaches the server in its place."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import unicodedata
from pathlib import Path

from adlake.servers.catalog.layout import PASSWORD_ENV, CatalogError, Layout, layout


def password(directory: Path | None = None) -> str:
    """The role's password: LAKEHOUSE_CATALOG_PASSWORD, else the generated one."""
    from_env = os.environ.get(PASSWORD_ENV)
    if from_env:
        return from_env
    path = layout(directory).password_file
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        raise CatalogError(
            f"No catalog password: set {PASSWORD_ENV}, or run `python -m adlake.servers.catalog start` "
            f"once, which generates one in {path}"
        ) from None


def ensure_password(lay: Layout) -> str:
    if os.environ.get(PASSWORD_ENV):
        return os.environ[PASSWORD_ENV]
    if not lay.password_file.exists():
        fd = os.open(lay.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(24) + "\n")
    os.chmod(lay.password_file, 0o600)
    return password(lay.root)


def scram_verifier(secret: str, iterations: int = 4096) -> str:
    """PostgreSQL's stored form of a SCRAM-SHA-256 password (RFC 5802/7677), so
    that ALTER ROLE carries a verifier, not the password itself. NFKC stands in
    for SASLprep, which leaves printable ASCII as it is."""
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac(
        "sha256", unicodedata.normalize("NFKC", secret).encode(), salt, iterations
    )
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
    return f"SCRAM-SHA-256${iterations}:{_b64(salt)}${_b64(stored_key)}:{_b64(server_key)}"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()
