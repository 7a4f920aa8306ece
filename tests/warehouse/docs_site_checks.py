"""The docs site dbt generates for the warehouse, in a browser (headless Chromium,
tests/docs_site.py): its lineage graph draws every model, source and exposure
of the manifest with their dependencies, the landed feeds lead through ODS,
DWD, DWS and ADS to the exposures, and a Hudi model's page shows its lake
stats from the catalog. Screenshots: test-artifacts/docs-site/.

test_warehouse_build.py checks the site of the warehouse it built (a build
of its own for the site would cost as much again)."""

import json
import time

from tests.docs_site import Graph, displayed_stat, open_docs_site

SHOWN_TYPES = ("model", "source", "exposure")
DASHBOARD = "exposure.adlake.billing_spend_dashboard"
STATS_MODEL = "dwd_billing_events"


def check_docs_site(house) -> None:
    """`dbt docs generate` on the built warehouse `house`, then its site in
    the browser; one report names every part that fails."""
    started = time.monotonic()
    house.dbt("docs", "generate")
    target = house.root / "target"
    manifest = json.loads((target / "manifest.json").read_text())
    catalog = json.loads((target / "catalog.json").read_text())
    documented = time.monotonic()

    with open_docs_site(target) as site:
        graph = site.lineage_graph()
        page = site.model_page(STATS_MODEL)
        errors = site.javascript_errors()
    print(
        f"documented in {documented - started:.0f} s, browsed in "
        f"{time.monotonic() - documented:.0f} s; screenshots {graph.screenshot}, {page.screenshot}"
    )

    # Each check on its own (the sources and the lake stats come from other work).
    checks = {
        "the site": lambda: check_site(site, errors),
        "the graph against the manifest": lambda: check_graph_matches_manifest(graph, manifest),
        "the layers": lambda: check_layers(graph, manifest),
        "the landing sources": lambda: check_landing_sources(graph, manifest),
        "the lake stats": lambda: check_lake_stats(page, catalog),
    }
    failures = []
    for name, check in checks.items():
        try:
            check()
        except AssertionError as exc:
            failures.append(f"{name}: {exc}")
    assert not failures, "the docs site:\n" + "\n".join(failures)


def check_site(site, errors):
    assert not site.processes_left, f"browser processes outlived the test: {site.processes_left}"
    statuses = {path.split("?")[0]: code for path, code in site.served}
    for artifact in ("/manifest.json", "/catalog.json"):
        assert statuses.get(artifact) == 200, f"{artifact} not served: {site.served}"
    assert not errors, f"JavaScript errors in the browser: {errors}"


def check_graph_matches_manifest(graph: Graph, manifest):
    wanted = {
        unique_id: node["resource_type"]
        for group in ("nodes", "sources", "exposures")
        for unique_id, node in manifest[group].items()
        if node["resource_type"] in SHOWN_TYPES
    }
    missing = sorted(set(wanted) - set(graph.nodes))
    assert not missing, f"in the manifest, not in the graph: {missing}"
    wrong = {n: (t, graph.nodes[n]) for n, t in wanted.items() if graph.nodes[n] != t}
    assert not wrong, f"resource types (manifest, graph): {wrong}"
    # Every dependency between models, sources, seeds and exposures is an edge.
    drawn = SHOWN_TYPES + ("seed",)
    expected = {
        (parent, unique_id)
        for unique_id in wanted
        for parent in resource(manifest, unique_id).get("depends_on", {}).get("nodes", [])
        if parent.split(".")[0] in drawn
    }
    absent = sorted(expected - graph.edges)
    assert not absent, f"dependencies the graph does not draw: {absent}"
    assert not graph.off_screen, f"nodes drawn outside the canvas: {graph.off_screen}"


def check_layers(graph: Graph, manifest):
    """A path of edges from the landed events (their source, once there is one)
    through each layer to the dashboard, and every layer and exposure reached."""
    layer = layers(manifest)
    raw = resource(manifest, "model.adlake.ods_billing_events_raw")
    feeds = {p for p in raw["depends_on"]["nodes"] if p.startswith("source.")}
    stages = [
        {"model.adlake.ods_billing_events_raw"},
        {"model.adlake.dwd_billing_events"},
        {n for n, name in layer.items() if name == "dws"},
        {n for n, name in layer.items() if name == "ads"},
        {DASHBOARD},
    ]
    path = graph.path_through(([feeds] if feeds else []) + stages)
    assert path, f"no path through {stages} (from {sorted(feeds) or 'ODS'})"
    print("landing to dashboard:", " -> ".join(path))

    starts = feeds or {"model.adlake.ods_billing_events_raw"}
    reached = set().union(*(graph.reachable(start) for start in starts)) | starts
    for name in ("ods", "dwd", "dws", "ads"):
        assert any(layer.get(n) == name for n in reached), f"layer {name} not reached"
    exposures = set(manifest["exposures"])
    assert exposures and exposures <= reached, f"exposures not reached: {exposures - reached}"


def check_landing_sources(graph: Graph, manifest):
    """Each landed feed is a source drawn with an edge to the ODS model that
    reads it; the feeds billing is computed from (events, account changes)
    lead on to the dashboard. (The ads and campaigns dimensions reach data
    tests and dwd_billing_events_enriched, which no exposure reads yet.)"""
    landing = sorted(s for s in manifest["sources"] if s.startswith("source.adlake.landing."))
    assert len(landing) == 5, f"the landed feeds as sources: {landing}"
    layer = layers(manifest)
    unread = [s for s in landing if not any(layer.get(n) == "ods" for n in graph.reachable(s))]
    assert not unread, f"landing sources no ODS model reads in the graph: {unread}"
    for feed in ("billing_events", "account_changes"):
        source = f"source.adlake.landing.{feed}"
        assert DASHBOARD in graph.reachable(source), f"{source} does not lead to {DASHBOARD}"


def check_lake_stats(page, catalog):
    """Every stat of the model's catalog entry that the site shows (include:
    true) is on its page, label and value; there is at least one."""
    stats = catalog["nodes"][f"model.adlake.{STATS_MODEL}"]["stats"]
    shown = [displayed_stat(stat) for stat in stats.values() if stat["include"]]
    assert shown, f"no stat with include: true in the catalog for {STATS_MODEL}: {stats}"
    text = page.text.casefold()  # the details panel capitalises its labels
    for label, value in shown:
        assert (label, value) in page.details, f"{label}: {value} not in {page.details}"
        assert label.casefold() in text and value.casefold() in text, (label, value)


def resource(manifest, unique_id):
    group = {"source": "sources", "exposure": "exposures"}.get(unique_id.split(".")[0], "nodes")
    return manifest[group][unique_id]


def layers(manifest):
    """The warehouse layer (models/<layer>/) of each of the project's models."""
    return {
        unique_id: node["fqn"][1]
        for unique_id, node in manifest["nodes"].items()
        if node["resource_type"] == "model" and node["package_name"] == "adlake"
    }
