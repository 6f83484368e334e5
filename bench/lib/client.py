"""One annotator's browser tab, as the server sees it: a keep-alive connection, the session and
CSRF cookies, htmx's headers, the login form."""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlencode

from bench.lib.seeding import PASSWORD


class Browser:
    """One annotator's tab: keep-alive connection, session and CSRF cookies, htmx headers."""

    def __init__(self, port: int):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, data: dict | None = None, htmx: bool = False,
                files: dict[str, tuple[str, bytes]] | None = None) -> tuple[int, dict, bytes]:
        """`files`: field -> (file name, content), sent as multipart/form-data with `data`."""
        headers = {"Host": f"127.0.0.1:{self.port}", "Connection": "keep-alive"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if method == "POST":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            headers["Referer"] = f"http://127.0.0.1:{self.port}{path}"
            headers["Origin"] = f"http://127.0.0.1:{self.port}"
            body = urlencode(data or {})
            if files:
                headers["Content-Type"], body = _multipart(data or {}, files)
        if htmx:
            headers["HX-Request"] = "true"
            headers["HX-Current-URL"] = f"http://127.0.0.1:{self.port}{path}"
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                content = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if attempt == 2:
                    raise
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, {k.lower(): v for k, v in response.getheaders()}, content

    def login(self, username: str, password: str = PASSWORD) -> None:
        status, _, page = self.request("GET", "/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert status == 200 and token, "no login form"
        status, headers, _ = self.request(
            "POST", "/accounts/login/",
            {"csrfmiddlewaretoken": token.group(1).decode(), "username": username, "password": password},
        )
        assert status == 302 and "sessionid" in self.cookies, f"login failed for {username}: {status}"

    def close(self) -> None:
        self.connection.close()


def _multipart(data: dict, files: dict[str, tuple[str, bytes]]) -> tuple[str, bytes]:
    boundary = "gfrc-bench-boundary-7d1c9a"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in data.items()]
    for field, (name, content) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + content + b"\r\n")
    return f"multipart/form-data; boundary={boundary}", b"".join(parts) + f"--{boundary}--\r\n".encode()
