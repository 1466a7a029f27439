"""The LLM endpoint client against a fake server on 127.0.0.1 (never a real host)."""
import email.utils
import time
from datetime import datetime, timedelta, timezone

import pytest

from proofbook.models.llm import ChatClient, LLMError, LLMSettings, endpoint_configured

from tests.fake_llm import chat_reply

pytestmark = pytest.mark.unit


def client(server, sleeps=None, **kw):
    settings = LLMSettings(server.base_url, "k", "fake-model", **{"timeout": 2.0, "max_retries": 2, "backoff": 0.5, **kw})
    return ChatClient(settings, sleep=(sleeps.append if sleeps is not None else lambda s: None))


def test_reply_texts_and_request(fake_llm):
    fake_llm.script = [(200, chat_reply("Is it true?"))]
    c = ChatClient()
    assert c.complete("hello", temperature=0.7, max_tokens=20) == "Is it true?"
    request = fake_llm.requests[0]
    assert request["model"] == "fake-model" and request["temperature"] == 0.7 and request["max_tokens"] == 20
    assert request["messages"] == [{"role": "user", "content": "hello"}]
    assert fake_llm.paths[0].endswith("/chat/completions")


def test_missing_environment_is_a_config_error(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert not endpoint_configured()
    with pytest.raises(LLMError, match="PROOFBOOK_LLM_MODEL") as info:
        ChatClient()
    assert info.value.kind == "config"


def test_rate_limit_then_success_backs_off(fake_llm):
    fake_llm.script = [(429, {"error": {"message": "slow down"}}), (503, "busy"), (200, chat_reply("ok"))]
    sleeps = []
    assert client(fake_llm, sleeps).complete("x") == "ok"
    assert len(fake_llm.requests) == 3
    assert sleeps == [0.5, 1.0]  # exponential backoff


def retry_after_sleeps(server, headers, **kw):
    server.script = [(429, {"error": "x"}, {"headers": headers}), (200, chat_reply("ok"))]
    sleeps = []
    assert client(server, sleeps, **kw).complete("x") == "ok"
    return sleeps


def test_retry_after_longer_than_the_backoff_is_honoured(fake_llm):
    assert retry_after_sleeps(fake_llm, {"Retry-After": "3"}) == [3.0]
    fake_llm.requests.clear()
    assert retry_after_sleeps(fake_llm, {"retry-after-ms": "2500"}) == [2.5]


def test_retry_after_is_capped(fake_llm):
    assert retry_after_sleeps(fake_llm, {"Retry-After": "120"}, max_backoff=4.0) == [4.0]


@pytest.mark.parametrize("value", ["0", "0.1", "-5", "soon"])
def test_short_or_bad_retry_after_does_not_shorten_the_wait(fake_llm, value):
    assert retry_after_sleeps(fake_llm, {"Retry-After": value}) == [0.5]  # the backoff, as without it


def test_retry_after_as_an_http_date(fake_llm):
    later = email.utils.format_datetime(datetime.now(timezone.utc) + timedelta(seconds=10), usegmt=True)
    [sleep] = retry_after_sleeps(fake_llm, {"Retry-After": later})
    assert 8.0 <= sleep <= 10.0
    fake_llm.requests.clear()
    earlier = email.utils.format_datetime(datetime.now(timezone.utc) - timedelta(seconds=10), usegmt=True)
    assert retry_after_sleeps(fake_llm, {"Retry-After": earlier}) == [0.5]


def test_wait_rule_and_call_deadline_default():
    s = LLMSettings("u", "k", "m", timeout=10.0, max_retries=3, backoff=1.0, max_backoff=5.0)
    assert [s.wait_before_retry(a) for a in range(4)] == [1.0, 2.0, 4.0, 5.0]
    assert [s.wait_before_retry(1, r) for r in (0.0, 3.0, 60.0)] == [2.0, 3.0, 5.0]
    assert s.call_timeout == 10.0 * 4 + 5.0 * 3
    assert LLMSettings("u", "k", "m", total_timeout=7.5).call_timeout == 7.5


def test_retries_are_bounded(fake_llm):
    fake_llm.script = [(500, "internal error")]
    with pytest.raises(LLMError, match="HTTP 500") as info:
        client(fake_llm).complete("x")
    assert info.value.kind == "http" and info.value.status == 500 and info.value.attempts == 3
    assert len(fake_llm.requests) == 3


def test_persistent_rate_limit(fake_llm):
    fake_llm.script = [(429, {"error": "quota"})]
    with pytest.raises(LLMError, match="rate limited") as info:
        client(fake_llm, max_retries=1).complete("x")
    assert info.value.kind == "rate_limit" and len(fake_llm.requests) == 2


def test_client_error_is_not_retried(fake_llm):
    fake_llm.script = [(401, {"error": {"message": "bad key"}})]
    with pytest.raises(LLMError, match="OPENAI_API_KEY") as info:
        client(fake_llm).complete("x")
    assert info.value.status == 401 and len(fake_llm.requests) == 1


def test_timeout(fake_llm):
    fake_llm.script = [(200, chat_reply("late"), {"delay": 1.0})]
    with pytest.raises(LLMError, match="no reply within") as info:
        client(fake_llm, timeout=0.2, max_retries=1).complete("x")
    assert info.value.kind == "timeout" and len(fake_llm.requests) == 2


@pytest.mark.parametrize("trickle_headers", [False, True], ids=["body", "headers"])
def test_trickling_server_is_cut_off_at_the_deadline(fake_llm, trickle_headers):
    # about 400 bytes at one byte per 0.05 s: 20 s to send in full, every read well inside its timeout
    fake_llm.script = [(200, chat_reply("x" * 300), {"trickle": 0.05, "trickle_headers": trickle_headers})]
    started = time.monotonic()
    with pytest.raises(LLMError, match="no reply within 0.5 s") as info:
        client(fake_llm, timeout=0.5, max_retries=0).complete("x")
    elapsed = time.monotonic() - started
    assert info.value.kind == "timeout" and 0.4 <= elapsed < 0.5 + 1.0, elapsed
    assert len(fake_llm.requests) == 1
    while fake_llm.disconnects == 0 and time.monotonic() - started < 3.0:  # the connection was closed
        time.sleep(0.02)
    assert fake_llm.disconnects == 1


def test_slow_reply_that_ends_in_time_is_read(fake_llm):
    fake_llm.script = [(200, chat_reply("ok"), {"trickle": 0.001, "chunk": 16, "trickle_headers": True})]
    assert client(fake_llm, timeout=2.0).complete("x") == "ok"


def test_call_deadline_stops_the_retries(fake_llm):
    fake_llm.script = [(200, chat_reply("late"), {"delay": 1.0})]
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"1 s deadline for the whole call \(total_timeout\)") as info:
        client(fake_llm, timeout=0.3, max_retries=10, backoff=0.0, total_timeout=1.0).complete("x")
    elapsed = time.monotonic() - started
    assert info.value.kind == "timeout" and 0.9 <= elapsed < 1.0 + 1.0, elapsed
    assert 2 <= len(fake_llm.requests) <= 5  # about 1.0 / 0.3 attempts, not 11


def test_wait_past_the_call_deadline_is_skipped(fake_llm):
    fake_llm.script = [(429, {"error": "x"}, {"headers": {"Retry-After": "5"}})]
    sleeps, started = [], time.monotonic()
    with pytest.raises(LLMError, match=r"waiting 5 s for the next would pass the 2 s deadline.*rate limited") as info:
        client(fake_llm, sleeps, total_timeout=2.0).complete("x")
    assert info.value.kind == "timeout" and info.value.status == 429 and info.value.attempts == 1
    assert sleeps == [] and len(fake_llm.requests) == 1 and time.monotonic() - started < 1.5


def test_fewer_or_more_choices_than_asked_are_malformed(fake_llm):
    fake_llm.script = [(200, chat_reply("a", "b"))]
    with pytest.raises(LLMError, match="asked for n=3 choices, the reply has 2") as info:
        client(fake_llm).chat([{"role": "user", "content": "x"}], n=3)
    assert info.value.kind == "malformed" and len(fake_llm.requests) == 1
    assert fake_llm.requests[0]["n"] == 3
    with pytest.raises(LLMError, match="asked for n=1 choices, the reply has 2"):
        client(fake_llm).complete("x")
    fake_llm.script = [(200, chat_reply("a", "b", "c"))]
    assert client(fake_llm).chat([{"role": "user", "content": "x"}], n=3) == ["a", "b", "c"]
    with pytest.raises(ValueError, match="n must be a positive int"):
        client(fake_llm).chat([{"role": "user", "content": "x"}], n=0)


@pytest.mark.parametrize("body", ["this is not json", {"choices": []}, {"choices": [{"message": {}}]},
                                  {"object": "chat.completion"}])
def test_malformed_replies(fake_llm, body):
    fake_llm.script = [(200, body)]
    with pytest.raises(LLMError) as info:
        client(fake_llm).complete("x")
    assert info.value.kind == "malformed", str(info.value)
    assert len(fake_llm.requests) == 1


def test_refused_connection():
    settings = LLMSettings("http://127.0.0.1:9/v1", "k", "m", timeout=1.0, max_retries=1, backoff=0.0)
    with pytest.raises(LLMError, match="cannot connect") as info:
        ChatClient(settings, sleep=lambda s: None).complete("x")
    assert info.value.kind == "connection"


def test_proxy_from_the_environment(monkeypatch):
    from proofbook.models.llm import _proxy_for

    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert _proxy_for("https://api.example.org/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "127.0.0.1:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert _proxy_for("https://api.example.org/v1") == "http://127.0.0.1:3128"
    assert _proxy_for("http://api.example.org/v1") is None
    assert _proxy_for("https://127.0.0.1:8000/v1") is None


def test_bad_messages():
    settings = LLMSettings("http://127.0.0.1:9/v1", "k", "m")
    with pytest.raises(ValueError, match="message 0"):
        ChatClient(settings).chat([{"content": 3}])
