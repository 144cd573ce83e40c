"""No import circle among the project's Python packages (gen, workflow,
history, registry): neither between modules nor between packages. The
layering is registry <- gen <- workflow and gen <- history: the workflow
and the history build on gen, gen never imports the workflow. Imports
are read with ast, so those inside functions (made lazily to dodge a
circle at load time) count too."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gen", "workflow", "registry", "history", "tune")


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules():
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def imported_names(path, name):
    """Every module name PATH imports, wherever in the file the import is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph():
    """{module: modules of the project it imports}."""
    modules = project_modules()
    graph = {}
    for name, path in modules.items():
        graph[name] = {imported for imported in imported_names(path, name)
                       if imported in modules and imported != name}
    return graph


def circles(graph):
    """The import circles of GRAPH, each as a list of names [a, b, ..., a]."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                found.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = "closed"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_the_import_reader_sees_imports_inside_functions():
    graph = import_graph()
    # workflow/__main__.py imports these inside its command functions only.
    assert {"workflow.submit", "workflow.status", "workflow.archive", "workflow.layout"} <= graph["workflow.__main__"]
    assert "gen.graphs.buffers" in graph["gen.generate"]  # from gen.graphs import buffers


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_a_module_that_imports_it_back():
    assert circles(import_graph()) == []


def test_no_package_imports_a_package_that_imports_it_back():
    packages = {}
    for name, imported in import_graph().items():
        packages.setdefault(name.split(".")[0], set()).update(
            other.split(".")[0] for other in imported if other.split(".")[0] != name.split(".")[0])
    assert circles(packages) == []
    assert "workflow" not in packages["gen"], "gen imports workflow: the workflow builds on gen, not the reverse"
