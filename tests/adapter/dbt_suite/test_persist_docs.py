"""persist_docs on a Hudi table (and views): the model's description becomes
the table comment, the columns' descriptions column comments.

Spark keeps both in its catalog, where DESCRIBE TABLE EXTENDED shows them. dbt's
catalog for Spark (docs generate) is read from SHOW TABLE EXTENDED, whose
schema tree carries no comments, so the base class's check reads the comments
from DESCRIBE TABLE EXTENDED and asserts on them exactly as it would on the
catalog's (dbt-spark's own persist_docs tests read them there too).
"""

import pytest
from dbt.tests.adapter.persist_docs import fixtures
from dbt.tests.adapter.persist_docs.test_persist_docs import BasePersistDocs

# The Hive metastore Spark embeds (Derby) stores at most 256 characters of a
# column comment, and the `name` column's description (a line and this doc)
# is longer with the base class's doc: the same doc without the lines the
# class does not check.
_short_fun_doc = """
{% docs my_fun_doc %}
name Column description "with double quotes"
'''abc123'''
--
/* comment */
Some $lbl$ labeled $lbl$ and $$ unlabeled $$ dollar-quoting
{% enddocs %}
"""


def described_comments(project, name):
    """A catalog node's comment fields, from DESCRIBE TABLE EXTENDED."""
    rows = project.run_sql(f"describe table extended {project.test_schema}.{name}", fetch="all")
    columns, comment, in_columns = {}, None, True
    for row in rows:
        key = (row[0] or "").strip()
        if not key or key.startswith("#"):
            in_columns = False  # the column list ends at the first blank or heading row
        elif in_columns:
            columns[key] = {"comment": row[2] or None}
        elif key == "Comment":
            comment = row[1] or None
    return {"metadata": {"comment": comment}, "columns": columns}


class TestPersistDocs(BasePersistDocs):
    @pytest.fixture(scope="class")
    def properties(self):
        return {"my_fun_docs.md": _short_fun_doc, "schema.yml": fixtures._PROPERTIES__SCHEMA_YML}

    def test_has_comments_pglike(self, project):
        self._assert_has_table_comments(described_comments(project, "table_model"))
        self._assert_has_view_comments(described_comments(project, "view_model"))
        self._assert_has_view_comments(described_comments(project, "no_docs_model"), False, False)
