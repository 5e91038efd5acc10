"""Every error class chipgym defines, in three categories under :class:`ChipgymError`.

- :class:`InfrastructureError` (an ``OSError``): the machine or its tools failed, not the agent; a result
  that meets one is *unavailable*, never a verdict.
- :class:`AgentError` (a ``ValueError``): the agent's work is wrong (an action, a deck, a design); the
  grader reports it as the work's failure.
- :class:`DataError` (a ``ValueError``): a file chipgym reads (a task, a liberty, labels) is malformed.

>>> issubclass(FlowUnavailable, OSError), issubclass(SynthesisError, ValueError)
(True, True)
"""

from __future__ import annotations

from pathlib import Path


class ChipgymError(Exception):
    """Base class of every chipgym error."""


class InfrastructureError(ChipgymError, OSError):
    """The machine or a tool failed: no verdict about the agent's work."""


class AgentError(ChipgymError, ValueError):
    """The agent's work (an action, a deck, a design) is wrong; the message says how."""


class DataError(ChipgymError, ValueError):
    """A file chipgym reads (a task, a cell library, labels) is malformed."""


UNAVAILABLE = (InfrastructureError, MemoryError)
"""What leaves a grader without a verdict: the infrastructure failed, or the grader ran out of memory."""


# infrastructure


class ToolMissingError(InfrastructureError):
    """An external tool is not installed."""

    def __init__(self, tool: str, install: str):
        super().__init__(f"{tool} was not found on PATH; install it with: {install} (or run `chipgym doctor`)")
        self.tool = tool


class ConfigurationError(InfrastructureError):
    """What was asked needs a setting that is not given (an argument or an environment variable); the message
    says which."""


class EngineError(InfrastructureError):
    """An engine's worker could not be started or stopped answering for reasons of its own."""


class ToolInterrupted(InfrastructureError):
    """The tool was stopped because :func:`chipgym.engines.tools.interrupt_all` was called (the process is
    shutting down)."""


class FlowUnavailable(InfrastructureError):
    """A tool of the scoring flow could not finish (timeout, out of memory, crash): not the design's verdict."""


class PdkError(InfrastructureError):
    """A PDK is unknown, or could not be installed: a file is missing or not the one chipgym expects."""


class PdkMissingError(PdkError):
    """A PDK that is needed is not installed."""

    def __init__(self, name: str, home: Path):
        super().__init__(f"the {name} PDK is not installed in {home}; "
                         f"install it with: chipgym pdk install {name} --from PATH_OR_URL")
        self.name = name


class ProfileMissingError(InfrastructureError):
    """A profile's cell library is not installed; the message says how to install it."""


# the agent's work


class DeckError(AgentError):
    """A deck failed on a layout; the message is the error class and KLayout's message."""


class DesignError(AgentError):
    """The design folder is malformed (missing files or keys)."""


class PreprocessError(DesignError):
    """The design's directives are malformed (a missing or recursive include, an unbalanced `ifdef)."""


class ElaborationError(DesignError):
    """Yosys could not elaborate the design into the one design every tool reads; the message says why."""


class BuildError(AgentError):
    """Verilator rejected the design; the message holds the first errors."""


class SimulationError(AgentError):
    """A design's simulation process died, ran past its time limit or flooded its output; the message says
    which, with what it last printed."""


class SynthesisError(AgentError):
    """Yosys rejected the design, or its netlist holds a cell the flow refuses (the message names it)."""


class UnsupportedCell(SynthesisError):
    """The netlist uses a cell with no functional model (a latch, a tristate): the message names it."""


class TimingModelError(AgentError):
    """The timing model could not be loaded or run at all (its own failure, reported by the check)."""


class AsmError(AgentError):
    """A program's assembly text is malformed; the message names the line."""


class ProgramError(AgentError):
    """A program the reference cannot run to its end (it does not halt within its bound)."""


# data


class Rule2DrcFormatError(DataError):
    """A Rule2DRC folder is malformed; the message names the offending file."""


class LibertyError(DataError):
    """A Liberty file could not be parsed; the message names the file and line."""


class LabellingError(DataError):
    """The gold deck failed, or the layouts do not discriminate every category."""
