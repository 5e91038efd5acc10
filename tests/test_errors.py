"""Every exception class in the package is a ChipgymError and the builtin of its category."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import chipgym
from chipgym.errors import AgentError, ChipgymError, DataError, InfrastructureError

BUILTIN = {InfrastructureError: OSError, AgentError: ValueError, DataError: ValueError}


def _exception_classes() -> set[type[BaseException]]:
    classes = set()
    for module in pkgutil.walk_packages(chipgym.__path__, "chipgym."):
        if ".fixtures." in module.name or module.name.endswith("__main__"):
            continue
        for _, value in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("chipgym."):
                classes.add(value)
    return classes


def test_every_exception_is_in_one_category_and_its_builtin():
    classes = _exception_classes()
    assert len(classes) > 20
    for cls in classes - {ChipgymError}:
        categories = [c for c in BUILTIN if issubclass(cls, c)]
        assert cls in BUILTIN or len(categories) == 1, f"{cls.__qualname__}: categories {categories}"
        category = cls if cls in BUILTIN else categories[0]
        assert issubclass(cls, ChipgymError) and issubclass(cls, BUILTIN[category]), cls.__qualname__
