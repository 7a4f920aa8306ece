"""The Spark session a profile runs on, and its life on this machine.

- embedded.py: the in-process PySpark session of `method: session`, one JVM
  per process; connect.py: a Spark Connect session (`method: connect`, and
  the warm server's clients);
- lake_switch.py: one JVM for several lakes, one after the other;
- what the JVM is started with: format_jars.py (the table formats' jars and
  the session catalog), jdk.py, local_fs.py, hadoop_conf.py (+ hadoop_local/,
  log4j2.properties), local_dir.py (Spark's scratch folder), class_data.py
  (the JVM's class-data archive), catalog_template.py (a new lake's Derby
  catalog).

May import: lake/, storage/, formats/, processes, statements. Not warm/
(which runs on this), nor anything that plans or writes tables.
"""
