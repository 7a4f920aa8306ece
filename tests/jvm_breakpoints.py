"""Holds a running JVM's threads at named methods, so a test can kill it at a
point of the code rather than of the clock.

Some kill points last milliseconds: between the moment a table format has
written a new table's folder and the moment the catalog records the table.
No poll of the files on disk catches them reliably. Here the JVM is started
with the JDK's debugging agent (JDWP, on a loopback port it picks and
prints: AGENT among the driver's JVM options), the JDK's `jdb` attaches and sets
breakpoints that suspend the thread that reaches them (the others run on),
and the test kills the process once the expected number of threads are held.
The JVM runs its real code up to that point: nothing is mocked.

    ...start the child: PROFILE_JAVA_OPTIONS in its profile's spark_conf,
       HELD_ENV in its environment, its output to `log`...
    with jvm_breakpoints.attach(log, child, ["org.apache.Foo.bar"]) as held:
        held.wait(4, child)   # four threads stopped in Foo.bar
        ...kill the child...  # inside: see attach()
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

# A JVM started with this option listens for a debugger on a loopback port of
# its own, prints it, and waits for it before it runs anything (attach() lets
# it run once the breakpoints are taken: a point reached within seconds of
# the JVM's start would be passed before jdb, a JVM too, could attach on a
# busy machine). (Not through JAVA_TOOL_OPTIONS: spark-submit's launcher is a
# JVM too, whose output is the driver's command line.)
AGENT = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0"
# A test profile's spark_conf entry that gives the driver's JVM the options
# of the variable OPTIONS_ENV (none when it is unset).
OPTIONS_ENV = "LAKEHOUSE_TEST_JAVA_OPTIONS"
PROFILE_JAVA_OPTIONS = {"spark.driver.extraJavaOptions": "{{ env_var('" + OPTIONS_ENV + "', '') }}"}
# The environment of a run to hold: the agent, and no class-data archive (the
# adapter's session/class_data.py), which the JVM cannot write with the agent loaded.
HELD_ENV = {OPTIONS_ENV: AGENT, "LAKEHOUSE_CLASS_DATA": "0"}
LISTENING = re.compile(r"Listening for transport dt_socket at address: (\d+)")
# jdb's prompt naming a suspended thread ("main[1] "): printed once its
# event thread has taken the JVM's start as a stop. A `run` sent before that
# finds "Nothing suspended." and the JVM then waits at its start for ever.
STOPPED_PROMPT = re.compile(r"^\S+\[\d+\] ", re.MULTILINE)
HIT = "Breakpoint hit:"
# A hit's whole line (jdb writes it a character at a time): where the thread is.
HIT_LINE = re.compile(re.escape(HIT) + r"([^\n]*)\n")


class Held:
    """A jdb session on one JVM, counting the threads its breakpoints hold."""

    def __init__(self, port: int, methods: list[str]) -> None:
        jdb = shutil.which("jdb")
        if jdb is None:
            raise RuntimeError("jdb (the JDK's debugger) is not on the PATH")
        self.process = subprocess.Popen(
            [jdb, "-attach", f"127.0.0.1:{port}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output = ""
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        for method in methods:
            self.send(f"stop thread in {method}")
        self.methods = methods

    def resume_once_set(self, timeout: float = 120) -> None:
        """Let the JVM run (it waits for its debugger: AGENT) once jdb has
        taken every breakpoint (set, or deferred until its class loads) and
        has stopped at the JVM's start."""
        deadline = time.monotonic() + timeout
        while not self._ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"jdb was not ready in {timeout} s:\n{self.output}")
            time.sleep(0.05)
        self.send("run")

    def _ready(self) -> bool:
        with self._lock:
            out = self.output
            taken = out.count("Deferring breakpoint ") + out.count("Set breakpoint ")
            return taken >= len(self.methods) and STOPPED_PROMPT.search(out) is not None

    def _read(self) -> None:
        assert self.process.stdout is not None
        while True:
            chunk = self.process.stdout.read(1)
            if not chunk:
                return
            with self._lock:
                self.output += chunk

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def hits(self) -> int:
        """Threads held so far, each counted once jdb's line about it is whole."""
        return len(self.hit_lines())

    def hit_lines(self) -> list[str]:
        """What jdb said of each thread held, in order."""
        with self._lock:
            return [line.strip() for line in HIT_LINE.findall(self.output)]

    def wait(
        self,
        count: int,
        alive: subprocess.Popen[bytes],
        gave_up: Callable[[], str] = lambda: "",
        timeout: float = 600,
    ) -> None:
        """Until `count` threads are held; fails if the JVM's process ends
        first, or `gave_up` says why a thread never will be (its text)."""
        deadline = time.monotonic() + timeout
        while self.hits() < count:
            if alive.poll() is not None:
                raise AssertionError(
                    f"the process ended with {self.hits()} of {count} threads held:\n{self.output}"
                )
            reason = gave_up()
            if reason:
                raise AssertionError(f"{self.hits()} of {count} threads held: {reason}")
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.hits()} of {count} threads held in {timeout} s:\n{self.output}"
                )
            time.sleep(0.05)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def port_of(log: Path, process: subprocess.Popen[bytes], timeout: float = 300) -> int:
    """The debugging port the JVM of `process` printed to its output file."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = LISTENING.search(log.read_text(errors="replace")) if log.exists() else None
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            raise AssertionError(f"the process ended before its JVM started:\n{log.read_text()}")
        time.sleep(0.05)
    raise AssertionError(f"no JVM listening for a debugger in {timeout} s:\n{log.read_text()}")


@contextmanager
def attach(log: Path, process: subprocess.Popen[bytes], methods: list[str]) -> Iterator[Held]:
    """Breakpoints at `methods` in the JVM that `process` starts (its first),
    which runs once they are taken. Kill the process inside the `with`: on
    leaving it jdb goes, and a debugger's leaving clears its breakpoints and
    lets every held thread run on (the JVM prints a new "Listening" line),
    which on a busy machine can finish what the test meant to cut short."""
    held = Held(port_of(log, process), methods)
    try:
        held.resume_once_set()
        yield held
    finally:
        held.close()
