"""A model provider for any OpenAI-compatible endpoint: DeepSeek, Qwen, Ollama, vLLM, OpenAI.

Registered through the entry-point group `mneme` (`openai = "mneme_openai"`), like a third party's plugin.
A bot names it in its config:

    [plugins.openai]
    base_url = "https://api.deepseek.com/v1"
    model = "deepseek-chat"
    api_key = { "$env" = "DEEPSEEK_API_KEY" }

`OpenAIProvider` gives the chat reply (`complete`), the judge and note writer (`judge`, which
`Mneme(complete=...)` and `aobserve(complete=...)` take as they are) and embeddings (`embed`). Standard
library only: requests run on a small thread pool (`transport`). See `provider` for timeouts, retries and
errors.
"""

from __future__ import annotations

from typing import Any

from mneme_core.hookspecs import hookimpl

from .provider import OpenAIProvider, ProviderError, Settings

__all__ = ["OpenAIProvider", "ProviderError", "Settings", "register_providers"]


@hookimpl
def register_providers(register: Any) -> None:
    register(OpenAIProvider)
