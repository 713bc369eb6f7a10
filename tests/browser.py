"""Headless Chromium for the results site's browser tests (tests/test_site_browser.py), driven over the
Chrome DevTools protocol with the standard library alone: a minimal WebSocket client (RFC 6455, text
frames) and the few protocol commands the tests need, so the tests add no dependency.

Chromium is Debian's ``chromium`` (``make browser`` installs it where it can); ``NETZBENCH_CHROMIUM``
names another executable. :func:`find_chromium` returns None when there is none: the tests skip then.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

#: executable names Chromium goes by (Debian, Ubuntu's snap wrapper, Google's builds)
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell")
TIMEOUT_S = 30.0


def find_chromium() -> str | None:
    """The Chromium executable: ``NETZBENCH_CHROMIUM`` if set, else the first of :data:`NAMES` on PATH."""
    given = os.environ.get("NETZBENCH_CHROMIUM")
    if given:
        return given if os.access(given, os.X_OK) else shutil.which(given)
    return next((path for name in NAMES if (path := shutil.which(name))), None)


class WebSocket:
    """A client WebSocket over a plain TCP socket: masked text frames out; text, continuation, ping
    and close frames in (enough for the DevTools protocol on localhost)."""

    def __init__(self, url: str, timeout: float = TIMEOUT_S):
        u = urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           ).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the connection during the handshake")
            head += chunk
        head, _, self.buffer = head.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"no WebSocket upgrade: {head[:200]!r}")

    def _exact(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise ConnectionError("the browser closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _send(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        size = bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + struct.pack(">H", n) if n < 1 << 16
                                                  else bytes([0x80 | 127]) + struct.pack(">Q", n))
        mask = os.urandom(4)  # a client masks every frame (RFC 6455, 5.3)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x80 | opcode]) + size + mask + masked)

    def send(self, text: str) -> None:
        self._send(0x1, text.encode())

    def recv(self) -> str:
        parts = []
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)  # the server does not mask
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self._send(0xA, payload)
            elif opcode == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            elif opcode in (0x0, 0x1):
                parts.append(payload)
                if b0 & 0x80:
                    return b"".join(parts).decode()

    def close(self) -> None:
        self.sock.close()


class Page:
    """One browser tab: protocol commands, and every event seen (console messages, exceptions, requests)."""

    def __init__(self, ws: WebSocket):
        self.ws, self.events, self._id = ws, [], 0
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params):
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, event: str, timeout: float = TIMEOUT_S) -> dict:
        """The first ``event`` not yet consumed (events seen while waiting stay in :attr:`events`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, msg in enumerate(self.events):
                if msg.get("method") == event and not msg.get("_consumed"):
                    msg["_consumed"] = True
                    return msg
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(event)

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-able values only)."""
        out = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in out:
            raise RuntimeError(f"{expression}: {out['exceptionDetails']}")
        return out["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the middle of the first element ``selector`` matches."""
        box = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                            "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def resize(self, width: int, height: int = 900, mobile: bool = False) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=mobile)

    def screenshot(self, path: Path) -> Path:
        """The whole page (not only the viewport) as a PNG at ``path``."""
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def problems(self) -> list[str]:
        """Console errors and uncaught exceptions seen so far (a missing file included)."""
        out = []
        for msg in self.events:
            method, p = msg.get("method"), msg.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = p["exceptionDetails"]
                out.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')} "
                           f"({details.get('url', '')}:{details.get('lineNumber')})")
            elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(f"console.{p['type']}: {[a.get('value', a.get('description')) for a in p['args']]}")
            elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"log: {p['entry']['text']} ({p['entry'].get('url', '')})")
        return out

    def requested(self) -> list[str]:
        """Every URL the page asked for."""
        return [m["params"]["request"]["url"] for m in self.events if m.get("method") == "Network.requestWillBeSent"]

    def forget(self) -> None:
        self.events.clear()


class Chromium:
    """A headless Chromium process with one tab (:attr:`page`); :meth:`close` ends it."""

    def __init__(self, proc: subprocess.Popen, profile: Path, page: Page):
        self.proc, self.profile, self.page = proc, profile, page

    def close(self) -> None:
        self.page.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def start_chromium(executable: str, timeout: float = TIMEOUT_S) -> Chromium:
    """Chromium started headless on a fresh profile, its DevTools port on localhost only, no network
    services of its own (updates, sync, field trials), and its tab attached."""
    profile = Path(tempfile.mkdtemp(prefix="netzbench-chromium-"))
    proc = subprocess.Popen([executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run",
                             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                             "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
                             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                             f"--user-data-dir={profile}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file, deadline = profile / "DevToolsActivePort", time.monotonic() + timeout
    try:
        while not (port_file.is_file() and port_file.read_text().count("\n") >= 1):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{executable} did not start (exit status {proc.poll()})")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as resp:
            targets = json.loads(resp.read())
        tab = next(t for t in targets if t.get("type") == "page")
        return Chromium(proc, profile, Page(WebSocket(tab["webSocketDebuggerUrl"], timeout)))
    except BaseException:
        proc.kill()
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
        raise
