"""What Spark's scans of a table read, from the SQL metrics of the executions
the session still retains (the embedded session keeps the last 50): how a test
sees that a query pruned a table's partitions, or how many landed files a
run opened, rather than trusting its plan."""

from __future__ import annotations

from collections.abc import Callable


def table_scans(spark, table: str) -> list[dict[str, str]]:
    """The metrics of each scan of `table` (schema.name), oldest execution
    first: 'number of files read', 'size of files read', ... as Spark prints
    them."""
    return scans(spark, lambda name, desc: name.endswith("." + table))


def opened_files(spark, after: int) -> list[int]:
    """For each binaryFile scan that read files' bytes, in the executions after
    id `after`, oldest first: how many files it opened. The source checks its
    pushed filters on a file's length and time before it opens the file, and
    gives one row per file it opens."""

    def reads_bytes(name: str, desc: str) -> bool:
        # The description starts with the scan's output columns; Spark
        # shortens the rest (the location among them).
        return name.startswith("Scan binaryFile") and "content#" in desc.split("]")[0]

    return [
        int(scan["number of output rows"].replace(",", ""))
        for scan in scans(spark, reads_bytes, after)
    ]


def last_execution(spark) -> int:
    """The id of the newest SQL execution the session retains (-1: none)."""
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    return executions.apply(executions.size() - 1).executionId() if executions.size() else -1


def scans(spark, wanted: Callable[[str, str], bool], after: int = -1) -> list[dict[str, str]]:
    """The metrics of each scan whose plan node's name and description
    `wanted` accepts, in the executions after id `after`, oldest first."""
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    found = []
    for i in range(executions.size()):
        execution_id = executions.apply(i).executionId()
        if execution_id <= after:
            continue
        values = store.executionMetrics(execution_id)
        nodes = store.planGraph(execution_id).allNodes()
        for j in range(nodes.size()):
            node = nodes.apply(j)
            if not (node.name().startswith("Scan ") and wanted(node.name(), node.desc())):
                continue
            metrics = {}
            for k in range(node.metrics().size()):
                metric = node.metrics().apply(k)
                value = values.get(metric.accumulatorId())
                if value.isDefined():
                    metrics[metric.name()] = value.get()
            found.append(metrics)
    return found


def files_read(scan: dict[str, str]) -> int:
    return int(scan["number of files read"].replace(",", ""))
