"""Where the LLM agent's model is and how to sample it: arguments, else ``CHIPGYM_LLM_*`` environment
variables (``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` are read too), else the defaults. Commands take the API key
from the environment or a file (``--api-key-file``), never from their arguments.

>>> config = LlmConfig.from_env({"CHIPGYM_LLM_BASE_URL": "http://127.0.0.1:8000/v1", "CHIPGYM_LLM_MODEL": "qwen"},
...                             temperature=0.2, seed=None)
>>> config.model, config.temperature, config.seed, config.retries
('qwen', 0.2, None, 4)
>>> "api_key" in config.public()
False
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from chipgym import settings
from chipgym.files import FileRefused, read_regular_file

PREFIX = settings.LLM.name.removesuffix("*")
MAX_KEY_FILE_BYTES = 64 << 10


@dataclass(frozen=True)
class LlmConfig:
    """An OpenAI-compatible chat-completions endpoint (vLLM, SGLang, llama.cpp's server, a hosted API) and the
    agent's settings."""

    base_url: str
    model: str
    api_key: str = "none"  # local servers take any key
    temperature: float = 0.0
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    timeout: float = 300.0  # wall-clock seconds of one attempt of a request, the whole reply included
    retries: int = 4  # after a 429, a 5xx, a timeout or a lost connection
    backoff: float = 1.0  # seconds before the first retry, doubled before each next one
    stream: bool = False
    tools: bool = True  # offer each action op as a tool; False asks for a fenced JSON block only
    context_tokens: int | None = None  # of one request, tools and reply included; None: the server's, else 100k
    time_limit: float | None = None  # seconds of one episode, told to the agent at every turn

    def __post_init__(self):
        if not self.base_url:
            raise ValueError(f"base_url: no endpoint; pass --base-url or set {PREFIX}BASE_URL")
        if not self.model:
            raise ValueError(f"model: no model name; pass --model or set {PREFIX}MODEL")
        if self.retries < 0 or self.backoff < 0 or self.timeout <= 0:
            raise ValueError("retries, backoff: expected >= 0; timeout: expected > 0")
        if self.context_tokens is not None and self.context_tokens < 512:
            raise ValueError(f"context_tokens: expected at least 512, got {self.context_tokens}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **arguments: Any) -> LlmConfig:
        """The config of ``arguments`` (those that are None are not given), then the environment."""
        fallbacks = {"base_url": settings.OPENAI_BASE_URL, "api_key": settings.OPENAI_API_KEY}
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            if arguments.get(field.name) is not None:
                values[field.name] = arguments[field.name]
                continue
            fallback = fallbacks.get(field.name)
            text = settings.LLM.value(environ, field.name) or (fallback and fallback.value(environ))
            if text:
                values[field.name] = _typed(field.name, text, field.type)
        values.setdefault("base_url", "")
        values.setdefault("model", "")
        return cls(**values)

    @staticmethod
    def key_from_file(path: str | None) -> str | None:
        """The API key in the file at ``path`` (its first line), for commands: a key on a command line is seen by
        every user of the machine (``ps``) and kept in shell histories."""
        if path is None:
            return None
        try:
            key = read_regular_file(path, MAX_KEY_FILE_BYTES).decode().strip().splitlines()
        except (FileRefused, UnicodeDecodeError) as error:
            raise ValueError(f"--api-key-file {path}: {error}") from None
        if not key:
            raise ValueError(f"--api-key-file {path}: the file is empty")
        return key[0].strip()

    def public(self) -> dict[str, Any]:
        """The settings without the key, for logs."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "api_key"}


def _typed(name: str, text: str, annotation: str) -> Any:
    try:
        if annotation.startswith("bool"):
            if text.lower() not in ("1", "0", "true", "false", "yes", "no"):
                raise ValueError(text)
            return text.lower() in ("1", "true", "yes")
        if annotation.startswith("int"):
            return int(text)
        if annotation.startswith("float"):
            return float(text)
    except ValueError:
        raise ValueError(f"{PREFIX}{name.upper()}: {text!r} is not a valid {annotation.split()[0]}") from None
    return text
