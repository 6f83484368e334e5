import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_login_throttling(settings):
    """django-axes needs the request in every authenticate() call and counts failures across
    tests; the throttling tests (tests/security/test_login_throttling.py) turn it back on."""
    settings.AXES_ENABLED = False
