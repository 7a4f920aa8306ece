"""Measurements of the warehouse and the adapter, none of which asserts a
time: `freshness` (landing to ADS on a preloaded warehouse), `incremental`
(an incremental read against a snapshot), `small_commits` (one small Hudi
commit, by setting), `soak` (many batches in one process), `profile_batch`
(where one batch's seconds go, with `spark_jobs`: the Hudi write phase of
each Spark job)."""
