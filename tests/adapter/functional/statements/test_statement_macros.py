"""A project changes a statement the adapter runs by defining its
lakehouse__* macro: dbt finds the project's before the adapter's."""

# The adapter's own statement, marked: the marker in dbt's log shows whose
# SQL ran, and the incremental run that compares the table's settings with
# the model's (from the catalog's properties) still writes right.
OWN_TABLE_PROPERTIES = """
{% macro lakehouse__show_table_properties(table) -%}
/* the project's show_table_properties */ show tblproperties {{ table }}
{%- endmacro %}
"""

EVENTS = """
{{ config(materialized='incremental', unique_key='id', incremental_strategy='upsert') }}
select id, {{ var('batch') }} as version from (select explode(sequence(1, 3)) as id)
{% if is_incremental() %} where id <= {{ var('batch') }} {% endif %}
"""


def test_a_projects_statement_macro_is_the_one_run(project):
    project.write("macros/own_statements.sql", OWN_TABLE_PROPERTIES)
    project.model("events", EVENTS)
    log = project.root / "logs" / "dbt.log"
    project.dbt("run", "--vars", "{batch: 1}")
    before = log.stat().st_size if log.exists() else 0
    project.dbt("run", "--vars", "{batch: 2}")
    second = log.read_text()[before:]
    assert "/* the project's show_table_properties */ show tblproperties" in second
    # The upsert's commit came after the first run's: two commits on the timeline.
    commits = [i for i in project.completed_instants("events") if i[2] in ("commit", "deltacommit")]
    assert len(commits) == 2
    assert sorted(
        (r.id, r.version) for r in project.rows("select id, version from {schema}.events")
    ) == [(1, 2), (2, 2), (3, 1)]
