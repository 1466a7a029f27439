"""The LLM endpoint client against a fake server on 127.0.0.1 (never a real host)."""
import pytest

from conftest import chat_reply
from proofbook.models.llm import ChatClient, LLMError, LLMSettings, endpoint_configured

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


def test_retry_after_header_shortens_the_wait(fake_llm):
    fake_llm.script = [(429, {"error": "x"}, {"headers": {"Retry-After": "0.1"}}), (200, chat_reply("ok"))]
    sleeps = []
    client(fake_llm, sleeps).complete("x")
    assert sleeps == [0.1]


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


def test_bad_messages():
    settings = LLMSettings("http://127.0.0.1:9/v1", "k", "m")
    with pytest.raises(ValueError, match="message 0"):
        ChatClient(settings).chat([{"content": 3}])
