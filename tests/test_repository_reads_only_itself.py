"""The tree names no directory of a development machine: code, tests, benchmarks, scripts and docs
find what they read relative to the repository (tests and benchmarks once read a reference file
from a folder of one machine, and passed nowhere else). System paths that are the same on every
machine stay allowed: the temporary and process folders, Debian's chromium, the deployment
guide's environment file. Nor does a file climb out of the repository with parent-folder steps
(a folder beside the clone is on one machine only).

This file holds no path itself: its examples and its patterns are written in pieces."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A home or work directory (not a URL's path: no word, dot or slash just before it), or a
# folder of a Windows drive: a capital, a colon, one backslash (two in a Python string) or a
# slash to the users' folder. This file writes its own examples in pieces, so as not to hold any.
S = b"/"  # a folder separator, written apart so that no example here is a path
DOT = b"."
MACHINE_PATH = re.compile(
    rb"(?<![\w.~/:-])" + S + rb"(?:work|root|home|Users)" + S
    + rb"|(?<![\w\\])[A-Z]:(?:\\\\[A-Za-z]|\\(?![nrtbfvax0-7])[A-Za-z]|[/]Users" + S + rb")"
)


def path(*parts: bytes, absolute: bool = True) -> bytes:
    """An example path from its names (a leading separator unless `absolute` is False)."""
    return (S if absolute else b"") + S.join(parts)


# a run of parent-folder steps (two dots and a separator) and the name it reaches: out of the
# repository when the runs outnumber the folders between the file and the repository's root
UP = DOT + DOT + S  # one step up, written in pieces
CLIMB = re.compile(rb"(?<![\w.])((?:" + re.escape(UP) + rb")+)[\w-]")


def climbs_out(line: bytes, depth: int) -> bool:
    """Whether a relative path on this line, read from a file `depth` folders below the root,
    leaves the repository."""
    return any(len(match.group(1)) // 3 > depth for match in CLIMB.finditer(line))


def machine_paths(text: bytes, depth: int = 0) -> list[str]:
    """Each line of `text` that names a development machine's directory, or (read from a file
    `depth` folders below the root) climbs out of the repository, with its number."""
    return [f"{number}: {line.strip().decode(errors='replace')[:160]}"
            for number, line in enumerate(text.splitlines(), start=1)
            if MACHINE_PATH.search(line) or climbs_out(line, depth)]


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in listed.decode().split("\0") if name]


def test_the_check_flags_a_development_machines_path_and_leaves_urls_and_system_paths_alone():
    flagged = [
        b'REFERENCE = Path("' + path(b"wo" + b"rk", b"data", b"reference", b"gfrc.json") + b'")',
        b'open("' + UP + b'sibling/gfrc.json")', b"cd " + UP + UP + b"elsewhere",
        b"cd " + path(b"ho" + b"me", b"someone", b"gfrc") + b" && make",
        b"open('" + path(b"ro" + b"ot", b"data.csv") + b"')",
        path(b"Us" + b"ers", b"someone", b"project"),
        b'"C:' + b'\\\\Us' + b'ers\\\\someone"', b"C:" + b"\\gfrc\\data", b"D:" + path(b"Us" + b"ers", b"someone"),
    ]
    allowed = [
        b"https:" + S + path(b"example.org", b"work", b"papers"), b"see https:" + S + path(b"github.com", b"home", b"x"),
        path(b"tmp", b"gfrc-bench-results") + S, path(b"proc", b"self", b"maps"),
        b"executable_path='" + path(b"usr", b"bin", b"chromium") + b"'", b"EnvironmentFile=" + path(b"etc", b"gfrc.env"),
        path(b"static", b"js", b"annotate.js"), path(b"api", b"campaigns") + S, b"~" + path(DOT + b"cache", b"gfrc-llm") + S,
        path(b"docs", b"home", b"page.md", absolute=False),
        b'print(f"total N:' + b'\\n")', path(b"bench", b"lib", b"server.py", absolute=False), b"version 1.2" + UP + b"3",
    ]
    # from a file one folder down, one climb stays in the repository: docs/x.md links the README above it
    assert machine_paths(b"[README](" + UP + b"README.md)", depth=1) == []
    assert machine_paths(b"[outside](" + UP + UP + b"README.md)", depth=1) != []
    assert [text for text in flagged if not machine_paths(text)] == []
    assert [text for text in allowed if machine_paths(text)] == []


def test_no_tracked_file_names_a_development_machines_directory():
    files = tracked_files()
    assert ROOT / "Makefile" in files and ROOT / "tests" / "conftest.py" in files  # the listing is the tree's
    found = {}
    for path in files:
        if not path.is_file():  # deleted in the work tree, not yet from the index
            continue
        data = path.read_bytes()
        if b"\0" in data[:8000]:  # a picture or another binary file (git's own test of binary)
            continue
        relative = path.relative_to(ROOT)
        # vendored builds (htmx, swagger-ui) name the build machine's sources in their maps: read by nothing here
        depth = 10_000 if "vendor" in relative.parts else len(relative.parts) - 1
        lines = machine_paths(data, depth=depth)
        if lines:
            found[str(relative)] = lines
    assert found == {}
