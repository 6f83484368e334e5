import os

# numpy's OpenBLAS runs a matrix product on every core and then keeps its threads spinning:
# `score_runs` on a FairWeb-size round (5,000 lists x 1,000 ranks, `weights @ discounts`) spent
# the second core's CPU on it for no gain in wall time (docs/benchmarks-history.md, "Ranked-list
# runs"). The app's parallelism is its workers (several gunicorn processes, the import worker),
# whose CPU those threads would take. Set here, before anything imports numpy: every entry point
# (manage.py, config.wsgi, the tests) loads this package first. An operator's own
# OPENBLAS_NUM_THREADS is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
