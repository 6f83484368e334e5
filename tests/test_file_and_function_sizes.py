"""A file of the app a maintainer can read in one sitting: none over 700 lines and no function
over 100 (the guide aims at about 600 and 80; migrations are Django's and apart). A file that
grows past the limit is a sign it holds two reasons to change: split it where they part."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ("annotator", "scoring", "config")
MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 100


def app_files(root: Path = ROOT) -> list[Path]:
    return sorted(path for package in APP for path in (root / package).rglob("*.py") if "migrations" not in path.parts)


def too_long(root: Path = ROOT) -> list[str]:
    found = []
    for path in app_files(root):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(root).as_posix()
        lines = source.count("\n")
        if lines > MAX_FILE_LINES:
            found.append(f"{where}: {lines} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{where}:{node.lineno} {node.name}: {length} lines")
    return found


def test_no_file_of_the_app_is_over_700_lines_nor_a_function_over_100():
    assert app_files(), "the app's packages were not found"
    assert too_long() == []


@pytest.mark.parametrize("lines, function_lines, expected", [
    (MAX_FILE_LINES, 10, []),
    (MAX_FILE_LINES + 1, 10, ["annotator/long.py: 701 lines"]),
    (20, MAX_FUNCTION_LINES + 1, ["annotator/long.py:1 long_function: 101 lines"]),
])
def test_the_check_finds_a_long_file_and_a_long_function(tmp_path, lines, function_lines, expected):
    body = "def long_function():\n" + "    x = 1\n" * (function_lines - 1)
    source = body + "\n" * (lines - body.count("\n"))
    (tmp_path / "annotator").mkdir()
    (tmp_path / "annotator" / "long.py").write_text(source)
    (tmp_path / "annotator" / "migrations").mkdir()
    (tmp_path / "annotator" / "migrations" / "0001_long.py").write_text("\n" * 2000)
    assert too_long(tmp_path) == expected
