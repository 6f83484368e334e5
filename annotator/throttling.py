"""Login throttling around django-axes: which address an attempt comes from, and when to try again."""

from __future__ import annotations

import math
from collections.abc import Callable

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse


def client_address(request: HttpRequest) -> str | None:
    """Behind the reverse proxy: the X-Real-IP it sets, overwriting whatever a client sent.

    Only used when the settings say a proxy is in front (SECURE_PROXY_SSL_HEADER): gunicorn
    then listens on loopback and no client can reach it without the proxy.
    """
    return request.META.get("HTTP_X_REAL_IP") or request.META.get("REMOTE_ADDR")


def retry_after(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """Middleware around django-axes': its lockout page (login and admin) says when to try
    again, in a Retry-After header, as the API's 429 does."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if response.status_code == 429 and getattr(request, "axes_locked_out", False) and "Retry-After" not in response:
            cool_off = get_cool_off(request)
            if cool_off:
                response["Retry-After"] = str(math.ceil(cool_off.total_seconds()))
        return response

    return middleware
