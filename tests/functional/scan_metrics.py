"""What Spark's scans of a table read, from the SQL metrics of the executions
the session still retains (the embedded session keeps the last 50): how a test
sees that a query pruned a table's partitions, rather than trusting its plan."""

from __future__ import annotations

from typing import Dict, List


def table_scans(spark, table: str) -> List[Dict[str, str]]:
    """The metrics of each scan of `table` (schema.name), oldest execution
    first: 'number of files read', 'size of files read', ... as Spark prints
    them."""
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    scans = []
    for i in range(executions.size()):
        execution_id = executions.apply(i).executionId()
        values = store.executionMetrics(execution_id)
        nodes = store.planGraph(execution_id).allNodes()
        for j in range(nodes.size()):
            node = nodes.apply(j)
            if not (node.name().startswith("Scan ") and node.name().endswith("." + table)):
                continue
            metrics = {}
            for k in range(node.metrics().size()):
                metric = node.metrics().apply(k)
                value = values.get(metric.accumulatorId())
                if value.isDefined():
                    metrics[metric.name()] = value.get()
            scans.append(metrics)
    return scans


def files_read(scan: Dict[str, str]) -> int:
    return int(scan["number of files read"].replace(",", ""))
