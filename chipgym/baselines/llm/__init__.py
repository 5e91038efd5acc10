"""The LLM agent: any OpenAI-compatible chat-completions endpoint playing chipgym's envs."""

from chipgym.baselines.agent import EndpointUnavailable
from chipgym.baselines.llm.agent import LlmAgent
from chipgym.baselines.llm.client import ChatClient, Reply
from chipgym.baselines.llm.config import LlmConfig

__all__ = ["ChatClient", "EndpointUnavailable", "LlmAgent", "LlmConfig", "Reply"]
