"""A small OpenAI-compatible HTTP stub on 127.0.0.1 (stdlib `http.server` in a thread) for
the unit tests of the client's retry, budget and error handling: it answers
``/v1/chat/completions`` and ``/v1/completions`` deterministically (the answer names the
prompt, the sample and the seed), serves ``/v1/models``, and plays scripted faults (a
status with headers, a raw body, a delay) in the order they are queued. It records every
request (path, headers, JSON body) and the largest number of requests in flight at once.

A scripted body may echo the bearer key the request carried, as a careless server would:
``<<KEY>>`` (as sent), ``<<KEY_UPPER>>``, ``<<KEY_URL>>`` (every character
percent-encoded) and ``<<AUTH>>`` (the whole Authorization header). Run as a process
(``python _openai_stub.py PORT``), it takes its script over HTTP: ``POST /_script`` with
a JSON list of `Reply` fields replaces the script (the key-leak test scripts a
`LocalServer` that way).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """A scripted reply: `status`, `headers`, a raw `body` (None: the normal answer,
    changed by `content`/`finish_reason`), after `delay` seconds."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    delay: float = 0.0
    content: str | None = None
    finish_reason: str = "stop"


def _echo(text: str, auth: str) -> str:
    """`text` with the key placeholders filled in from the request's `auth` header."""
    key = auth.removeprefix("Bearer ")
    return (text.replace("<<KEY>>", key).replace("<<KEY_UPPER>>", key.upper())
            .replace("<<KEY_URL>>", "".join(f"%{b:02X}" for b in key.encode()))
            .replace("<<AUTH>>", auth))


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class OpenAIStub:
    """The stub server: `url` is its API root (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, *, honour_n: bool = True, delay: float = 0.0, port: int = 0) -> None:
        self.honour_n = honour_n
        self.delay = delay
        self.script: deque[Reply] = deque()
        self.requests: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") in ("/v1/models", "/health"):
                    self._send(200, json.dumps({"data": [{"id": "stub"}]}), {})
                else:
                    self._send(404, json.dumps({"error": {"message": "no such path"}}), {})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                if self.path == "/_script":  # the script of a stub process, over HTTP
                    with stub.lock:
                        stub.script.clear()
                        stub.script.extend(Reply(**fields) for fields in body)
                    self._send(200, "{}", {})
                    return
                with stub.lock:
                    stub.requests.append(Seen(self.path, dict(self.headers), body))
                    reply = stub.script.popleft() if stub.script else Reply()
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    time.sleep(reply.delay or stub.delay)
                    if reply.body is not None or reply.status != 200:
                        text = reply.body if reply.body is not None else json.dumps(
                            {"error": {"message": f"scripted {reply.status}"}})
                        text = _echo(text, self.headers.get("authorization", ""))
                        self._send(reply.status, text, reply.headers)
                        return
                    self._send(200, json.dumps(stub.answer(self.path, body, reply)),
                               reply.headers)
                finally:
                    with stub.lock:
                        stub.in_flight -= 1

            def _send(self, status: int, text: str, headers: dict[str, str]) -> None:
                data = text.encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, path: str, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """The normal answer: choice i is "<prompt> #i seed=<seed + i>" (or `content`)."""
        n = int(body.get("n", 1)) if self.honour_n else 1
        seed = body.get("seed")
        if path.endswith("/chat/completions"):
            prompt = body["messages"][-1]["content"]
        else:
            prompt = body["prompt"]
        choices = []
        for i in range(n):
            text = reply.content if reply.content is not None else (
                f"{prompt} #{i} seed={None if seed is None else seed + i}")
            if path.endswith("/chat/completions"):
                choices.append({"index": i, "message": {"role": "assistant", "content": text},
                                "finish_reason": reply.finish_reason})
            else:
                choices.append({"index": i, "text": text,
                                "finish_reason": reply.finish_reason})
        return {"id": "x", "object": "stub", "model": body.get("model"), "choices": choices,
                "usage": {"prompt_tokens": 3, "completion_tokens": 2 * n,
                          "total_tokens": 3 + 2 * n}}

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":  # a stub server process: python _openai_stub.py PORT
    import sys

    with OpenAIStub(port=int(sys.argv[1])) as running:
        print(f"stub serving {running.url}", flush=True)
        running.thread.join()
