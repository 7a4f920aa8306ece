"""Warm start: a lake's embedded session kept running between dbt commands,
as a local Spark Connect server that the next command connects to.

- client.py: what a dbt command does (use, start, move or skip a server);
- server.py: the server process (and the `dbt-lakehouse-server` command);
- state.py: the files in the lake that say which server serves it;
- registry.py: the servers of this user, and the cap on how many run;
- jars.py: the Connect server's jar and the guard that lets only this user in.

May import: session/, lake/, formats/ (for the jars), processes, credentials.
"""
