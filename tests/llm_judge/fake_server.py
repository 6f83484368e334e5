"""A tiny OpenAI-compatible HTTP server for the failure cases a real server cannot be made to
produce on demand: errors, slowness, broken answers. The round trip itself is tested against
llama.cpp's real server (test_real_server.py).

    with FakeServer(answer=lambda body: '{"entities": []}') as server:
        server.base_url  # http://127.0.0.1:PORT/v1
        server.requests  # the JSON bodies received

`answer(body)` returns the content (str), or (content, finish_reason), or (status, message,
a redirect's location, annotations, more response fields, a delay) via `Reply`; `delay`
seconds before answering (a slow server).
`keys` are the Authorization headers received: what a listener standing in for somebody's own
server would have learnt."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    status: int = 200
    content: str | None = None
    finish_reason: str = "stop"
    message: str = ""
    location: str = ""  # a redirect's Location header (status 3xx)
    annotations: tuple = ()  # the message's (url_citation annotations: a search model's citations)
    extra: dict | None = None  # more fields of the response (Perplexity's search_results, citations)
    model: str = ""  # the model the answer says answered (default: the one asked)
    delay: float = 0.0  # seconds before this answer is sent (a timeout)


def turn_text(body: dict) -> str:
    """The system turn a request asks about (between the prompt's <<< and >>>)."""
    prompt = body["messages"][-1]["content"]
    return prompt.split("<<<\n", 1)[1].rsplit("\n>>>", 1)[0]


class FakeServer:
    def __init__(self, answer, delay: float = 0.0):
        self.answer = answer
        self.delay = delay
        self.requests: list[dict] = []
        self.keys: list[str] = []  # the Authorization header of each request
        self.active = 0
        self.most_at_once = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake.lock:
                    fake.requests.append(body)
                    fake.keys.append(self.headers.get("Authorization", ""))
                    fake.active += 1
                    fake.most_at_once = max(fake.most_at_once, fake.active)
                try:
                    if fake.delay:
                        time.sleep(fake.delay)
                    reply = fake.answer(body)
                finally:
                    with fake.lock:
                        fake.active -= 1
                if isinstance(reply, str):
                    reply = Reply(content=reply)
                elif isinstance(reply, tuple):
                    reply = Reply(content=reply[0], finish_reason=reply[1])
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    payload = {"error": {"message": reply.message or "failure", "type": "server_error"}}
                else:
                    payload = {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": reply.model or body["model"],
                        "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                                     "message": {"role": "assistant", "content": reply.content,
                                                 **({"annotations": list(reply.annotations)} if reply.annotations else {})}}],
                        "usage": {"prompt_tokens": 100, "completion_tokens": len((reply.content or "").split()),
                                  "total_tokens": 100 + len((reply.content or "").split())},
                        **(reply.extra or {}),
                    }
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    if reply.location:
                        self.send_header("Location", reply.location)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
