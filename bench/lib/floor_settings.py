"""Settings of the floor's server (bench_floor.py, bench_http.py, profile_save.py): the
product's, with the floor's bare views added to its URLs."""

from config.settings import *  # noqa: F401,F403

ROOT_URLCONF = "bench.lib.floor_urls"
