"""A new lake's catalog database, copied from an empty one made once.

The embedded session keeps a lake's catalog (Hive's metastore) in a Derby
database inside the lake. In a new database, Hive creates its tables one at a
time as each is first needed, a DDL statement each that Derby writes through
to disk: a few tenths of a second of a new lake's first statements
(docs/freshness-and-benchmarks.md, "Several projects in one process"). A
process that starts many new lakes pays it for each: dbt's adapter tests, an
orchestrator or a notebook building new projects.

So the first session that needs a new lake's catalog makes an empty catalog
database once, with every table of Hive's schema and no rows, in the per-user
cache; each new lake starts from a copy of it. The rows stay the lake's own:
on the lake's first catalog call Hive adds its schema version, its roles and
the `default` database (located in this lake's warehouse), as it would in a
database it had just created.

The template is made by the Hive metastore classes pyspark ships, in the
session's own JVM, keyed by those jars' versions; when it cannot be made, the
lake's catalog is created as before (the debug log says why).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbt.adapters.lakehouse import processes
from dbt.adapters.lakehouse.session import lake_switch

# Hive's schema as DataNucleus maps it: the persistent classes of its model.
MODEL_PACKAGE = "org.apache.hadoop.hive.metastore.model"
DERBY_URL = re.compile(r"^jdbc:derby:(?:;databaseName=)?(?P<path>[^;]+)(?P<options>;.*)?$")
# Stands for the template's shape: bump it when the way it is made changes.
TEMPLATE_FORMAT = "1"


def new_database(url: str) -> Path | None:
    """The folder of the Derby database `url` names, when the URL asks Derby to
    create it and it does not exist yet; None otherwise."""
    match = DERBY_URL.match(url)
    if match is None or "create=true" not in (match.group("options") or ""):
        return None
    folder = Path(match.group("path"))
    return None if folder.exists() or not folder.is_absolute() else folder


def seed(url: str, cache_root: Path, gateway: Any, notify: Callable[[str], None]) -> bool:
    """Give the catalog database `url` names a copy of the template when that
    database does not exist yet; True when it did. Called under the lake's
    lock, before the session opens the database; `gateway`: pyspark's
    gateway to the session's JVM."""
    target = new_database(url)
    if target is None:
        return False
    template = _template(cache_root, gateway, notify)
    if template is None:
        return False
    # A copy killed half-way is never taken for the lake's catalog: the copy
    # goes to a folder of its own, renamed into place whole.
    for leftover in target.parent.glob(f"{target.name}.seeding-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    staging = target.with_name(f"{target.name}.seeding-{os.getpid()}")
    shutil.copytree(template, staging)
    os.rename(staging, target)
    return True


def _template(cache_root: Path, gateway: Any, notify: Callable[[str], None]) -> Path | None:
    """The template database in the per-user cache, made now when missing;
    None when it cannot be made here (`notify` is told why)."""
    jars = _metastore_jars()
    if jars is None:
        notify("catalog template: no Hive metastore or Derby jar in pyspark")
        return None
    key = hashlib.sha256(
        "\n".join([TEMPLATE_FORMAT, *(jar.name for jar in jars)]).encode()
    ).hexdigest()[:12]
    home = cache_root / f"catalog-template-{key}"
    database = home / "metastore_db"
    if (database / "service.properties").is_file():
        return database
    # Made aside and renamed into place whole: another process making it at
    # the same time, or one killed half-way, leaves no half template in use.
    for leftover in cache_root.glob(f"{home.name}.building-*"):
        pid = leftover.name.rpartition("-")[2]
        if pid.isdigit() and not processes.alive(int(pid)):  # a build killed half-way
            shutil.rmtree(leftover, ignore_errors=True)
    building = cache_root / f"{home.name}.building-{os.getpid()}"
    try:
        building.mkdir(parents=True)
        _make(gateway, jars[0], building / "metastore_db")
        os.rename(building, home)
    except Exception as error:  # noqa: BLE001 (Hive's, Derby's or the disk's: the lake goes without)
        shutil.rmtree(building, ignore_errors=True)
        if not (database / "service.properties").is_file():  # (else: made by another process)
            notify(f"catalog template not made: {str(error).splitlines()[0]}")
            return None
    return database


def _metastore_jars() -> tuple[Path, Path] | None:
    """pyspark's Hive metastore jar and Derby jar."""
    import pyspark

    folder = Path(pyspark.__file__).parent / "jars"
    metastore = sorted(folder.glob("hive-metastore-*.jar"))
    derby = sorted(folder.glob("derby-*.jar"))
    return (metastore[-1], derby[-1]) if metastore and derby else None


def _model_classes(metastore_jar: Path) -> list[str]:
    """The classes Hive's package.jdo maps to tables of their own (the
    embedded-only ones live in their owners' tables)."""
    mapping = zipfile.ZipFile(metastore_jar).read("package.jdo").decode()
    return [
        f"{MODEL_PACKAGE}.{match.group(1)}"
        for match in re.finditer(r'<class name="(\w+)"([^>]*)>', mapping)
        if 'embedded-only="true"' not in match.group(2)
    ]


def _make(gateway: Any, metastore_jar: Path, database: Path) -> None:
    """Create `database` with every table of Hive's schema, through Hive's own
    store as the session would (the same DataNucleus mapping and settings),
    then close it so that it can be copied."""
    jvm = gateway.jvm
    url = f"jdbc:derby:;databaseName={database};create=true"
    conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
    conf.set("javax.jdo.option.ConnectionURL", url)
    # As Spark sets them for an embedded metastore.
    conf.set("hive.metastore.schema.verification", "false")
    conf.set("datanucleus.schema.autoCreateAll", "true")
    store = jvm.org.apache.hadoop.hive.metastore.ObjectStore()
    store.setConf(conf)
    factory = lake_switch.static_field(jvm, lake_switch.OBJECT_STORE, "pmf").get(None)
    try:
        context = factory.getNucleusContext()
        classes = _model_classes(metastore_jar)
        names = gateway.new_array(jvm.java.lang.String, len(classes))
        for i, name in enumerate(classes):
            names[i] = name
        context.getStoreManager().manageClasses(context.getClassLoaderResolver(None), names)
    finally:
        store.shutdown()
        # The session's store then makes a pool of its own, for its lake.
        lake_switch.forget_catalog_pools(jvm)
        _shut_down(jvm, database)


def _shut_down(jvm: Any, database: Path) -> None:
    """Close the database, so that its files are whole to copy; an error when
    Derby did not (a database still open is no template)."""
    url = f"jdbc:derby:;databaseName={database};shutdown=true"
    if lake_switch.shut_down_derby(jvm, url) != lake_switch.DERBY_DATABASE_CLOSED:
        raise RuntimeError(f"Derby did not shut down {database}")
