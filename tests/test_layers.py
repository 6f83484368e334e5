"""The layers contract of pyproject.toml ([tool.importlinter]), run by every test run: a module
that imports upward (a rule importing a model, the workspace importing the console, evaluation
importing a screen) fails here, with the import and its line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_dependencies_point_one_way_as_the_layers_contract_says():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    completed = subprocess.run(
        [str(lint_imports), "--no-cache", "--no-logo"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "0 broken" in completed.stdout
