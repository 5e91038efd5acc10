"""The LLM agent: any OpenAI-compatible chat-completions endpoint playing chipgym's envs."""

from chipgym.baselines.agent import ContextOverflow, EndpointUnavailable
from chipgym.baselines.llm.agent import LlmAgent
from chipgym.baselines.llm.client import ChatClient, Reply, ServerInfo
from chipgym.baselines.llm.config import LlmConfig

__all__ = ["ChatClient", "ContextOverflow", "EndpointUnavailable", "LlmAgent", "LlmConfig", "Reply", "ServerInfo"]
