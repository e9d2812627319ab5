"""Language-model edge: one chat-completions call through the maintained `openai` client.

Any OpenAI-compatible server works (`base_url`: a hosted API, Ollama, vLLM, llama.cpp). The
client's own retries are off: a failure is the caller's fallback (the extractive summary) and
its breaker's count, never a wait. Every failure becomes `ModelError` with a one-line reason
that names no secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.runtime.config import Settings

if TYPE_CHECKING:
    from openai import AsyncOpenAI

MAX_REPLY_TOKENS = 400  # three sentences and a title, in any language
MAX_REPLY_CHARS = 200_000  # read no further into a runaway answer


class ModelError(Exception):
    """The model gave no usable answer; the message is one line fit for logs."""


class ModelApi:
    def __init__(self, settings: Settings) -> None:
        assert settings.model_api_url
        key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
        self.model = settings.model_name.strip()
        from openai import AsyncOpenAI  # imported only when a model is configured (30 MB)

        self._client: AsyncOpenAI = AsyncOpenAI(
            base_url=settings.model_api_url,
            api_key=key or "not-needed",  # self-hosted servers take none; the client wants one
            timeout=settings.model_timeout_seconds,
            max_retries=0,
        )

    async def complete(self, messages: list[dict[str, str]]) -> str:
        """The model's answer to `messages` (its text, capped), or ModelError."""
        import openai

        try:
            reply = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                max_tokens=MAX_REPLY_TOKENS,
                temperature=0.2,
            )
        except openai.APITimeoutError:
            raise ModelError("the model did not answer in time") from None
        except openai.RateLimitError:
            raise ModelError("the model endpoint is rate limiting (429)") from None
        except openai.APIStatusError as exc:
            raise ModelError(f"the model endpoint answered HTTP {exc.status_code}") from None
        except openai.APIConnectionError:
            raise ModelError("cannot reach the model endpoint") from None
        except (openai.OpenAIError, ValueError, TypeError) as exc:
            raise ModelError(f"unreadable answer from the model ({type(exc).__name__})") from None
        try:
            content = reply.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            raise ModelError("the model's answer has no text") from None
        if not isinstance(content, str) or not content.strip():
            raise ModelError("the model's answer has no text")
        return content[:MAX_REPLY_CHARS]

    async def aclose(self) -> None:
        await self._client.close()
