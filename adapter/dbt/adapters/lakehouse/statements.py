"""The SQL statements the adapter runs of its own accord, from `lakehouse__*` macros.

A statement the adapter sends to learn about a table (its timeline, the
metadata of its commits, its catalog entry) is the text of a macro named
`lakehouse__<name>`, in dbt/include/lakehouse/macros/statements/. A project
changes one by defining a macro of the same name: dbt finds a project's
macro before an adapter's, as for any adapter macro. The Python modules parse
the rows and decide; they hold no SQL.

A statement macro is text built from its arguments, so it is rendered with
them alone (no `adapter`, `var` or `ref`): the same way at run time and in
the macro tests, which render each one offline and pin its SQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from dbt_common.clients.jinja import get_template
from dbt_common.exceptions import DbtRuntimeError
from dbt_common.utils.jinja import get_dbt_macro_name

from dbt.include import lakehouse as include

STATEMENTS_DIR = Path(include.PACKAGE_PATH) / "macros" / "statements"
PREFIX = "lakehouse__"
MACRO_NAME = re.compile(r"{%-?\s*macro\s+(\w+)\s*\(")

# The source of the macro of that name a project defines in place of the
# adapter's (a `{% macro %}` block), or None to use the adapter's own.
FindMacro = Callable[[str], str | None]


@cache
def packaged() -> dict[str, str]:
    """The adapter's statement macros: each name to its file's text."""
    found: dict[str, str] = {}
    for path in sorted(STATEMENTS_DIR.glob("*.sql")):
        text = path.read_text()
        for name in MACRO_NAME.findall(text):
            found[name] = text
    return found


class Statements:
    """Renders statements by name: `sql("show_commits", table=..., limit=...)`
    is the text of the macro lakehouse__show_commits."""

    def __init__(self, find: FindMacro | None = None) -> None:
        self._find = find or (lambda name: None)
        self._modules: dict[str, Any] = {}  # a macro's source -> its compiled module

    def sql(self, name: str, **kwargs: Any) -> str:
        macro = PREFIX + name
        source = self._find(macro) or packaged().get(macro)
        if source is None:
            raise DbtRuntimeError(
                f"No statement macro {macro}: the adapter's install is incomplete."
            )
        module = self._modules.get(source)
        if module is None:
            module = self._modules[source] = get_template(source, {}).module
        return str(getattr(module, get_dbt_macro_name(macro))(**kwargs)).strip()
