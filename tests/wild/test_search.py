"""Search backends: site and time filters, replay of the cache, local BM25 on dated pages, live client."""
from datetime import date

import pytest

from proofbook.data.politifact_search import SearchResult
from proofbook.wild.search import (ClaimQuery, LiveSearch, LocalSearch, Page, ReplaySearch, SearchError,
                                   is_fact_check_url, snippet_date)

pytestmark = pytest.mark.unit

CLAIM = ClaimQuery(1, "The senator cut school funding.", "stated on March 24, 2015 in a mailer:")
UNDATED = ClaimQuery(2, "The senator cut school funding.", "stated on sometime in a mailer:")


@pytest.mark.parametrize("url, dropped", [
    ("https://www.politifact.com/factchecks/2018/x", True),
    ("http://factcheck.org/2019/01/y/", True),
    ("https://www.snopes.com/fact-check/z", True),
    ("https://www.washingtonpost.com/news/fact-checker/wp/2017/a", True),
    ("https://www.washingtonpost.com/politics/2017/a", False),
    ("https://apnews.com/hub/ap-fact-check", True),
    ("https://apnews.com/article/senate-1234", False),
    ("https://fullfact.org/health/x", True),
    ("https://www.reuters.com/fact-check/abc", True),
    ("https://www.reuters.com/world/us/abc", False),
    ("https://m.youtube.com/watch?v=1", True),
    ("https://example.org/report.pdf", True),
    ("https://news.example.com/factcheck-of-the-week", True),
    ("https://example.com/2019/senator-budget", False),
    ("https://notpolitifact.com.example.net/", False),
])
def test_fact_check_filter(url, dropped):
    assert is_fact_check_url(url) is dropped


def test_snippet_date():
    assert snippet_date("Jun 20, 2016 ... Andy Barr") == date(2016, 6, 20)
    assert snippet_date("Sept 3, 2019 ... x") == date(2019, 9, 3)
    assert snippet_date("As an Alt-A lender, ...") is None


def test_replay_applies_site_and_time_filters():
    cache = {1: [SearchResult("q1", "https://politifact.com/a", "PF", "Mar 1, 2015 ... verdict"),
                 SearchResult("q1", "https://a.com/1", "A", "Mar 25, 2015 ... the day after: kept"),
                 SearchResult("q1", "https://b.com/2", "B", "Mar 26, 2015 ... two days after: dropped"),
                 SearchResult("q2", "https://c.com/3", "C", "no date here: kept"),
                 SearchResult("q2", "https://a.com/1", "A", "Mar 25, 2015 ... repeated")]}
    outcome = ReplaySearch(cache).search(CLAIM)
    assert [p.url for p in outcome.pages] == ["https://a.com/1", "https://c.com/3"]
    assert outcome.dropped == {"fact-check site": 1, "after the claim date": 1, "repeated url": 1}
    assert outcome.message is None
    with pytest.raises(KeyError, match="no cached search results"):
        ReplaySearch(cache).search(ClaimQuery(9, "x", ""))


PAGES = [
    Page("https://news.com/budget", "Senator cuts school budget", "The senator voted to cut school funding.", date(2015, 3, 1)),
    Page("https://news.com/later", "School funding cut, a review", "After the mailer the senator school funding.", date(2015, 4, 30)),
    Page("https://blog.com/undated", "School funding", "An undated post about school funding cuts.", None),
    Page("https://www.politifact.com/x", "Fact-check: school funding", "The senator school funding claim rated.", date(2015, 3, 1)),
    Page("https://weather.com/", "Rain tomorrow", "Rain forecast along a coast.", date(2015, 3, 1)),
]


def test_local_bm25_time_and_site_filters():
    outcome = LocalSearch(PAGES, k=10).search(CLAIM, ["Did the senator cut school funding?"])
    urls = [p.url for p in outcome.pages]
    assert set(urls) == {"https://news.com/budget", "https://blog.com/undated"}
    assert outcome.dropped == {"after the claim date": 1, "fact-check site": 1}
    assert all(p.question == "Did the senator cut school funding?" for p in outcome.pages)


def test_local_k_counts_after_filtering_and_dedup_across_questions():
    outcome = LocalSearch(PAGES, k=1).search(CLAIM, ["senator school funding", "school funding"])
    assert len(outcome.pages) == 2 and len({p.url for p in outcome.pages}) == 2


def test_unparseable_claim_date_is_a_message_not_a_crash():
    outcome = LocalSearch(PAGES).search(UNDATED, ["senator school funding"])
    assert "no date could be read" in outcome.message and "time filter was not applied" in outcome.message
    assert "https://news.com/later" in [p.url for p in outcome.pages]


def test_live_search_against_loopback_fake(fake_llm, monkeypatch):
    reply = {"webPages": {"value": [
        {"name": "A", "url": "https://a.com/1", "snippet": "about the senator", "datePublished": "2015-03-01T00:00:00"},
        {"name": "PF", "url": "https://www.politifact.com/y", "snippet": "rated"},
        {"name": "Late", "url": "https://b.com/late", "snippet": "later", "datePublished": "2016-01-01"}]}}
    fake_llm.script = [(200, reply)]
    monkeypatch.setenv("PROOFBOOK_SEARCH_URL", f"http://127.0.0.1:{fake_llm.port}/search")
    monkeypatch.setenv("PROOFBOOK_SEARCH_KEY", "secret")
    outcome = LiveSearch().search(CLAIM, ["Did the senator cut funding?"])
    assert [p.url for p in outcome.pages] == ["https://a.com/1"]
    assert outcome.dropped == {"fact-check site": 1, "after the claim date": 1}
    path = fake_llm.paths[0]
    assert "q=Did+the+senator" in path and "freshness=1990-01-01..2015-03-25" in path and "count=10" in path


def test_live_search_errors(fake_llm):
    search = LiveSearch(f"http://127.0.0.1:{fake_llm.port}/search", "k", timeout=2)
    fake_llm.script = [(403, {"error": "bad key"})]
    with pytest.raises(SearchError, match="HTTP 403"):
        search.search(CLAIM, ["q"])
    fake_llm.script = [(200, "not json")]
    with pytest.raises(SearchError, match="not JSON"):
        search.search(CLAIM, ["q"])
    fake_llm.script = [(200, {"webPages": {"value": [{"name": "no url"}]}})]
    with pytest.raises(SearchError, match="has no 'url'"):
        search.search(CLAIM, ["q"])


def test_live_search_needs_configuration(monkeypatch):
    monkeypatch.delenv("PROOFBOOK_SEARCH_URL", raising=False)
    monkeypatch.delenv("PROOFBOOK_SEARCH_KEY", raising=False)
    with pytest.raises(SearchError, match="PROOFBOOK_SEARCH_KEY"):
        LiveSearch()
