"""Login throttling around django-axes: which address an attempt comes from, when to try again,
and whose failures a successful login or an organiser's "Unlock" clears.

django-axes counts failures per (user name, address, browser) row and locks a name, and
separately an address, once either's rows add up to AXES_FAILURE_LIMIT. Its own resets delete
rows: on a successful login every row of the name *and of the address* (so whoever knows one
password could log in between guesses at another and guess without end), and
`axes.utils.reset(username=...)` every row of the name (so an organiser's unlock also wiped
what the guessing address had counted). Here an account's failures are cleared and nothing
else: its rows keep counting for their addresses, under no name (`clear_account_failures`),
after a successful login (AXES_RESET_ON_SUCCESS is off, `_cleared_on_login` does it) and when
an organiser unlocks the account.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
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


def clear_account_failures(username: str) -> int:
    """The account `username` is no longer locked by its failed logins; the addresses they came
    from keep counting them (the rows stay, without a name). Returns how many rows were cleared."""
    return AccessAttempt.objects.filter(username=username).update(username=None)


@receiver(user_logged_in, dispatch_uid="annotator.throttling.cleared_on_login")
def _cleared_on_login(sender, request, user, **kwargs) -> None:
    clear_account_failures(user.get_username())
