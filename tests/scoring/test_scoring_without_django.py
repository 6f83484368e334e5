"""The scoring core must run where Django cannot even be imported (numpy + stdlib only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE_MODULES = ["scoring", "scoring.words", "scoring.divergence", "scoring.gfrc", "scoring.usefulness",
                "scoring.reference", "scoring.rankings"]

PROBE = """
import importlib, json, sys

class RefuseDjango:
    '''Make every django import fail, as in an environment where Django is not installed.'''
    def find_spec(self, name, path=None, target=None):
        if name == "django" or name.startswith("django.") or name.startswith("rest_framework"):
            raise ImportError(f"{name} is not allowed in the scoring core")
        return None

sys.meta_path.insert(0, RefuseDjango())
for module in MODULES:
    importlib.import_module(module)
top_level = sorted({name.split(".")[0] for name in sys.modules})
outside = [n for n in top_level if n not in sys.stdlib_module_names and n not in ("numpy", "scoring")
           and not n.startswith("_")]
print(json.dumps({"django": [n for n in sys.modules if n.startswith("django")], "outside": outside}))
"""


def test_scoring_modules_import_with_django_made_unimportable_and_load_only_numpy_and_stdlib():
    probe = PROBE.replace("MODULES", repr(PURE_MODULES))
    completed = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r})\n{probe}"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    loaded = json.loads(completed.stdout.strip().splitlines()[-1])
    assert loaded == {"django": [], "outside": []}
