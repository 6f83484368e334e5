"""No two files of the app import each other, directly or round a loop: every import counts,
those under `if TYPE_CHECKING:` and inside functions too (a type named in a hint is a
dependency all the same). The layers contracts (tests/test_layers.py) order packages and the
workspace's modules; this covers every file, whatever contract it is in."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("annotator", "scoring")


def _modules(root: Path, packages) -> dict[str, Path]:
    modules = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imported(name: str, modules: dict[str, Path]) -> str | None:
    """The file an import of `name` reads: the module itself, else the package holding it."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path = ROOT, packages=PACKAGES) -> dict[str, set[str]]:
    """Module -> the app's modules it imports, from every import statement in its source."""
    modules = _modules(root, packages)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [_imported(alias.name, modules) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                # `from package import module` imports that module; `from module import name`, the module
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else _imported(base, modules)
                           for alias in node.names]
            else:
                continue
            graph[name].update(target for target in targets if target is not None and target != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_file_of_the_app_imports_another_that_imports_it_back():
    graph = import_graph()
    assert "annotator.workspace.conversation_html" in graph and "scoring.gfrc" in graph
    loops = {" <-> ".join(c): sorted((a, b) for a in c for b in graph[a] if b in c) for c in cycles(graph)}
    assert loops == {}


def test_a_type_checking_import_closes_a_loop(tmp_path):
    (tmp_path / "app" / "inner").mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "inner" / "__init__.py").write_text("")
    (tmp_path / "app" / "inner" / "read.py").write_text("from app.inner.html import render\n")
    (tmp_path / "app" / "inner" / "html.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .read import Bench\n")
    (tmp_path / "app" / "page.py").write_text("def f():\n    from app.inner import read\n")
    graph = import_graph(tmp_path, ["app"])
    assert graph["app.page"] == {"app.inner.read"}
    assert cycles(graph) == [["app.inner.html", "app.inner.read"]]
    (tmp_path / "app" / "inner" / "html.py").write_text("")
    assert cycles(import_graph(tmp_path, ["app"])) == []
