"""Production settings come from the environment: with the README's production environment
`manage.py check --deploy` finds nothing, and each HTTPS protection can be set or turned off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The README's "Running it for a campaign" environment, word for word.
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k3y-0f-f1fty-ch4r4ct3rs-or-m0re-XNqv8Wc2LzRt5Yh9Jm4Pd7Sg6Fb1Kw",
    "ALLOWED_HOSTS": "gfrc.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://gfrc.example.org",
    "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
}
SETTINGS = [
    "DEBUG", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
    "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "CSRF_TRUSTED_ORIGINS", "SECURE_PROXY_SSL_HEADER",
    "STORAGES", "AXES_CLIENT_IP_CALLABLE",
]


def clean_environment(**env) -> dict:
    """This process's environment without any setting the test decides, plus `env`."""
    environment = {k: v for k, v in os.environ.items() if k not in {*PRODUCTION_ENV, *SETTINGS, "DATABASE_URL"}}
    environment.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    return environment


def check_deploy(**env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=clean_environment(**env), capture_output=True, text=True, timeout=120,
    )


def settings_in_a_fresh_process(**env) -> dict:
    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        f"print(json.dumps({{name: getattr(settings, name, None) for name in {SETTINGS!r}}}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean_environment(**env),
                         capture_output=True, text=True, check=True, timeout=60)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_check_deploy_with_the_documented_production_environment_gives_no_warnings():
    result = check_deploy(**PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_warns_when_the_environment_turns_the_https_protections_off():
    result = check_deploy(**PRODUCTION_ENV, SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0",
                          CSRF_COOKIE_SECURE="0", SECURE_HSTS_SECONDS="0")
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr


def test_with_debug_off_every_https_protection_is_on_and_static_files_are_hashed_and_compressed():
    config = settings_in_a_fresh_process(**PRODUCTION_ENV)
    assert config["DEBUG"] is False
    assert config["SECURE_SSL_REDIRECT"] and config["SESSION_COOKIE_SECURE"] and config["CSRF_COOKIE_SECURE"]
    assert config["SECURE_HSTS_SECONDS"] == 31536000
    assert config["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and config["SECURE_HSTS_PRELOAD"]
    assert config["CSRF_TRUSTED_ORIGINS"] == ["https://gfrc.example.org"]
    assert config["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    # Behind the proxy, the login lockout counts the client's address, not the proxy's.
    assert config["AXES_CLIENT_IP_CALLABLE"] == "annotator.throttling.client_address"
    assert config["STORAGES"]["staticfiles"]["BACKEND"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"


def test_each_https_setting_comes_from_the_environment():
    config = settings_in_a_fresh_process(**{
        **PRODUCTION_ENV, "SECURE_SSL_REDIRECT": "0", "SECURE_HSTS_SECONDS": "3600",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "0", "SECURE_HSTS_PRELOAD": "0", "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0", "CSRF_TRUSTED_ORIGINS": "https://a.example, https://b.example",
    })
    assert not (config["SECURE_SSL_REDIRECT"] or config["SESSION_COOKIE_SECURE"] or config["CSRF_COOKIE_SECURE"])
    assert config["SECURE_HSTS_SECONDS"] == 3600
    assert not (config["SECURE_HSTS_INCLUDE_SUBDOMAINS"] or config["SECURE_HSTS_PRELOAD"])
    assert config["CSRF_TRUSTED_ORIGINS"] == ["https://a.example", "https://b.example"]


def test_in_development_nothing_insists_on_https_and_static_files_are_read_as_they_are():
    config = settings_in_a_fresh_process()
    assert config["DEBUG"] is True
    assert not (config["SECURE_SSL_REDIRECT"] or config["SESSION_COOKIE_SECURE"] or config["SECURE_HSTS_SECONDS"])
    assert config["SECURE_PROXY_SSL_HEADER"] is None and config["AXES_CLIENT_IP_CALLABLE"] is None
    assert config["STORAGES"]["staticfiles"]["BACKEND"] == "django.contrib.staticfiles.storage.StaticFilesStorage"
