"""The LLM endpoint client: one OpenAI-compatible chat client for every prompt in the book.

Claims in the wild (Chen et al. 2023, ``papers.md`` §2) prompts an LLM twice: to decompose a claim into
yes/no questions (text-davinci-003, temperature 0.7) and to write claim-focused summaries of the
retrieved documents.  Here both go through :class:`ChatClient`, which talks to any OpenAI-compatible
server (OpenAI, vLLM, llama.cpp server, Ollama) with the ``openai`` package.  It is configured from the
environment:

* ``OPENAI_BASE_URL`` -- the server, e.g. ``http://127.0.0.1:8000/v1``;
* ``OPENAI_API_KEY`` -- the key (a local server usually accepts any string);
* ``PROOFBOOK_LLM_MODEL`` -- the model name the server knows.

What it adds to the bare ``openai`` client:

* a per-request timeout (``timeout`` seconds);
* bounded retries with exponential backoff (``backoff * 2**attempt`` seconds, capped at ``max_backoff``,
  or the server's ``Retry-After`` if it sends a shorter one) on rate limits (HTTP 429), server errors
  (5xx), timeouts and refused connections -- the ``openai`` client's own retries are switched off so that
  exactly ``max_retries`` retries happen;
* one error type, :class:`LLMError`, whose message says what went wrong (``kind`` is one of
  ``"config"``, ``"timeout"``, ``"connection"``, ``"rate_limit"``, ``"http"``, ``"malformed"``) and, for
  HTTP errors, the status and the start of the server's reply.

Departure from the paper: the paper used the completion endpoint of ``text-davinci-003`` (retired);
every prompt here is sent as one user message to the chat endpoint.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, Sequence

ENV_BASE_URL, ENV_API_KEY, ENV_MODEL = "OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL"
ERROR_KINDS = ("config", "timeout", "connection", "rate_limit", "http", "malformed")


class LLMError(RuntimeError):
    """A failed chat request; ``kind`` is one of :data:`ERROR_KINDS`, ``status`` the HTTP status if any."""

    def __init__(self, kind: str, message: str, status: int | None = None, attempts: int = 1):
        self.kind, self.status, self.attempts = kind, status, attempts
        super().__init__(message)


@dataclass(frozen=True)
class LLMSettings:
    """Where the endpoint is and how patient to be with it."""

    base_url: str
    api_key: str
    model: str
    timeout: float = 60.0
    max_retries: int = 3
    backoff: float = 1.0
    max_backoff: float = 30.0

    @classmethod
    def from_env(cls, **overrides) -> "LLMSettings":
        """Settings from ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``PROOFBOOK_LLM_MODEL`` (overridable).

        A missing value is an :class:`LLMError` of kind ``"config"`` naming the variable to set.
        """
        values = {"base_url": os.environ.get(ENV_BASE_URL), "api_key": os.environ.get(ENV_API_KEY),
                  "model": os.environ.get(ENV_MODEL)}
        values.update({k: v for k, v in overrides.items() if v is not None})
        names = {"base_url": ENV_BASE_URL, "api_key": ENV_API_KEY, "model": ENV_MODEL}
        missing = [names[k] for k in names if not values.get(k)]
        if missing:
            raise LLMError("config", "no LLM endpoint configured: set " + ", ".join(missing)
                           + " (an OpenAI-compatible server, e.g. vLLM or llama.cpp server)")
        return cls(**values)


def endpoint_configured() -> bool:
    """True when the three environment variables name an endpoint (notebooks skip LLM steps otherwise)."""
    return all(os.environ.get(name) for name in (ENV_BASE_URL, ENV_API_KEY, ENV_MODEL))


class ChatClient:
    """``ChatClient().chat([{"role": "user", "content": "..."}])`` -> the reply texts.

    ``settings`` defaults to :meth:`LLMSettings.from_env`; ``sleep`` is injectable for tests.
    """

    def __init__(self, settings: LLMSettings | None = None, sleep: Callable[[float], None] = time.sleep, **overrides):
        import openai

        self.settings = settings or LLMSettings.from_env(**overrides)
        self._sleep = sleep
        self._openai = openai
        self.client = openai.OpenAI(base_url=self.settings.base_url, api_key=self.settings.api_key,
                                    timeout=self.settings.timeout, max_retries=0)
        self.requests = 0

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.base_url!r}, model={self.settings.model!r})"

    def chat(self, messages: Sequence[dict], temperature: float = 0.0, max_tokens: int = 256, n: int = 1,
             stop: Sequence[str] | None = None) -> list[str]:
        """Send one chat request (retrying as described in the module docstring); ``n`` reply texts."""
        _check_messages(messages)
        s = self.settings
        for attempt in range(s.max_retries + 1):
            try:
                self.requests += 1
                response = self.client.chat.completions.create(
                    model=s.model, messages=list(messages), temperature=temperature, max_tokens=max_tokens, n=n,
                    **({"stop": list(stop)} if stop else {}))
                return _reply_texts(response, s, n)
            except self._openai.APIStatusError as err:
                status = err.status_code
                error = _status_error(err, s, attempt + 1)
                retry = status == 429 or status >= 500
                wait = _retry_after(err)
            except self._openai.APITimeoutError:
                error = LLMError("timeout", f"{s.base_url}: no reply within {s.timeout:g} s "
                                 f"(model {s.model!r}; {attempt + 1} attempt(s))", attempts=attempt + 1)
                retry, wait = True, None
            except self._openai.APIConnectionError as err:
                error = LLMError("connection", f"{s.base_url}: cannot connect ({err.__cause__ or err}); "
                                 f"is the server running? ({attempt + 1} attempt(s))", attempts=attempt + 1)
                retry, wait = True, None
            except (self._openai.APIResponseValidationError, ValueError) as err:  # ValueError: body not JSON
                raise LLMError("malformed", f"{s.base_url}: malformed reply, not a chat-completion JSON object "
                                            f"({type(err).__name__}: {err})") from None
            if not retry or attempt == s.max_retries:
                raise error
            delay = min(s.max_backoff, s.backoff * 2 ** attempt)
            self._sleep(min(delay, wait) if wait is not None else delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def complete(self, prompt: str, **kwargs) -> str:
        """One user message in, the first reply text out."""
        return self.chat([{"role": "user", "content": prompt}], **kwargs)[0]


def _check_messages(messages: Sequence[dict]) -> None:
    if not messages:
        raise ValueError("chat: no messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str) or "role" not in message:
            raise ValueError(f"chat: message {i} must be {{'role': ..., 'content': str}}, got {message!r:.80}")


def _reply_texts(response, settings: LLMSettings, n: int) -> list[str]:
    """The reply texts, or a ``malformed`` LLMError saying what the reply lacked."""
    where = f"{settings.base_url} (model {settings.model!r})"
    if isinstance(response, (str, bytes)):
        raise LLMError("malformed", f"{where}: the reply is not a chat-completion JSON object: {str(response)[:200]!r}")
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise LLMError("malformed", f"{where}: the reply has no 'choices' ({str(response)[:200]})")
    texts = []
    for i, choice in enumerate(choices):
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            raise LLMError("malformed", f"{where}: choices[{i}].message.content is missing or not text")
        texts.append(content)
    return texts


def _status_error(err, settings: LLMSettings, attempts: int) -> LLMError:
    status = err.status_code
    body = ""
    try:
        body = err.response.text[:300]
    except Exception:  # noqa: BLE001 - the body is only decoration for the message
        pass
    kind = "rate_limit" if status == 429 else "http"
    what = {401: "unauthorised (check OPENAI_API_KEY)", 404: "not found (check OPENAI_BASE_URL and the model name)",
            429: "rate limited"}.get(status, "server error" if status >= 500 else "request refused")
    return LLMError(kind, f"{settings.base_url}: HTTP {status} {what} for model {settings.model!r} after "
                          f"{attempts} attempt(s): {body!r}", status=status, attempts=attempts)


def _retry_after(err) -> float | None:
    try:
        value = err.response.headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (AttributeError, TypeError, ValueError):
        return None
