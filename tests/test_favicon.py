"""/favicon.ico: browsers ask for it on a first visit; it is served, and the pages link it."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_ico_is_served_as_an_icon():
    response = Client().get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"  # the ICO header


def test_the_pages_link_the_icon():
    html = Client().get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.ico">' in html
