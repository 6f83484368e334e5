"""Settings for the GFRC annotator.

Configured through the environment so one file serves a laptop, CI and a server:
DATABASE_URL (default: SQLite in the project folder), SECRET_KEY, DEBUG, ALLOWED_HOSTS,
GFRC_MAX_UPLOAD_MB, GFRC_BACKGROUND_IMPORT_CONVERSATIONS, GFRC_BACKGROUND_IMPORT_BYTES, GFRC_LLM_SERVERS
(the LLM servers organisers may run a judge on: docs/security.md), and for a server behind HTTPS the
SECURE_* and CSRF_* variables below
(README, "Running it for a campaign"). With DEBUG off every HTTPS protection is on unless the
environment turns it off.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_flag("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me" if DEBUG else "")
if not SECRET_KEY:
    raise RuntimeError("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")

# HTTPS. Production answers only over HTTPS (a reverse proxy terminates TLS and says so in
# X-Forwarded-Proto); a trial on plain HTTP turns these off one by one.
SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_flag("SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = env_flag("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_flag("CSRF_COOKIE_SECURE", not DEBUG)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Only trust the header when a proxy in front sets it (and drops what clients send): a name
# such as X-Forwarded-Proto, whose value "https" marks a request that arrived over HTTPS.
if proxy_header := os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip():
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + proxy_header.upper().replace("-", "_"), "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",  # runserver serves static files the way production does
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_htmx",
    "template_partials",
    "axes",
    # before django_tasks_db: its `db_worker` command is annotator's (which first fails the
    # import jobs whose worker died, then runs django-tasks-db's worker)
    "annotator",
    "django_tasks",
    "django_tasks_db",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "annotator.throttling.retry_after",  # adds Retry-After to axes' lockout page
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into a 429 page
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite is the zero-set-up default. WAL lets readers work while one annotator saves, and
# IMMEDIATE transactions plus a busy timeout make concurrent writers queue instead of failing
# with "database is locked".
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=600, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Connections are kept per thread (conn_max_age above): these PRAGMAs run once, not per request.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    )
    # Tests use a file, not an in-memory database: WAL and the busy timeout then behave as in
    # production, and threads of the concurrency tests share one database (an in-memory shared
    # cache fails at once with "table is locked"). One file per process: parallel runs never meet.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("SQLITE_TEST_NAME")
        or str(Path(tempfile.gettempdir()) / f"gfrc-test-{os.getpid()}.sqlite3")
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Login throttling (django-axes): the login page, the admin's and POST /api/token/ all go
# through authenticate(), which the first backend refuses while an account or an address is
# locked. Locked after AXES_FAILURE_LIMIT failures per account and, separately, per address;
# unlocked after the cool-off or by `manage.py axes_reset_username USER` / `axes_reset_ip IP`.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_flag("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_MINUTES", "15")) / 60  # hours
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# Not axes' reset, which also deletes every failure counted for the address: the account's own
# failures are cleared on a successful login instead (annotator.throttling).
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
if proxy_header:
    # Behind the proxy every request comes from it: the client's address is the X-Real-IP the
    # proxy sets (README's nginx snippet), else failures of everyone would lock everyone out.
    AXES_CLIENT_IP_CALLABLE = "annotator.throttling.client_address"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# WhiteNoise serves /static/ from the app (gunicorn needs nothing else). With DEBUG off the files
# are those `collectstatic` wrote: hashed names, gzip/brotli twins, cached for a year. With DEBUG
# on (development, and the tests, which never run collectstatic) they are read from static/ as
# they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Conversation uploads: organisers' files are text; anything larger than this is refused.
GFRC_MAX_UPLOAD_MB = int(os.environ.get("GFRC_MAX_UPLOAD_MB", "20"))
DATA_UPLOAD_MAX_MEMORY_SIZE = GFRC_MAX_UPLOAD_MB * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
# Uploads holding more conversations than this are imported by the background worker
# (`manage.py db_worker`, which `make run` starts) instead of within the request.
GFRC_BACKGROUND_IMPORT_CONVERSATIONS = int(os.environ.get("GFRC_BACKGROUND_IMPORT_CONVERSATIONS", "2000"))
# ... and so are uploads larger than this (bytes, a zip counted unzipped): a few conversations
# can hold tens of thousands of nuggets, and the work grows with the bytes, not the
# conversations. 256 KiB of the densest nuggets (5,000, one word each) is the most a request
# imports itself: a few seconds at worst (docs/benchmarks.md, bench_nugget_import.py).
GFRC_BACKGROUND_IMPORT_BYTES = int(os.environ.get("GFRC_BACKGROUND_IMPORT_BYTES", str(256 * 1024)))

# The LLM servers an organiser may run a judge on, the deployment's own: a JSON object
#   {"NAME": {"base_url": "http://gpu-host:8000/v1", "key_variable": "VLLM_KEY", "models": ["qwen2.5-7b"]}}
# ("key_variable": the environment variable of the worker holding the API key, optional;
# "models": optional, any model when absent). Pages, forms and the API offer them by name only:
# nothing an organiser types chooses an address or a variable (annotator.llm_judge.servers
# checks the shape; `manage.py check` says what is wrong).
try:
    GFRC_LLM_SERVERS = json.loads(os.environ.get("GFRC_LLM_SERVERS", "").strip() or "{}")
except ValueError as error:
    raise RuntimeError(f"GFRC_LLM_SERVERS is not JSON: {error}") from None

# E-mail: the links that let new people set their password go out by e-mail when a mail server
# is configured (EMAIL_HOST, or an EMAIL_BACKEND); otherwise the organiser hands them out (shown
# once, downloadable as CSV). Those links (Django's password-reset tokens) stay valid this long.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_flag("EMAIL_USE_SSL", False)
if email_backend := os.environ.get("EMAIL_BACKEND", "").strip():
    EMAIL_BACKEND = email_backend
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "webmaster@localhost")
GFRC_EMAIL_LINKS = bool(EMAIL_HOST or email_backend)
PASSWORD_RESET_TIMEOUT = int(float(os.environ.get("GFRC_INVITATION_DAYS", "14")) * 24 * 3600)

# Background jobs (django-tasks) are rows in the database: no broker to install.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GFRC annotator API",
    "DESCRIPTION": "Campaigns, conversations, entities, nuggets and GFRC scores.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Vendored, no CDN. drf-spectacular takes a path, not a static() name: WhiteNoise serves
    # the unhashed copies collectstatic keeps beside the hashed ones.
    "SWAGGER_UI_DIST": f"/{STATIC_URL}vendor/swagger-ui",
    "SWAGGER_UI_FAVICON_HREF": f"/{STATIC_URL}favicon.ico",
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
