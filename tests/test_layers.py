"""The architecture as drawn in docs/architecture.md: imports point down the seven layers, the modules beside them
import no layer above the engines, and no module imports itself back through others (issue 29 §4). Imports inside
functions count: a lazy import is still a dependency."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "chipgym"
LAYERS = ("engines", "tasks", "scoring", "envs", "wrappers", "baselines", "cli")
"""from the bottom up"""
ENTRY_POINT = "chipgym.__main__"  # `python -m chipgym` runs the command line


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


MODULES = _modules()


def _imports(module: str) -> set[str]:
    """The chipgym modules ``module`` imports (``from package import submodule`` is the submodule)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module
                         for alias in node.names)
    return {name for name in found if name in MODULES and name != module}


IMPORTS = {module: _imports(module) for module in MODULES}


def _layer(module: str) -> int | None:
    """The index of ``module``'s layer in LAYERS; None for the package and the modules beside the layers."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_no_layer_above_it(layer):
    above = {(module, target) for module, targets in IMPORTS.items() if _layer(module) == LAYERS.index(layer)
             for target in targets if (_layer(target) or 0) > LAYERS.index(layer)}
    assert not above, sorted(above)


def test_the_modules_beside_the_layers_import_none_above_the_engines():
    above = {(module, target) for module, targets in IMPORTS.items() if _layer(module) is None
             and module != ENTRY_POINT for target in targets if (_layer(target) or 0) > 0}
    assert not above, sorted(above)


def test_no_module_imports_itself_back():
    looped = sorted(module for module in IMPORTS if module in _reachable(module))
    assert not looped, looped


def _reachable(module: str) -> set[str]:
    """Every module ``module`` imports, directly or through others."""
    seen: set[str] = set()
    todo = list(IMPORTS[module])
    while todo:
        if (target := todo.pop()) not in seen:
            seen.add(target)
            todo.extend(IMPORTS[target])
    return seen
