"""A dbt docs site (dbt's target folder after `dbt docs generate`) in headless
Chromium: served on 127.0.0.1 from a thread, driven through Selenium with
the system's chromium and chromedriver (`make setup-tests` checks for both).

The lineage graph is a cytoscape canvas, its nodes are no DOM elements: the
docs app (AngularJS, debug info on) keeps the graph it renders in its `graph`
service, `graph_element` being the cytoscape instance, and the page reads
node ids, resource types, edges and where each node is drawn from it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import math
import os
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

REPO = Path(__file__).resolve().parents[1]
# The system's browser and its driver (`make setup-tests` checks both): on the
# PATH (Debian's chromium, Homebrew's), never a driver Selenium downloads.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# Git-ignored; a test run overwrites what the last one left.
SCREENSHOTS = REPO / "test-artifacts" / "docs-site"
WINDOW = (1920, 1200)
TIMEOUT = 60

# The graph the docs app has drawn, once it has: null while it is loading.
# renderedBoundingBox is relative to the canvas.
READ_GRAPH = """
const injector = window.angular && angular.element(document.body).injector();
if (!injector) return null;
const service = injector.get('graph');
const cy = service.graph_element;
if (service.loading || !cy || service.orientation !== 'fullscreen' || cy.nodes().length === 0)
  return null;
const width = cy.width(), height = cy.height();
return {
  nodes: cy.nodes(':visible').map(n => {
    const b = n.renderedBoundingBox();
    return {id: n.id(), type: n.data('resource_type'),
            box: [b.x1, b.y1, b.x2, b.y2],
            on_screen: b.x1 >= 0 && b.y1 >= 0 && b.x2 <= width && b.y2 <= height};
  }),
  edges: cy.edges(':visible').map(e => [e.source().id(), e.target().id()]),
};
"""

# A resource page's details panel (directive tableDetails): label and value
# of each row it shows, as written (the panel capitalises labels with CSS).
READ_DETAILS = """
return Array.from(document.querySelectorAll('dl.detail'))
  .filter(dl => dl.offsetParent !== null)
  .map(dl => [dl.querySelector('dt').textContent.trim(), dl.querySelector('dd').textContent.trim()]);
"""


@dataclass
class Graph:
    """The lineage graph as drawn: node id -> resource type, and edges parent -> child."""

    nodes: dict[str, str]
    edges: set[tuple[str, str]]
    off_screen: list[str]
    screenshot: Path

    def children(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {node: set() for node in self.nodes}
        for parent, child in self.edges:
            out.setdefault(parent, set()).add(child)
        return out

    def reachable(self, start: str) -> set[str]:
        """Every node downstream of start (start itself excluded)."""
        children, seen, todo = self.children(), set(), deque([start])
        while todo:
            for child in children.get(todo.popleft(), ()):
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
        return seen

    def path_through(self, stages: Iterable[Iterable[str]]) -> list[str] | None:
        """A shortest path along edges that visits a node of each stage, in order
        (starting at one of the first's); None if there is none."""
        stages = [set(stage) for stage in stages]
        children = self.children()
        todo = deque((node, 1) for node in sorted(stages[0]))
        parent: dict[tuple[str, int], tuple[str, int] | None] = dict.fromkeys(todo)
        while todo:
            state = todo.popleft()
            node, matched = state
            if matched == len(stages):
                path = []
                while state is not None:
                    path.append(state[0])
                    state = parent[state]
                return path[::-1]
            for child in sorted(children.get(node, ())):
                step = (child, matched + (child in stages[matched]))
                if step not in parent:
                    parent[step] = state
                    todo.append(step)
        return None


@dataclass
class ModelPage:
    text: str  # what a reader sees (innerText: labels in the page's capitals)
    details: list[tuple[str, str]]  # the details panel's rows, label and value
    screenshot: Path


# How the details panel shows a catalog stat (dbt-docs' tableDetails: stats of
# these ids are formatted, and their labels get "Utilization" -> "Used").
NUMBER_STATS = {"rows", "row_count", "num_rows", "max_varchar"}
BYTES_STATS = {"size", "bytes", "num_bytes"}
PERCENT_STATS = {"pct_used"}


def displayed_stat(stat: dict[str, Any]) -> tuple[str, str]:
    """The label and value a catalog stat shows on its resource page."""
    stat_id, label, value = stat["id"], stat["label"], stat["value"]
    if stat_id in NUMBER_STATS | BYTES_STATS | PERCENT_STATS:
        label = label.replace("Utilization", "Used")
    if stat_id in NUMBER_STATS:
        return label, f"{float(value):,.0f}"
    if stat_id in PERCENT_STATS:
        return label, f"{100 * float(value):,.2f}%"
    if stat_id in BYTES_STATS:
        size = float(value)
        if size == 0:
            return label, "0 bytes"
        size = size * 1e6 if size < 1 else size
        unit = math.floor(math.log(size) / math.log(1024))
        return label, f"{size / 1024**unit:.0f} {['bytes', 'KB', 'MB', 'GB', 'TB', 'PB'][unit]}"
    # AngularJS interpolation: null shows nothing, a number as JavaScript prints it.
    if value is None:
        return label, ""
    if isinstance(value, bool):
        return label, str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return label, str(int(value))
    return label, str(value)


@dataclass
class DocsSite:
    """An open docs site: its URL, the browser on it, what the server served,
    and, once closed, the browser processes that outlived driver.quit()."""

    url: str
    driver: webdriver.Chrome
    screenshots: Path
    served: list[tuple[str, int]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    processes_left: list[str] = field(default_factory=list)

    def open(self, fragment: str) -> None:
        # A fresh document each time: a hash change alone keeps the app's
        # state (an open graph stays open on the next page).
        self.driver.get("about:blank")
        self.driver.get(self.url + fragment)

    def wait(self, condition: Callable[[webdriver.Chrome], Any], what: str) -> Any:
        return WebDriverWait(self.driver, TIMEOUT, poll_frequency=0.25).until(
            condition, f"the docs site did not show {what} within {TIMEOUT} s"
        )

    def screenshot(self, name: str) -> Path:
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def lineage_graph(self, screenshot: str = "lineage-graph") -> Graph:
        """The whole project's lineage graph (the overview's, opened full screen),
        once its layout has settled, and a screenshot of it."""
        self.open("#!/overview?g_v=1")
        read = self.wait(lambda d: d.execute_script(READ_GRAPH), "the lineage graph")
        # The layout and the fit to the canvas move the nodes for a moment.
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            time.sleep(0.5)
            again = self.driver.execute_script(READ_GRAPH)
            if again == read:
                break
            read = again
        else:
            raise AssertionError(f"the lineage graph did not settle within {TIMEOUT} s")
        return Graph(
            nodes={node["id"]: node["type"] for node in read["nodes"]},
            edges={(parent, child) for parent, child in read["edges"]},
            off_screen=sorted(node["id"] for node in read["nodes"] if not node["on_screen"]),
            screenshot=self.screenshot(screenshot),
        )

    def model_page(self, name: str, package: str = "adlake") -> ModelPage:
        """A model's page, once its details panel is there, and a screenshot of it."""
        self.open(f"#!/model/model.{package}.{name}")

        def shown(driver: webdriver.Chrome) -> Any:
            text = driver.execute_script("return document.body.innerText")
            return name in text and driver.execute_script(READ_DETAILS) and text

        text = self.wait(shown, f"the page of model {name}")
        return ModelPage(
            text=text,
            details=[tuple(row) for row in self.driver.execute_script(READ_DETAILS)],
            screenshot=self.screenshot(f"model-{name}"),
        )

    def browser_log(self) -> list[dict[str, Any]]:
        """Everything the browser logged so far (Chrome hands each entry out once)."""
        self.log.extend(self.driver.get_log("browser"))
        return self.log

    def javascript_errors(self) -> list[str]:
        """SEVERE entries other than failed requests (the docs app requests a few
        assets it never renders the names of, and an analytics script that the
        browser, kept to 127.0.0.1, cannot reach)."""
        return [
            entry["message"]
            for entry in self.browser_log()
            if entry["level"] == "SEVERE" and entry.get("source") != "network"
        ]


class _Handler(http.server.SimpleHTTPRequestHandler):
    served: list[tuple[str, int]]

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.served.append((self.path, int(code) if str(code).isdigit() else 0))

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(folder: Path, served: list[tuple[str, int]]) -> Iterator[str]:
    """folder on 127.0.0.1, on a port the system picks, from a thread; yields its URL
    and appends each request's path and status to served."""
    handler = type("Handler", (_Handler,), {"served": served})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, name="docs-site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def start_chromium(profile: Path) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={profile / 'user-data'}",
        # Names resolve to nothing: the page reaches the local server only.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Chromium's crash handlers run detached from the browser (children of init):
    # their database under XDG_CONFIG_HOME puts the profile's path in their
    # command line, which is how _browser_processes finds them.
    service = Service(CHROMEDRIVER, env={**os.environ, "XDG_CONFIG_HOME": str(profile / "config")})
    return webdriver.Chrome(service=service, options=options)


@contextlib.contextmanager
def open_docs_site(folder: Path, screenshots: Path = SCREENSHOTS) -> Iterator[DocsSite]:
    """Serves folder and opens it in headless Chromium. On the way out the browser
    quits and the server stops; a browser process still there after that is
    killed and named in the site's processes_left."""
    if not (folder / "index.html").is_file():
        raise FileNotFoundError(f"no index.html in {folder}: run `dbt docs generate` first")
    profile = Path(tempfile.mkdtemp(prefix="docs-site-chromium-"))
    served: list[tuple[str, int]] = []
    try:
        with serve(folder, served) as url:
            driver = start_chromium(profile)
            site = DocsSite(url, driver, screenshots, served)
            try:
                yield site
            finally:
                pids = _browser_processes(driver.service.process.pid, profile)
                with contextlib.suppress(Exception):
                    site.browser_log()
                driver.quit()
                site.processes_left = _reap(pids)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def _browser_processes(driver_pid: int, profile: Path) -> set[int]:
    """chromedriver, every process descended from it, and every process whose
    command line names the browser's profile folder (the crash handlers)."""
    children: dict[int, list[int]] = {}
    tree = {driver_pid}
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            # The fields after the command's closing parenthesis: state, ppid, ...
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(proc.name))
            if str(profile).encode() in (proc / "cmdline").read_bytes():
                tree.add(int(proc.name))
    todo = list(tree)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in tree:
                tree.add(child)
                todo.append(child)
    return tree


def _running(pid: int) -> str | None:
    """The command line of pid if it is a live (not zombie) process, else None."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except (OSError, IndexError):
        return None
    return None if state == "Z" else command.strip()


def _reap(pids: set[int], wait: float = 15.0) -> list[str]:
    """Waits for pids to end; kills what is left of them and describes it."""
    # The browser's zygotes end as zombies of init, which reaps them soon after.
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            break
        time.sleep(0.2)
    left = []
    for pid in sorted(pids):
        command = _running(pid)
        if command and "chrom" in command:
            left.append(f"{pid} {command[:120]}")
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    return left
