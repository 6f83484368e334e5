"""Settings of bench_floor.py's server: the product's, with the floor views added to its URLs."""

from config.settings import *  # noqa: F401,F403

ROOT_URLCONF = "bench.floor_urls"
