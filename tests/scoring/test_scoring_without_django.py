"""The scoring core, the annotation rules (annotator/rules/) and the file formats
(annotator/interchange/formats/) must run where Django cannot even be imported (numpy + stdlib only;
the formats also orjson, which writes the JSONL lines; the run-file reader also pyarrow, a large
file's columns read without a Python string a field)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules_on_disk(package: str, folder: Path) -> list[str]:
    """Every module of a package, found on disk: a new module is held to the rule too."""
    return sorted(".".join([package, *path.relative_to(folder).with_suffix("").parts]).removesuffix(".__init__")
                  for path in folder.rglob("*.py"))


# Statistics over run scores may use scipy.stats too (still no Django).
STATISTICS_MODULES = ["scoring.significance", "scoring.intervals"]
# The rest of the scoring core, the plain-Python oracles of scoring/reference/ included.
PURE_MODULES = [m for m in _modules_on_disk("scoring", ROOT / "scoring") if m not in STATISTICS_MODULES]
PURE_PACKAGES = {"annotator.rules": ROOT / "annotator" / "rules", "annotator.interchange.formats": ROOT / "annotator" / "interchange" / "formats"}
PURE_ANNOTATOR_MODULES = sorted(m for package, folder in PURE_PACKAGES.items() for m in _modules_on_disk(package, folder))

PROBE = """
import importlib, json, sys

# What the interpreter loaded before the probe (a distribution's sitecustomize, as Debian's python3
# has) is not loaded by the modules under test.
at_start = set(sys.modules)

class RefuseDjango:
    '''Make every django import fail, as in an environment where Django is not installed.'''
    def find_spec(self, name, path=None, target=None):
        if name == "django" or name.startswith("django.") or name.startswith("rest_framework"):
            raise ImportError(f"{name} is not allowed in the scoring core")
        return None

sys.meta_path.insert(0, RefuseDjango())
for module in MODULES:
    importlib.import_module(module)
CALL
top_level = sorted({name.split(".")[0] for name in set(sys.modules) - at_start})
outside = [n for n in top_level if n not in sys.stdlib_module_names and n not in ALLOWED
           and not n.startswith("_")]
print(json.dumps({"django": [n for n in sys.modules if n.startswith("django")], "outside": outside}))
"""


def _loaded(modules: list[str], allowed: tuple[str, ...], call: str = "") -> dict:
    probe = PROBE.replace("MODULES", repr(modules)).replace("ALLOWED", repr(allowed)).replace("CALL", call)
    completed = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n{probe}"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_scoring_modules_import_with_django_made_unimportable_and_load_only_numpy_and_stdlib():
    assert {"scoring.gfrc", "scoring.reference", "scoring.reference.gfrc", "scoring.reference.gfr",
            "scoring.reference.agreement", "scoring.reference.gfr_from_files"} <= set(PURE_MODULES)
    # krippendorff (agreement's alpha) is itself numpy and stdlib only
    call = "from scoring.agreement import krippendorff_alpha; krippendorff_alpha([[1, 2, None], [1, 3, 2]], 'ordinal')"
    assert _loaded(PURE_MODULES, ("numpy", "scoring", "krippendorff"), call) == {"django": [], "outside": []}


def test_the_statistics_modules_compare_runs_and_take_intervals_with_django_made_unimportable_using_numpy_and_scipy_only():
    call = (
        "from scoring import significance; import numpy as np; "
        "significance.compare_runs(np.random.default_rng(0).random((6, 3)), ['a', 'b', 'c'], permutations=50); "
        "significance.topics_for_anova(0.02, 0.05, 3); significance.standardise(np.ones((2, 2))); "
        "from scoring import intervals; intervals.mean_intervals([[0.1, 0.4], [0.3, None, 0.2]])"
    )
    assert _loaded(STATISTICS_MODULES, ("numpy", "scipy", "cython_runtime", "scoring"), call) == {"django": [], "outside": []}


ARROW_MODULES = {"annotator.interchange.formats.run_columns", "annotator.interchange.formats.arrow"}
MARKDOWN_MODULES = {"annotator.rules.markdown"}  # markdown-it-py and the nh3 sanitiser


def test_the_annotation_rules_and_the_file_formats_import_with_django_made_unimportable_and_load_only_numpy_orjson_and_stdlib():
    assert {"annotator.rules.spans", "annotator.interchange.formats.paper", "annotator.interchange.formats.harvest"} <= set(PURE_ANNOTATOR_MODULES)
    others = [m for m in PURE_ANNOTATOR_MODULES if m not in ARROW_MODULES | MARKDOWN_MODULES]
    assert _loaded(others, ("numpy", "orjson", "scoring", "annotator")) == {"django": [], "outside": []}


def test_the_guidelines_markdown_renders_with_django_made_unimportable_using_markdown_it_and_nh3_only():
    call = "from annotator.rules.markdown import render; assert '<strong>' in render('**L2**')"
    loaded = _loaded(sorted(MARKDOWN_MODULES), ("markdown_it", "mdurl", "nh3", "scoring", "annotator"), call)
    assert loaded == {"django": [], "outside": []}


def test_the_run_file_reader_reads_with_django_made_unimportable_using_numpy_and_pyarrow_only():
    assert ARROW_MODULES <= set(PURE_ANNOTATOR_MODULES)
    call = ("from annotator.interchange.formats.run_columns import read_run_columns; "
            "assert read_run_columns(b'P1 Q0 d 1 1.0 t\\nP1 Q0 e 2 0.5 t\\n', 'r').tag == 't'")
    loaded = _loaded(sorted(ARROW_MODULES), ("numpy", "orjson", "pyarrow", "cython_runtime", "scoring", "annotator"), call)
    assert loaded == {"django": [], "outside": []}


def test_the_ntcireval_file_readers_import_with_django_made_unimportable():
    call = "from annotator.interchange.formats.ntcireval import read_run; read_run(b'P1 Q0 d 1 1.0 t\\n', 'r')"
    loaded = _loaded(["annotator.interchange.formats.ntcireval"], ("numpy", "scoring", "annotator"), call)
    assert loaded["django"] == []
