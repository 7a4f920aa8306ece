"""The SQL statements the adapter runs of its own accord, from `lakehouse__*` macros.

A statement the adapter sends to learn about a table (its timeline, the
metadata of its commits, its catalog entry) is the text of a macro named
`lakehouse__<name>`, in dbt/include/lakehouse/macros/statements/ (a table
format's own, in macros/formats/<format>/statements.sql). A project
changes one by defining a macro of the same name: dbt finds a project's
macro before an adapter's, as for any adapter macro. The Python modules parse
the rows and decide; they hold no SQL.

A statement macro is text built from its arguments, so it is rendered with
them alone (no `adapter`, `var` or `ref`; the other macros of its file are
there, and for a format's statements the shared files' too): the same way at run time and in the macro tests, which render each
one offline and pin its SQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from dbt_common.clients.jinja import get_template
from dbt_common.exceptions import DbtRuntimeError
from dbt_common.utils.jinja import MACRO_PREFIX, get_dbt_macro_name

from dbt.include import lakehouse as include

STATEMENTS_DIR = Path(include.PACKAGE_PATH) / "macros" / "statements"
FORMATS_DIR = Path(include.PACKAGE_PATH) / "macros" / "formats"
PREFIX = "lakehouse__"
MACRO_NAME = re.compile(r"{%-?\s*macro\s+(\w+)\s*\(")

# The source of the macro of that name a project defines in place of the
# adapter's (a `{% macro %}` block), or None to use the adapter's own.
FindMacro = Callable[[str], str | None]


@cache
def packaged() -> dict[str, str]:
    """The adapter's statement macros: each name to the source it is
    rendered from: its file's text, after which, for a format's statements,
    the shared files' (whose macros they call: the CDC images)."""
    shared = [path.read_text() for path in sorted(STATEMENTS_DIR.glob("*.sql"))]
    found: dict[str, str] = {}
    for text in shared:
        for name in MACRO_NAME.findall(text):
            found[name] = text
    for path in sorted(FORMATS_DIR.glob("*/statements.sql")):
        text = path.read_text()
        for name in MACRO_NAME.findall(text):
            found[name] = "\n".join([text, *shared])
    return found


class Statements:
    """Renders statements by name: `sql("show_commits", table=..., limit=...)`
    is the text of the macro lakehouse__show_commits."""

    def __init__(self, find: FindMacro | None = None) -> None:
        self._find = find or (lambda name: None)
        self._modules: dict[str, Any] = {}  # a macro's source -> its compiled module

    def sql(self, name: str, **kwargs: Any) -> str:
        macro = PREFIX + name
        own = packaged().get(macro, "")
        # The project's macros of this name and of the others of its file
        # come after the file, so they replace those, and each can call the
        # others (a macro of the file calls the project's in its place).
        names = _macro_names(own) or (macro,)
        theirs = [found for found in map(self._find, names) if found]
        if not own and not theirs:
            raise DbtRuntimeError(
                f"No statement macro {macro}: the adapter's install is incomplete."
            )
        source = "\n".join([own, *theirs])
        module = self._modules.get(source)
        if module is None:
            module = self._modules[source] = _compiled(source)
        return str(getattr(module, get_dbt_macro_name(macro))(**kwargs)).strip()


@cache
def _macro_names(source: str) -> tuple[str, ...]:
    """The macros a file defines (looked up once per file, not per statement)."""
    return tuple(MACRO_NAME.findall(source))


def _compiled(source: str) -> Any:
    """The template module of `source`, whose macros can call each other by
    name: dbt's Jinja renames each macro (dbt_macro__<name>) and looks names
    up in the context when a macro runs, so the context is given the file's
    macros once they exist."""
    context: dict[str, Any] = {}
    module = get_template(source, context).module
    context.update(
        {
            name.removeprefix(MACRO_PREFIX): getattr(module, name)
            for name in dir(module)
            if name.startswith(MACRO_PREFIX)
        }
    )
    return module
