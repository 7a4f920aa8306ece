"""persist_docs on a Hudi table (and views): the model's description becomes
the table comment, the columns' descriptions column comments.

Spark keeps both in its catalog; the adapter's catalog for dbt docs
(docs/catalog.py) reads them with DESCRIBE TABLE EXTENDED, so the base class checks
them in catalog.json, as it does on other adapters.
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


class TestPersistDocs(BasePersistDocs):
    @pytest.fixture(scope="class")
    def properties(self):
        return {"my_fun_docs.md": _short_fun_doc, "schema.yml": fixtures._PROPERTIES__SCHEMA_YML}
