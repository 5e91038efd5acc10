"""Every environment variable chipgym reads, each described once: what it sets and what holds without it. The
modules that use one read it here (:meth:`Variable.value`); an empty value is an unset one. Ray workers started by
chipgym get every ``CHIPGYM_*`` variable of the process that starts them (:func:`of_chipgym`).

>>> [variable.name for variable in VARIABLES]  # doctest: +NORMALIZE_WHITESPACE
['CHIPGYM_CACHE', 'CHIPGYM_CACHE_MAX_BYTES', 'CHIPGYM_PDK_HOME', 'CHIPGYM_GRADING_SEED', 'CHIPGYM_LLM_*',
 'OPENAI_BASE_URL', 'OPENAI_API_KEY']
>>> CACHE.value({"CHIPGYM_CACHE": ""}) is None
True
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

PREFIX = "CHIPGYM_"


@dataclass(frozen=True)
class Variable:
    name: str
    """the variable's name; one ending in ``*`` names a family (``CHIPGYM_LLM_*``: ``CHIPGYM_LLM_MODEL``, ...)"""
    sets: str
    without: str
    """what holds when it is unset"""

    def value(self, environ: Mapping[str, str] | None = None, field: str = "") -> str | None:
        """The variable's value in ``environ`` (default: this process's), None when unset or empty; for a family,
        its member ``field`` (``value(field="model")`` is ``CHIPGYM_LLM_MODEL``)."""
        name = self.name.removesuffix("*") + field.upper() if self.name.endswith("*") else self.name
        return (os.environ if environ is None else environ).get(name) or None


CACHE = Variable("CHIPGYM_CACHE", "the folder of chipgym's disk cache", "~/.cache/chipgym")
CACHE_MAX_BYTES = Variable("CHIPGYM_CACHE_MAX_BYTES", "the cache's size limit, in bytes (a whole number)",
                           "5 GiB")
PDK_HOME = Variable("CHIPGYM_PDK_HOME", "where `chipgym pdk install` puts PDKs and scoring finds them",
                    "~/.local/share/chipgym/pdk")
GRADING_SEED = Variable("CHIPGYM_GRADING_SEED",
                        "the grading secret (an integer, 0x allowed): a chip task's held-out workloads and the DRC "
                        "grading draws; never committed, never recorded, never visible in a sandbox",
                        "no held-out workloads; DRC grading draws from this machine's own secret")
LLM = Variable("CHIPGYM_LLM_*", "a setting of the LLM agent, one per field of LlmConfig (docs/llm-agents.md)",
               "the field's default")
OPENAI_BASE_URL = Variable("OPENAI_BASE_URL", "the LLM endpoint, when CHIPGYM_LLM_BASE_URL is unset",
                           "an endpoint must be given")
OPENAI_API_KEY = Variable("OPENAI_API_KEY", "the LLM endpoint's key, when CHIPGYM_LLM_API_KEY is unset",
                          "the key 'none' (local servers take any)")
VARIABLES = (CACHE, CACHE_MAX_BYTES, PDK_HOME, GRADING_SEED, LLM, OPENAI_BASE_URL, OPENAI_API_KEY)


def of_chipgym(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every ``CHIPGYM_*`` variable of ``environ`` (default: this process's), for a process chipgym starts."""
    return {k: v for k, v in (os.environ if environ is None else environ).items() if k.startswith(PREFIX)}
