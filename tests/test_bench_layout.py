"""bench/ holds the benchmarks (one script each) and their library, bench/lib/. Dependencies point
one way: tests may use the library (its file generators) and run the scripts, the benchmarks
import nothing from tests/. Every script is in `make bench` and in bench/README.md's table, and
every one a test can run is run by one at its smallest size (tests/test_benches_run.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCRIPTS = sorted(path.name for path in BENCH.glob("*.py"))
# Needs Chromium: the browser suite's, which the unit suite does not start.
RUN_OUTSIDE_THE_UNIT_SUITE = {"bench_browser.py"}


def _imported_modules(path: Path) -> list[str]:
    modules = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.append(node.module)
    return modules


def _make_target(name: str) -> str:
    """The recipe of a Makefile target: its lines up to the next target."""
    makefile = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{name}:.*\n((?:\t.*\n|\s*\n)*)", makefile, re.MULTILINE)
    assert match, f"no {name} target in the Makefile"
    return match.group(1)


def test_there_are_benchmark_scripts_and_a_library_to_check():
    assert {"bench_http.py", "bench_scoring.py", "bench_ranked_lists.py"} <= set(SCRIPTS)
    assert (BENCH / "lib" / "__init__.py").exists()


def test_no_benchmark_nor_its_library_imports_anything_from_tests():
    offending = {str(path.relative_to(ROOT)): module for path in BENCH.rglob("*.py")
                 for module in _imported_modules(path) if module == "tests" or module.startswith("tests.")}
    assert offending == {}


def test_tests_use_the_bench_library_never_a_benchmark_script():
    offending = {str(path.relative_to(ROOT)): module for path in (ROOT / "tests").rglob("*.py")
                 for module in _imported_modules(path)
                 if (module == "bench" or module.startswith("bench.")) and not module.startswith("bench.lib")}
    assert offending == {}


def test_make_bench_runs_every_benchmark_script():
    assert sorted(set(re.findall(r"bench/(\w+\.py)", _make_target("bench")))) == SCRIPTS


def test_the_bench_readme_lists_every_benchmark_script_in_its_table():
    listed = re.findall(r"^\| `(\w+\.py)` \|", (BENCH / "README.md").read_text(), re.MULTILINE)
    assert sorted(listed) == SCRIPTS


def test_every_benchmark_a_test_can_run_is_run_by_one():
    tests_text = "\n".join(path.read_text() for path in (ROOT / "tests").rglob("*.py"))
    run_by_a_test = {script for script in SCRIPTS if f'"bench/{script}"' in tests_text}
    assert run_by_a_test == set(SCRIPTS) - RUN_OUTSIDE_THE_UNIT_SUITE
