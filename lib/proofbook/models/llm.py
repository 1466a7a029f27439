"""The LLM endpoint client: one OpenAI-compatible chat client for every prompt in the book.

Claims in the wild (Chen et al. 2023) prompts an LLM twice: to decompose a claim into
yes/no questions (text-davinci-003, temperature 0.7) and to write claim-focused summaries of the
retrieved documents.  Here both go through :class:`ChatClient`, which talks to any OpenAI-compatible
server (OpenAI, vLLM, llama.cpp server, Ollama) with the ``openai`` package.  It is configured from the
environment:

* ``OPENAI_BASE_URL`` -- the server, e.g. ``http://127.0.0.1:8000/v1``;
* ``OPENAI_API_KEY`` -- the key (a local server usually accepts any string);
* ``PROOFBOOK_LLM_MODEL`` -- the model name the server knows.

What it adds to the bare ``openai`` client (settings in :class:`LLMSettings`):

* a wall-clock deadline per request: the whole reply, headers and body, must arrive within ``timeout``
  seconds of the request being sent.  (The ``openai``/``httpx`` timeout alone bounds each read, so a
  server that trickles a byte at a time could hold a call indefinitely.)  Every step of the request --
  waiting for a pooled connection, connect, TLS handshake, each write and each read -- waits at most for
  what is left of that time (only the system's look-up of a host name has no timeout of its own); at the
  deadline the request fails as a timeout and its connection is closed, not returned to the pool.  The
  reply is read in full inside :meth:`ChatClient.chat`, so the deadline covers all of it;
* a deadline per call, retries and waits included: ``total_timeout`` seconds.  No request may run past
  it, and when it passes, or when the wait before the next attempt would reach it, the call stops at once
  with a ``"timeout"`` error that says so and names the last failure (it does not sleep first).  Unset
  (the default), the other settings alone bound a call: at most ``timeout * (max_retries + 1) +
  max_backoff * max_retries`` seconds (:attr:`LLMSettings.call_timeout`);
* bounded retries on rate limits (HTTP 429), server errors (5xx), timeouts and refused connections --
  the ``openai`` client's own retries are switched off, so exactly ``max_retries`` retries happen.  The
  ``k``-th wait (``k = 0, 1, ...``) is at least ``min(max_backoff, backoff * 2**k)``; a ``Retry-After``
  header (seconds, or an HTTP date) or ``retry-after-ms`` header asking for longer is honoured up to
  ``max_backoff``; one asking for less (``Retry-After: 0`` included) does not shorten the wait;
* replies checked for shape: a reply that is not a chat completion, lacks a message text, or has a
  number of ``choices`` other than the ``n`` asked for is a ``"malformed"`` error (not retried);
* one error type, :class:`LLMError`, whose message says what went wrong (``kind`` is one of
  ``"config"``, ``"timeout"``, ``"connection"``, ``"rate_limit"``, ``"http"``, ``"malformed"``) and, for
  HTTP errors, the status and the start of the server's reply.

Proxies are taken from ``HTTP(S)_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY`` for the base URL, as the
``openai`` client would.  Departure from the paper: the paper used the completion endpoint of
``text-davinci-003`` (retired); every prompt here is sent as one user message to the chat endpoint.
"""
from __future__ import annotations

import email.utils
import math
import os
import threading
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Sequence
from urllib.parse import urlsplit

import httpcore2
import httpx2

ENV_BASE_URL, ENV_API_KEY, ENV_MODEL = "OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL"
ERROR_KINDS = ("config", "timeout", "connection", "rate_limit", "http", "malformed")


class LLMError(RuntimeError):
    """A failed chat request; ``kind`` is one of :data:`ERROR_KINDS`, ``status`` the HTTP status if any."""

    def __init__(self, kind: str, message: str, status: int | None = None, attempts: int = 1):
        self.kind, self.status, self.attempts = kind, status, attempts
        super().__init__(message)


@dataclass(frozen=True)
class LLMSettings:
    """Where the endpoint is and how patient to be with it (all times in seconds; see the module docstring)."""

    base_url: str
    api_key: str
    model: str
    timeout: float = 60.0              # the whole reply of one request
    max_retries: int = 3
    backoff: float = 1.0               # the first wait; doubled for each further retry
    max_backoff: float = 30.0          # no wait is longer, whatever Retry-After says
    total_timeout: float | None = None  # the whole call, retries and waits included; None: no limit of its own

    @property
    def call_timeout(self) -> float:
        """The most one call may take: ``total_timeout``, or unset, the bound the other settings imply."""
        if self.total_timeout is not None:
            return self.total_timeout
        return self.timeout * (self.max_retries + 1) + self.max_backoff * self.max_retries

    def wait_before_retry(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based), given the server's Retry-After if any."""
        minimum = min(self.max_backoff, self.backoff * 2 ** attempt)
        return minimum if retry_after is None else min(self.max_backoff, max(minimum, retry_after))

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

    ``settings`` defaults to :meth:`LLMSettings.from_env`; ``sleep`` is injectable for tests.  The client
    holds a connection pool: :meth:`close` it (or use it as a context manager) when done.
    """

    def __init__(self, settings: LLMSettings | None = None, sleep: Callable[[float], None] = time.sleep, **overrides):
        import openai

        self.settings = settings or LLMSettings.from_env(**overrides)
        self._sleep = sleep
        self._openai = openai
        self._deadline = _Deadline()
        transport = _DeadlineTransport(self._deadline, proxy=_proxy_for(self.settings.base_url))
        self.client = openai.OpenAI(base_url=self.settings.base_url, api_key=self.settings.api_key,
                                    timeout=self.settings.timeout, max_retries=0,
                                    http_client=openai.DefaultHttpxClient(transport=transport))
        self.requests = 0

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.base_url!r}, model={self.settings.model!r})"

    def close(self) -> None:
        """Close the pooled connections."""
        self.client.close()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def chat(self, messages: Sequence[dict], temperature: float = 0.0, max_tokens: int = 256, n: int = 1,
             stop: Sequence[str] | None = None) -> list[str]:
        """Send one chat request (retrying as described in the module docstring); ``n`` reply texts."""
        _check_messages(messages)
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"chat: n must be a positive int, got {n!r}")
        s = self.settings
        started = time.monotonic()
        call_deadline = started + s.total_timeout if s.total_timeout is not None else math.inf
        for attempt in range(s.max_retries + 1):
            attempts = attempt + 1
            sent = time.monotonic()
            request_deadline = min(sent + s.timeout, call_deadline)
            try:
                self.requests += 1
                self._deadline.at = request_deadline
                try:
                    response = self.client.chat.completions.create(
                        model=s.model, messages=list(messages), temperature=temperature, max_tokens=max_tokens,
                        n=n, **({"stop": list(stop)} if stop else {}))
                finally:
                    self._deadline.at = None
                return _reply_texts(response, s, n)
            except self._openai.APIStatusError as err:
                status = err.status_code
                error = _status_error(err, s, attempts)
                retry = status == 429 or status >= 500
                wait = _retry_after(err)
            except self._openai.APITimeoutError:
                if request_deadline < sent + s.timeout:  # the call's deadline, not the request's, ran out
                    raise LLMError("timeout", f"{s.base_url}: the {s.call_timeout:g} s deadline for the whole call "
                                   f"(total_timeout) passed with no reply (model {s.model!r}; {attempts} attempt(s) "
                                   f"in {time.monotonic() - started:.1f} s)", attempts=attempts) from None
                error = LLMError("timeout", f"{s.base_url}: no reply within {s.timeout:g} s "
                                 f"(model {s.model!r}; {attempts} attempt(s))", attempts=attempts)
                retry, wait = True, None
            except self._openai.APIConnectionError as err:
                error = LLMError("connection", f"{s.base_url}: cannot connect ({err.__cause__ or err}); "
                                 f"is the server running? ({attempts} attempt(s))", attempts=attempts)
                retry, wait = True, None
            except (self._openai.APIResponseValidationError, ValueError) as err:  # ValueError: body not JSON
                raise LLMError("malformed", f"{s.base_url}: malformed reply, not a chat-completion JSON object "
                                            f"({type(err).__name__}: {err})") from None
            if not retry or attempt == s.max_retries:
                raise error
            delay = s.wait_before_retry(attempt, wait)
            if time.monotonic() + delay >= call_deadline:
                raise LLMError("timeout", f"{s.base_url}: gave up after {attempts} attempt(s) in "
                                          f"{time.monotonic() - started:.1f} s: waiting {delay:g} s for the next "
                                          f"would pass the {s.call_timeout:g} s deadline for the whole call "
                                          f"(total_timeout); last error: {error}",
                               status=error.status, attempts=attempts)
            self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def complete(self, prompt: str, **kwargs) -> str:
        """One user message in, the first reply text out."""
        return self.chat([{"role": "user", "content": prompt}], **kwargs)[0]


# ---- the per-request deadline ----------------------------------------------------------------------
# httpx/httpcore timeouts bound each socket operation.  The deadline is enforced one level down, in the
# network backend httpcore opens its connections with: every connect, TLS handshake, write and read gets
# ``min(its own timeout, time left)`` and fails with httpcore's own timeout exception once no time is
# left.  httpcore then closes that connection (a half-read HTTP/1.1 response is never reused) and httpx
# and openai report an ordinary timeout.  The deadline lives in a thread-local owned by one ChatClient:
# set around each request, unset (no limit) otherwise.

class _Deadline(threading.local):
    """The ``time.monotonic()`` by which this thread's request in flight must be done (``None``: no limit)."""

    at: float | None = None

    def clamp(self, timeout: float | None, expired: type[Exception]) -> float | None:
        if self.at is None:
            return timeout
        left = self.at - time.monotonic()
        if left <= 0:
            raise expired("the request's deadline has passed")
        return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    _WRITE_CHUNK = 64 * 1024  # so that a large request body is written under a fresh clamp per chunk

    def __init__(self, stream: httpcore2.NetworkStream, deadline: _Deadline):
        self._stream, self._deadline = stream, deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._deadline.clamp(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for start in range(0, len(buffer), self._WRITE_CHUNK):
            self._stream.write(buffer[start:start + self._WRITE_CHUNK],
                               self._deadline.clamp(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None, timeout: float | None = None):
        stream = self._stream.start_tls(ssl_context, server_hostname,
                                        self._deadline.clamp(timeout, httpcore2.ConnectTimeout))
        return _DeadlineStream(stream, self._deadline)

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    def __init__(self, backend: httpcore2.NetworkBackend, deadline: _Deadline):
        self._backend, self._deadline = backend, deadline

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._backend.connect_tcp(host, port, self._deadline.clamp(timeout, httpcore2.ConnectTimeout),
                                           local_address, socket_options)
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        stream = self._backend.connect_unix_socket(path, self._deadline.clamp(timeout, httpcore2.ConnectTimeout),
                                                   socket_options)
        return _DeadlineStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _DeadlineTransport(httpx2.HTTPTransport):
    """``httpx2.HTTPTransport`` whose connections obey a :class:`_Deadline` (waiting for the pool too)."""

    def __init__(self, deadline: _Deadline, **kwargs):
        super().__init__(**kwargs)
        pool = getattr(self, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:  # pinned versions have both; fail loudly rather than lose the deadline
            raise RuntimeError("httpx2/httpcore2 changed: cannot install the per-request deadline "
                               "(no HTTPTransport._pool._network_backend)")
        pool._network_backend = _DeadlineBackend(backend, deadline)
        self._deadline = deadline

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        timeouts = request.extensions.get("timeout")
        if self._deadline.at is not None and isinstance(timeouts, dict):
            left = max(1e-3, self._deadline.at - time.monotonic())
            pool = timeouts.get("pool")
            request.extensions["timeout"] = {**timeouts, "pool": left if pool is None else min(pool, left)}
        return super().handle_request(request)


def _proxy_for(base_url: str) -> str | None:
    """The proxy the environment names for ``base_url`` (``HTTP(S)_PROXY``, ``ALL_PROXY``, ``NO_PROXY``)."""
    parts = urlsplit(base_url)
    proxies = urllib.request.getproxies()
    if not parts.hostname or not proxies or urllib.request.proxy_bypass(parts.hostname):
        return None
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    return proxy if not proxy or "://" in proxy else f"http://{proxy}"


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
    if len(choices) != n:
        raise LLMError("malformed", f"{where}: asked for n={n} choices, the reply has {len(choices)}")
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
    """Seconds the server asks us to wait: ``retry-after-ms``, else ``Retry-After`` (seconds or an HTTP date)."""
    try:
        headers = err.response.headers
        millis, value = headers.get("retry-after-ms"), headers.get("retry-after")
    except AttributeError:
        return None
    seconds = None
    for text, scale in ((millis, 1e-3), (value, 1.0)):
        try:
            seconds = float(text) * scale if text is not None else None
        except ValueError:
            seconds = None
        if seconds is not None and math.isfinite(seconds):
            return max(0.0, seconds)
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is in GMT
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
