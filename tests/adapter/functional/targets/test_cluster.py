"""A server on the local standalone cluster (adlake.servers.cluster) runs its
work on the workers: a Connect server started with the cluster's master builds
merge-on-read upserts, and each worker's executor of that application ran
tasks. Connect is the method whose plans ship code to the executors (its
lambdas need the server's jars there), so it is the one checked in CI; the
full comparison (`python -m adlake.runner.compare_targets`) runs thrift-cluster too."""

from __future__ import annotations

from adlake.servers import cluster, processes, spark_server
from tests.adapter.functional.targets.servers import facts_model, query, server_profile

FACTS = facts_model(200)


def finished_tasks(log: str) -> int:
    return sum(1 for line in log.splitlines() if "Finished task" in line)


def test_a_server_on_the_cluster_runs_its_work_on_the_workers(project, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster")
    state = cluster.start(folder / "cluster")
    pids = [state["master_pid"], *state["worker_pids"]]
    try:
        lake = folder / "server"
        port = spark_server.free_port()
        spark_server.start("connect", port, lake, master=state["master_url"])
        pids.append(spark_server.status("connect", lake)["pid"])
        try:
            project.write("profiles.yml", server_profile("connect", port, project.schema))
            project.model("facts", FACTS)
            for run in (1, 2):
                project.dbt("run", "--vars", f"{{run: {run}}}")
            rows = query(
                "connect",
                port,
                f"select sum(value), count(*), max(run) from {project.schema}.facts",
            )
            assert rows == [(sum(range(1, 201)) * 2, 200, 2)]
        finally:
            spark_server.stop("connect", lake)
        # One application (the server), an executor on each worker, and each
        # of them ran tasks: the work was the cluster's, not the driver's.
        executors = sorted((folder / "cluster").glob("work*/app-*/*/stderr"))
        assert {path.parents[2].name for path in executors} == {"work0", "work1"}, executors
        assert len({path.parents[1].name for path in executors}) == 1, executors
        assert all(finished_tasks(path.read_text()) > 0 for path in executors)
    finally:
        cluster.stop(folder / "cluster")
    assert [pid for pid in pids if processes.alive(pid)] == []
