"""Which address a login attempt comes from, for the lockout per address (django-axes)."""

from __future__ import annotations

from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """Behind the reverse proxy: the X-Real-IP it sets, overwriting whatever a client sent.

    Only used when the settings say a proxy is in front (SECURE_PROXY_SSL_HEADER): gunicorn
    then listens on loopback and no client can reach it without the proxy.
    """
    return request.META.get("HTTP_X_REAL_IP") or request.META.get("REMOTE_ADDR")
