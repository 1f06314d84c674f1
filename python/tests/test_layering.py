"""The package's shape: its modules import one another as a tree with the
transport and parameter codec at the bottom (client -> study -> trial), and
no module reaches into another object's private attributes."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

PACKAGE = Path(__file__).resolve().parents[1] / "vernier"


def module_name(path: Path) -> str:
    return "vernier" if path.name == "__init__.py" else f"vernier.{path.stem}"


def is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def runtime_imports(tree: ast.AST) -> Set[str]:
    """The vernier modules a module imports when it runs (anywhere in it,
    functions included); imports only for type checkers are left out."""
    found: Set[str] = set()

    def visit(node: ast.AST) -> None:
        if is_type_checking_block(node):
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "vernier":
                found.update(f"vernier.{alias.name}" for alias in node.names)
            elif node.module.startswith("vernier."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("vernier."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> Dict[str, Set[str]]:
    graph: Dict[str, Set[str]] = {}
    for path in sorted(PACKAGE.glob("*.py")):
        name = module_name(path)
        modules = {f"vernier.{p.stem}" for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
        imports = runtime_imports(ast.parse(path.read_text(), str(path)))
        # Only the package's own modules; the generated vernier.v1 stubs are
        # reached through vernier._stubs.
        graph[name] = {module for module in imports if module in modules and module != name}
    return graph


def find_cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """One import cycle as a path, or [] when there is none."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done.
    path: List[str] = []

    def visit(module: str) -> List[str]:
        state[module] = 1
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == 1:
                return path[path.index(imported):] + [imported]
            if imported not in state:
                cycle = visit(imported)
                if cycle:
                    return cycle
        path.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return []


def reachable(graph: Dict[str, Set[str]], start: str) -> Set[str]:
    seen: Set[str] = set()
    stack = [start]
    while stack:
        for imported in graph.get(stack.pop(), ()):
            if imported not in seen:
                seen.add(imported)
                stack.append(imported)
    return seen


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert "vernier.client" in graph and "vernier._transport" in graph
    assert find_cycle(graph) == []


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_layers_import_only_downwards() -> None:
    graph = import_graph()
    # client -> study -> trial; the transport and the codec use neither.
    assert {"vernier.study", "vernier.spec", "vernier._transport"} <= graph["vernier.client"]
    assert "vernier.trial" in graph["vernier.study"]
    assert not {"vernier.client", "vernier.study"} & reachable(graph, "vernier.trial")
    assert "vernier.client" not in reachable(graph, "vernier.study")
    for bottom in ("vernier._transport", "vernier._parameters", "vernier.errors"):
        assert not {"vernier.client", "vernier.study", "vernier.trial", "vernier.spec"} & \
            reachable(graph, bottom), bottom


def private_accesses(tree: ast.AST) -> List[str]:
    """``x._name`` where x is not ``self`` or ``cls``: another object's
    private attribute."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reads_another_objects_private_attributes() -> None:
    problems = {}
    for path in sorted(PACKAGE.glob("*.py")):
        accesses = private_accesses(ast.parse(path.read_text(), str(path)))
        if accesses:
            problems[path.name] = accesses
    assert problems == {}


def test_private_accesses_are_found() -> None:
    tree = ast.parse("self._study._client._call('x')\nself._ok\ntrial._study.objective\n")
    assert sorted(private_accesses(tree)) == [
        "line 1: self._study._client", "line 1: self._study._client._call",
        "line 3: trial._study"]
