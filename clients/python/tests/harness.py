"""The vouch server the tests run against.

With VOUCH_SERVER set, the tests use that server (and VOUCH_API_KEY, when
set, as their key). Otherwise they start ``vouch serve`` themselves, on a
free loopback port with a store in a temporary directory and an admin key
made for the run: the binary is VOUCH_BIN, else one built with ``go build``
from this repository (the tests are skipped, saying why, when neither is
possible). The server is started once for the whole run and stopped when the
run ends.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import typing as t
import unittest
import urllib.error
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
"""The repository root (clients/python/tests/../../..)."""

START_TIMEOUT = 60.0
BUILD_TIMEOUT = 1200.0


class Server:
    """A running server.

    Attributes:
        url: Its base URL.
        api_key: The key the tests authenticate with; None in open mode.
        keyed: Whether the server asks every caller for a key.
    """

    def __init__(self, url: str, api_key: t.Optional[str], keyed: bool) -> None:
        self.url = url
        self.api_key = api_key
        self.keyed = keyed
        self._proc: t.Optional[subprocess.Popen] = None  # type: ignore[type-arg]
        self._dir: t.Optional[str] = None
        self._log: t.Deque[str] = collections.deque(maxlen=200)

    def log(self) -> str:
        """The last lines the server wrote on standard error."""
        return "\n".join(self._log)

    def stop(self) -> None:
        """Stops a server the tests started, and removes its store."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=15)
        self._proc = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


_server: t.Optional[Server] = None
_skip: t.Optional[str] = None
_lock = threading.Lock()


def server() -> Server:
    """Returns the server of the run, starting it on first use; raises
    unittest.SkipTest when there is none to be had."""
    global _server, _skip
    with _lock:
        if _skip is not None:
            raise unittest.SkipTest(_skip)
        if _server is None:
            try:
                _server = _connect()
            except unittest.SkipTest as e:
                _skip = str(e)
                raise
            atexit.register(_server.stop)
        return _server


def _connect() -> Server:
    url = os.environ.get("VOUCH_SERVER", "").rstrip("/")
    if url:
        key = os.environ.get("VOUCH_API_KEY") or None
        _wait_ready(url, None, deadline=time.monotonic() + START_TIMEOUT)
        return Server(url, key, keyed=_asks_for_key(url))
    return _start(_binary())


def _binary() -> str:
    b = os.environ.get("VOUCH_BIN")
    if b:
        if not os.access(b, os.X_OK):
            raise RuntimeError(f"VOUCH_BIN={b} is not an executable")
        return b
    go = shutil.which("go")
    if go is None or not os.path.exists(os.path.join(REPO, "go.mod")):
        raise unittest.SkipTest(
            "no server to test against: set VOUCH_SERVER (a running vouch serve) "
            "or VOUCH_BIN (a vouch binary), or install Go to build one"
        )
    out = os.path.join(tempfile.mkdtemp(prefix="vouch-pytest-bin-"), "vouch")
    atexit.register(shutil.rmtree, os.path.dirname(out), True)
    subprocess.run(
        [go, "build", "-o", out, "./cmd/vouch"],
        cwd=REPO,
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    return out


def _start(binary: str) -> Server:
    d = tempfile.mkdtemp(prefix="vouch-pytest-")
    store = os.path.join(d, "vouch.db")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VOUCH_")}
    env["VOUCH_LOG_LEVEL"] = "warn"
    made = subprocess.run(
        [binary, "keys", "create", "--store", store, "--tenant", "clients-test",
         "--scope", "admin", "--name", "python-tests", "--json"],
        env=env, check=True, capture_output=True, timeout=60,
    )
    key = json.loads(made.stdout)["key"]
    proc = subprocess.Popen(
        [binary, "serve", "--addr", "127.0.0.1:0", "--store", store,
         "--no-dashboard", "--no-mcp"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    srv = Server("", key, keyed=True)
    srv._proc, srv._dir = proc, d
    lines: "queue.Queue[t.Optional[str]]" = queue.Queue()

    def drain() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            srv._log.append(line)
            lines.put(line)
        lines.put(None)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT
    prefix = "vouch serve: listening on "
    while not srv.url:
        try:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
        except queue.Empty:
            line = None
        if line is None:
            srv.stop()
            raise RuntimeError(f"vouch serve did not start in time:\n{srv.log()}")
        if line.startswith(prefix):
            srv.url = line[len(prefix):].split(" ")[0]
    try:
        _wait_ready(srv.url, key, deadline)
    except Exception:
        srv.stop()
        raise
    return srv


def _wait_ready(url: str, key: t.Optional[str], deadline: float) -> None:
    """Polls /readyz until the server answers 200, or the deadline."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    last: object = None
    while time.monotonic() < deadline:
        try:
            with opener.open(url + "/readyz", timeout=5) as res:
                if res.status == 200:
                    return
        except (urllib.error.URLError, OSError) as e:
            last = e
        time.sleep(0.05)
    raise RuntimeError(f"{url} is not ready: {last}")


def _asks_for_key(url: str) -> bool:
    """Whether the server refuses a call without a key (it is not in open
    mode)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url + "/v1/alerts", timeout=10):
            return False
    except urllib.error.HTTPError as e:
        return e.code == 401
