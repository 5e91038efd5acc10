"""Infrastructure errors: something is wrong with the machine or the tools, not with the agent's work.

An agent's mistake (a bad deck, failing RTL) is a result and never raises one of these.
"""

from __future__ import annotations


class ChipgymError(Exception):
    """Base class of chipgym's infrastructure errors."""


class ToolMissingError(ChipgymError):
    """An external tool is not installed."""

    def __init__(self, tool: str, install: str):
        super().__init__(f"{tool} was not found on PATH; install it with: {install} (or run `chipgym doctor`)")
        self.tool = tool


class EngineError(ChipgymError):
    """An engine's worker could not be started or stopped answering for reasons of its own."""
