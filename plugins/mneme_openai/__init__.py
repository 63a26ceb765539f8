"""A model provider for any OpenAI-compatible endpoint: DeepSeek, Qwen, Ollama, vLLM, OpenAI.

Registered through the entry-point group `mneme` (`openai = "mneme_openai"`), like a third party's plugin.
A bot names it in its config:

    [plugins.openai]
    base_url = "https://api.deepseek.com/v1"
    model = "deepseek-chat"
    api_key = { "$env" = "DEEPSEEK_API_KEY" }

`OpenAIProvider` gives the chat reply (`chat`, the whole conversation as chat messages, which the bot layer
sends; `complete` for one system prompt and one user message), the judge and note writer (`judge`, which
`Mneme(complete=...)` and `aobserve(complete=...)` take as they are) and embeddings (`embed`). Standard
library only: requests run on a small thread pool (`transport`). See `provider` for timeouts, retries and
errors.

The same endpoint's embeddings are the embedder family "openai" (`register_embedders`): a companion with
`memory.embed = "openai:text-embedding-3-small@256"` finds notes by meaning through it (see `embeddings`).
"""

from __future__ import annotations

from typing import Any

from mneme_core.hookspecs import hookimpl

from .embeddings import OpenAIEmbeddings, openai_embeddings
from .provider import NAME, OpenAIProvider, ProviderError, Settings
from .settings import SETTINGS

__all__ = [
    "OpenAIEmbeddings",
    "OpenAIProvider",
    "ProviderError",
    "Settings",
    "openai_embeddings",
    "register_embedders",
    "register_providers",
    "register_settings",
]


@hookimpl
def register_providers(register: Any) -> None:
    register(OpenAIProvider)


@hookimpl
def register_embedders(register: Any) -> None:
    """The family "openai": "openai:<model>@<dims>" for any model of the endpoint (made on first use)."""
    register(openai_embeddings, name=NAME)


@hookimpl
def register_settings(register: Any) -> None:
    """The `[plugins.openai]` keys, for the config's checks and template (`settings.SETTINGS`)."""
    SETTINGS.register(register)
