"""The import directions of doc/architecture.rst, checked on the source.

Module-level imports must follow the allowed directions.  Imports inside
functions are the documented lazy exceptions (pyperf's load/dump API on the
model, Run(collect_metadata=True)), and are listed here one by one.

perf.render imports only types from perf.analysis (classes: named tuples,
dataclasses, enums), at module level or inside a function, calls no
statistic on results (the model's ``mean()``, ``get_process_means()``...,
or the standard library's), and reads no private field of the objects it
is given: the command computes and decides, render lays out.

perf.pytest_plugin starts no process (no subprocess, no os.fork...): its
workers are perf.measure.parent's, and git is perf.collect.git's.
"""

from __future__ import annotations

import ast
import importlib
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "perf"

#: layer -> layers it may import at module level
ALLOWED = {
    "api": {"measure", "analysis", "render", "model", "errors"},
    "cli": {"measure", "system", "collect", "storage", "analysis", "render", "model", "errors", "platform", "history"},
    "history": {"measure", "collect", "storage", "analysis", "model", "errors"},
    "pytest_plugin": {"api", "measure", "collect", "storage", "analysis", "render", "model", "errors", "platform"},
    "measure": {"collect", "platform", "storage", "model", "errors", "analysis"},
    "system": {"platform", "errors"},
    "collect": {"platform", "errors"},
    "render": {"analysis", "model", "errors", "history"},
    "analysis": {"model", "errors"},
    "storage": {"model", "errors"},
    "model": {"analysis.statistics", "errors"},
    "platform": set(),
    "errors": set(),
}

#: (importing module, imported module) pairs allowed inside functions only
LAZY_EXCEPTIONS = {
    ("model.benchmark", "storage.files"),
    ("model.suite", "storage.files"),
    ("model.benchmark", "render.units.format_values"),
    ("model.run", "collect.collect_metadata"),
    ("collect", "__version__"),  # for the perf_version metadata
    ("collect.python", "render.units.format_timedelta"),  # timer resolution text
    ("pytest_plugin.session", "__version__"),  # the version field of pytest-benchmark's JSON
}


def perf_imports(tree: ast.Module, top_level_only: bool) -> list[str]:
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "perf":
            # "from perf.analysis import statistics" imports perf.analysis.statistics
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names if alias.name.split(".")[0] == "perf")
    return names


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).with_suffix("")
        parts = [part for part in relative.parts if part != "__init__"]
        if parts and parts[0] not in ("__main__",):
            yield ".".join(parts), ast.parse(path.read_text())


def layer_allows(module: str, imported: str) -> bool:
    layer = module.split(".", maxsplit=1)[0]
    target = imported.removeprefix("perf.")
    if target.split(".")[0] == layer:
        return True
    return any(target == allowed or target.startswith(allowed + ".") for allowed in ALLOWED[layer])


@pytest.mark.parametrize(("module", "tree"), list(modules()), ids=lambda value: value if isinstance(value, str) else "")
def test_module_level_imports_follow_the_layers(module, tree):
    if module == "":
        return
    wrong = [name for name in perf_imports(tree, top_level_only=True) if not layer_allows(module, name)]
    assert wrong == [], f"perf.{module} imports {wrong} at module level"


def test_lazy_imports_are_the_documented_exceptions():
    found = set()
    for module, tree in modules():
        if not module:
            continue
        for name in perf_imports(tree, top_level_only=False):
            if not layer_allows(module, name):
                found.add((module, name.removeprefix("perf.")))
    assert found <= LAZY_EXCEPTIONS, sorted(found - LAZY_EXCEPTIONS)


def test_statistics_is_a_leaf():
    tree = ast.parse((PACKAGE / "analysis" / "statistics.py").read_text())
    assert perf_imports(tree, top_level_only=False) == []
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "statistics" not in imported


def test_only_cli_prints_or_exits():
    offenders = []
    for module, tree in modules():
        if module.startswith("cli"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                owner = getattr(getattr(func, "value", None), "id", "")
                if name == "print" or (owner == "sys" and name == "exit"):
                    offenders.append(f"perf.{module}:{node.lineno}")
    assert offenders == []


def analysis_non_types(tree: ast.Module) -> list[str]:
    """What *tree* imports from perf.analysis that is not a class, at
    module level or inside a function: a function, a constant, a module
    (``import perf.analysis.compare``, ``from perf.analysis import
    compare``)."""
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wrong.extend(alias.name for alias in node.names if alias.name.split(".")[:2] == ["perf", "analysis"])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if name.split(".")[:2] != ["perf", "analysis"]:
                    continue
                owner = importlib.import_module(node.module)
                found = getattr(owner, alias.name) if hasattr(owner, alias.name) else importlib.import_module(name)
                if not isinstance(found, type):
                    wrong.append(name)
    return wrong


def render_modules():
    return [(module, tree) for module, tree in modules() if module.split(".")[0] == "render"]


@pytest.mark.parametrize(
    ("module", "tree"), render_modules(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_render_imports_only_analysis_types(module, tree):
    wrong = analysis_non_types(tree)
    assert wrong == [], f"perf.{module} imports {wrong} from perf.analysis: the command computes, render lays out"


@pytest.mark.parametrize(
    ("source", "wrong"),
    [
        ("from perf.analysis.intervals import Interval\n", []),
        ("from perf.analysis.checks import Check, Level\n", []),
        (
            "from perf.analysis.intervals import Interval, benchmark_log_interval\n",
            ["perf.analysis.intervals.benchmark_log_interval"],
        ),
        ("from perf.analysis.checks import ADVICE_CODES\n", ["perf.analysis.checks.ADVICE_CODES"]),
        ("from perf.analysis import compare\n", ["perf.analysis.compare"]),
        ("import perf.analysis.statistics\n", ["perf.analysis.statistics"]),
        ("def f():\n    from perf.analysis.density import gaussian_kde\n", ["perf.analysis.density.gaussian_kde"]),
        ("from perf.model.benchmark import Benchmark\n", []),
    ],
)
def test_the_rule_sees_functions_constants_and_modules(source, wrong):
    assert analysis_non_types(ast.parse(source)) == wrong


#: the names of statistics: the model's methods, perf.analysis.statistics's
#: and the standard library's functions
STATISTICS = frozenset(
    {
        "mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
        "median_grouped", "mode", "multimode", "stdev", "pstdev", "variance", "pvariance", "quantiles",
        "percentile", "median_abs_dev", "get_mean", "get_median", "get_stdev", "get_process_means",
        "process_means", "required_nprocesses", "tukey_fences", "variance_components",
    }
)  # fmt: skip


def statistic_calls(tree: ast.Module) -> list[str]:
    """The calls of *tree* to a statistic (:data:`STATISTICS`), by name or
    as a method: ``benchmark.mean()``, ``statistics.median(values)``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in STATISTICS:
                found.append(f"{node.lineno}: {ast.unparse(func)}()")
    return found


@pytest.mark.parametrize(
    ("module", "tree"), render_modules(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_render_calls_no_statistic(module, tree):
    found = statistic_calls(tree)
    assert found == [], f"perf.{module} computes {found}: the command computes (perf.analysis), render lays out"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("text = benchmark.format_value(figures.mean)\n", []),
        (
            "low, high = benchmark.mean(), entry.reference.stdev()\n",
            ["1: benchmark.mean()", "1: entry.reference.stdev()"],
        ),
        ("def f(b):\n    return len(b.get_process_means())\n", ["2: b.get_process_means()"]),
        ("import statistics\nq = statistics.quantiles(values)\n", ["2: statistics.quantiles()"]),
        ("from statistics import fmean\nm = fmean(values)\n", ["2: fmean()"]),
        ("p = benchmark.percentile(95)\n", ["1: benchmark.percentile()"]),
    ],
)
def test_the_statistic_rule_sees_methods_and_functions(source, found):
    assert statistic_calls(ast.parse(source)) == found


#: the private names of a named tuple's own API
NAMED_TUPLE_API = frozenset({"_replace", "_asdict", "_make", "_fields", "_field_defaults"})


def private_reads(tree: ast.Module) -> list[str]:
    """The private attributes (``x._name``) that *tree* reads of anything
    but ``self`` and ``cls``, a named tuple's API left aside."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value.id if isinstance(node.value, ast.Name) else ""
            if owner not in ("self", "cls") and node.attr not in NAMED_TUPLE_API:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize(
    ("module", "tree"), render_modules(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_render_reads_no_private_field(module, tree):
    found = private_reads(tree)
    assert found == [], f"perf.{module} reads {found}: what render needs is a public field of what it is given"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("x = benchmark._get_common_value('hostname')\n", ["1: benchmark._get_common_value"]),
        ("x = [run._get(key) for run in runs if run._has(key)]\n", ["1: run._get", "1: run._has"]),
        ("point = point._replace(value=1)\nself._cache = {}\n", []),
    ],
)
def test_the_private_rule_sees_reads_of_other_objects(source, found):
    assert sorted(private_reads(ast.parse(source))) == sorted(found)


def test_the_session_and_history_take_typed_options():
    """Runs started from code need no command line: the session and
    history read RunOptions, never an argparse namespace."""
    paths = [PACKAGE / "measure" / "parent" / "session.py", *sorted((PACKAGE / "history").glob("*.py"))]
    found = [path.name for path in paths if "argparse" in path.read_text() or "Namespace" in path.read_text()]
    assert found == []


def test_a_worker_never_imports_the_parent_side():
    """perf.measure.child is what a worker imports: it never imports
    perf.measure.parent, even inside a function, and the shared modules of
    perf.measure import the parent side only inside a function (its start-up
    stays short)."""
    wrong = []
    for module, tree in modules():
        if module.startswith("measure.child"):
            imported = perf_imports(tree, top_level_only=False)
        elif module.startswith("measure") and not module.startswith("measure.parent"):
            imported = perf_imports(tree, top_level_only=True)
        else:
            continue
        wrong += [f"{module} -> {name}" for name in imported if name.startswith("perf.measure.parent")]
    assert wrong == []


# -- size and shape (doc/architecture.rst, principles) ----------------------------------

#: the longest module, and the longest entry point of bench scripts
MAX_LINES = 400
MAX_RUNNER_LINES = 300
#: the one import circle allowed: pyperf's Benchmark.load/dump on the model
ALLOWED_CIRCLE = {"model", "storage"}


def test_no_module_is_over_400_lines():
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
    assert len((PACKAGE / "cli" / "runner.py").read_text().splitlines()) <= MAX_RUNNER_LINES


def import_graph(trees):
    """Module -> the perf modules it imports, at any level (inside a
    function or under TYPE_CHECKING too)."""
    names = set(trees)
    graph = {}
    for module, tree in trees.items():
        targets = set()
        for imported in perf_imports(tree, top_level_only=False):
            name = imported.removeprefix("perf.")
            while name and name not in names:
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                targets.add(name)
        graph[module] = targets
    return graph


def circles(graph):
    """The strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, found = {}, {}, [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_the_only_import_circle_is_the_model_and_its_storage():
    trees = {module: tree for module, tree in modules() if module}
    wrong = [group for group in circles(import_graph(trees)) if {m.split(".")[0] for m in group} != ALLOWED_CIRCLE]
    assert wrong == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]), ({"a": {"b"}, "b": {"c"}, "c": set()}, [])],
)
def test_the_circle_finder_sees_circles(graph, expected):
    assert circles(graph) == expected


def test_argparse_is_imported_in_measure_by_arguments_only():
    found = [
        module
        for module, tree in modules()
        if module.startswith("measure")
        and any(
            alias.name == "argparse"
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
        )
    ]
    assert found == ["measure.arguments"]


#: modules that start processes, and the prefixes of os's functions that do
PROCESS_MODULES = frozenset({"subprocess", "multiprocessing", "pty"})
OS_PROCESS_FUNCTIONS = ("system", "popen", "fork", "posix_spawn", "spawn", "exec")


def process_starts(tree: ast.Module) -> list[str]:
    """What *tree* could start a process with, at module level or inside a
    function: an import of subprocess (or multiprocessing, pty), or one of
    os.system, os.popen, os.fork*, os.posix_spawn*, os.spawn*, os.exec*."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] in PROCESS_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PROCESS_MODULES:
            found.append(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"os.{alias.name}" for alias in node.names if alias.name.startswith(OS_PROCESS_FUNCTIONS)]
        elif isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "os":
            found += [f"os.{node.attr}"] if node.attr.startswith(OS_PROCESS_FUNCTIONS) else []
    return found


def pytest_plugin_modules():
    return [(module, tree) for module, tree in modules() if module.split(".")[0] == "pytest_plugin"]


@pytest.mark.parametrize(
    ("module", "tree"), pytest_plugin_modules(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_the_pytest_plugin_starts_no_process(module, tree):
    """The plugin's workers are started, watched and stopped by
    perf.measure.parent (batches.py), and git runs in perf.collect.git: the
    plugin imports no subprocess."""
    assert process_starts(tree) == [], f"perf.{module} starts processes itself"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import subprocess\n", ["subprocess"]),
        ("from subprocess import run\n", ["subprocess"]),
        ("def f():\n    import subprocess as sp\n", ["subprocess"]),
        ("import multiprocessing.pool\n", ["multiprocessing.pool"]),
        ("import os\nos.fork()\n", ["os.fork"]),
        ("import os\nos.execvp('git', ['git'])\n", ["os.execvp"]),
        ("from os import posix_spawn\n", ["os.posix_spawn"]),
        ("import os\nos.getpid()\nos.pipe()\n", []),
        ("from perf.measure.parent.batches import run_batches\n", []),
    ],
)
def test_the_process_rule_sees_imports_and_os_calls(source, found):
    assert process_starts(ast.parse(source)) == found
