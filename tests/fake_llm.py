"""A fake OpenAI-compatible chat server on 127.0.0.1 for the tests of the LLM client and of claims in the wild.

A pytest plugin (``pytest_plugins`` in tests/conftest.py), so the ``fake_llm`` fixture reaches every folder;
``chat_reply`` is imported as ``from tests.fake_llm import chat_reply``.

``fake_llm`` starts ``http.server`` in a thread; the test scripts its replies with ``server.script``:
each entry is ``(status, body)`` (a dict is sent as JSON, a str as it is), optionally with
``delay`` seconds and extra headers, or a callable ``request_json -> (status, body)``.  When the script
runs out, the last entry is repeated.  ``server.requests`` holds every request body received.

A slow server: ``{"trickle": seconds}`` sends the reply ``chunk`` bytes (default 1) at a time with that pause
between chunks -- the body only, or the status line and headers too with ``"trickle_headers": True`` -- and
then keeps the connection open until the client closes it.  ``server.disconnects`` counts the trickled
replies whose client went away before the server stopped.
"""
import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def chat_reply(*texts):
    """A chat-completion body with one choice per text."""
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                        for i, t in enumerate(texts)]}


class FakeServer:
    def __init__(self):
        self.script, self.requests, self.paths = [], [], []
        self.disconnects = 0
        self.stopping = threading.Event()
        handler = self._handler()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _serve(self):
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    request = json.loads(raw) if raw else {}
                except ValueError:
                    request = {"raw": raw.decode("utf-8", "replace")}
                server.requests.append(request)
                server.paths.append(self.path)
                index = min(len(server.requests) - 1, len(server.script) - 1)
                entry = server.script[index] if server.script else (500, {"error": "no script"})
                if callable(entry):
                    entry = entry(request)
                status, body, *rest = entry
                options = rest[0] if rest else {}
                if options.get("delay"):
                    time.sleep(options["delay"])
                data = json.dumps(body).encode() if isinstance(body, (dict, list)) else str(body).encode()
                if options.get("trickle"):
                    self._trickle(status, data, options)
                    return
                try:
                    self.send_response(status)
                    self.send_header("content-type", options.get("content_type", "application/json"))
                    for key, value in options.get("headers", {}).items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _trickle(self, status, data, options):
                interval, size = options["trickle"], options.get("chunk", 1)
                head = "".join([f"{self.protocol_version} {status} {self.responses.get(status, ('',))[0]}\r\n",
                                f"content-type: {options.get('content_type', 'application/json')}\r\n",
                                *(f"{k}: {v}\r\n" for k, v in options.get("headers", {}).items()),
                                f"content-length: {len(data)}\r\n\r\n"]).encode()
                pieces = [head[i:i + size] for i in range(0, len(head), size)] if options.get("trickle_headers") \
                    else [head]
                pieces += [data[i:i + size] for i in range(0, len(data), size)]
                try:
                    for i, piece in enumerate(pieces):
                        if i and server.stopping.wait(interval):
                            return
                        self.wfile.write(piece)
                    while not server.stopping.wait(interval):  # hold the connection until the client closes it
                        if select.select([self.connection], [], [], 0)[0] \
                                and not self.connection.recv(1, socket.MSG_PEEK):
                            break
                    else:
                        return
                except (BrokenPipeError, ConnectionResetError):
                    pass
                server.disconnects += 1

            do_POST = _serve
            do_GET = _serve

        return Handler

    def close(self):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_llm(monkeypatch):
    server = FakeServer()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("PROOFBOOK_LLM_MODEL", "fake-model")
    yield server
    server.close()
