"""Fixtures of the API tests: the console's demo campaign and API clients per role."""

import pytest
from rest_framework.test import APIClient

from tests.console.conftest import campaign, demo  # noqa: F401  (the same demo campaign as the console's)
from tests.factories import make_campaign, make_user


@pytest.fixture
def api_as(demo):
    def _client(role: str) -> APIClient:
        client = APIClient()
        if role == "anonymous":
            return client
        user = {
            "annotator": lambda: demo[2][0],
            "bob": lambda: demo[2][1],
            "organiser": lambda: demo[1],
            "other organiser": lambda: _other_organiser(),
        }[role]()
        client.force_authenticate(user)
        return client

    return _client


def _other_organiser():
    from django.contrib.auth import get_user_model

    existing = get_user_model().objects.filter(username="other-org").first()
    if existing is not None:
        return existing
    other = make_user("other-org")
    make_campaign("other", organiser=other)
    return other
