"""A slow server for browser tests: a reverse proxy on loopback in front of the live server that
holds every POST (an edit, a Done, a login) for a while, half on its way to the server and half
on the answer's way back, as a loaded production server or a long network path would. Pages and static files come at once, so
the test is about what the annotator does while edits are on their way.

    with SlowServer(live_server.url, delay=0.4) as slow:
        page.goto(slow.url + "/...")
"""

from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# hop-by-hop headers (RFC 9110 7.6.1) and the length, which the proxy sets itself
SKIPPED = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
           "content-length"}


class SlowServer:
    def __init__(self, upstream: str, delay: float):
        target = urlsplit(upstream)
        self.upstream = (target.hostname, target.port)
        self.delay = delay
        self.posts = 0  # answers held so far
        self.most_at_once = 0  # the most POSTs on their way at one time
        self._on_the_way = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> SlowServer:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet, as the live server is
                pass

            def do_GET(self) -> None:
                self._forward(slow=False)

            def do_POST(self) -> None:
                self._forward(slow=True)

            def _forward(self, slow: bool) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if slow:
                    with proxy._lock:
                        proxy._on_the_way += 1
                        proxy.most_at_once = max(proxy.most_at_once, proxy._on_the_way)
                upstream = http.client.HTTPConnection(*proxy.upstream, timeout=60)
                try:
                    if slow:  # half on the way there (the edit is written late), half on the way back
                        time.sleep(proxy.delay / 2)
                    # the Host header goes on as the browser sent it: Django checks the Origin against it
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in SKIPPED}
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream.getresponse()
                    content = answer.read()
                    if slow:
                        time.sleep(proxy.delay / 2)
                finally:
                    upstream.close()
                    if slow:
                        with proxy._lock:
                            proxy._on_the_way -= 1
                            proxy.posts += 1
                self.send_response(answer.status, answer.reason)
                for name, value in answer.getheaders():
                    if name.lower() not in SKIPPED:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

        return Handler
