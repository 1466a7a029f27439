"""Raw-document search of claims in the wild, with the paper's time and site filters.

Chen et al. (2023), §3.2: each question is sent to Bing (10 pages per
question), restricted to pages published before the claim (claim date + 1 day), and pages from
fact-checking sites are dropped (:data:`FACT_CHECK_SITES`, :func:`is_fact_check_url`) so that the
verdict cannot simply be read off PolitiFact.  Pages without a date are kept.

Three backends share one interface, ``backend.search(claim, questions) -> SearchOutcome``:

* :class:`ReplaySearch` -- replays the cached search results of this copy
  (``derived_web_search_cache/websites_*_icl.jsonl``: Google results for the cached LLM questions,
  restricted to before the claim date by the authors of the copy, title + snippet only).  The cache
  was never filtered for fact-checking sites: the site filter is applied here.  Where a snippet opens
  with a date (``"Jun 20, 2016 ..."``) the time filter is applied to it as well.  The cached results
  belong to the cached questions, so the questions passed in are not used.
* :class:`LocalSearch` -- BM25 over a local collection of dated pages (:class:`Page`), top
  ``k = 10`` per question after both filters.  There is no dated web corpus here; the tests use small
  dated documents.
* :class:`LiveSearch` -- a pluggable web-search API client (Bing Web Search's JSON shape: ``{"webPages":
  {"value": [{"name", "url", "snippet", "datePublished"}]}}``), endpoint and key from
  ``PROOFBOOK_SEARCH_URL`` / ``PROOFBOOK_SEARCH_KEY``; tested only against a fake server on 127.0.0.1.

The claim date comes from the ClaimDecomp venue (``"stated on March 24, 2015 in a mailer:"``,
:func:`proofbook.data.politifact_text.claim_date`).  A claim whose date cannot be read is not an error (the
reference code crashes there): the time filter is skipped for it and :attr:`SearchOutcome.message`
says so.  Pages of one claim are de-duplicated by URL (the first question that found a page keeps it).
"""
from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Iterable, Mapping, Protocol, Sequence

from proofbook.data.politifact_search import SearchResult
from proofbook.data.politifact_text import claim_date, make_date
from proofbook.index.bm25 import BM25, tokenize

PAGES_PER_QUESTION = 10

#: the paper's excluded sites (matched on the host and path of the URL)
FACT_CHECK_SITES = ("politifact.com", "factcheck.org", "snopes.com", "washingtonpost.com/news/fact-checker",
                    "apnews.com/hub/ap-fact-check", "fullfact.org", "reuters.com/fact-check", "youtube.com")


def is_fact_check_url(url: str) -> bool:
    """True for a URL the paper's site filter drops: a fact-checking site, YouTube, a ``.pdf``, or any URL
    containing ``fact-check`` or ``factcheck``."""
    text = url.strip().lower()
    parsed = urllib.parse.urlsplit(text if "//" in text else "//" + text)
    host = (parsed.hostname or "").removeprefix("www.")
    for site in FACT_CHECK_SITES:
        site_host, _, site_path = site.partition("/")
        if (host == site_host or host.endswith("." + site_host)) and parsed.path.startswith("/" + site_path):
            return True
    if parsed.path.endswith(".pdf"):
        return True
    return "fact-check" in text or "factcheck" in text


_SNIPPET_DATE = re.compile(r"^\s*(?P<month>[A-Za-z]{3,9})\.?\s+(?P<day>\d{1,2}),\s+(?P<year>\d{4})\b")


def snippet_date(snippet: str) -> date | None:
    """The date a search snippet opens with (``"Jun 20, 2016 ... text"``), else ``None``."""
    found = _SNIPPET_DATE.match(snippet or "")
    return make_date(found["year"], found["month"], found["day"]) if found else None


def after_claim(page_date: date | None, when: date | None) -> bool:
    """True when a page is dated after ``when + 1 day`` (undated pages and undated claims: False)."""
    return page_date is not None and when is not None and page_date > when + timedelta(days=1)


@dataclass(frozen=True)
class Page:
    """A found document: ``text`` is the page text (a snippet for cached results), ``date`` may be None."""

    url: str
    title: str
    text: str
    date: date | None = None
    question: str = ""

    @property
    def document(self) -> str:
        """The text fine-grained retrieval sees: title, then text."""
        return f"{self.title}. {self.text}" if self.title else self.text


@dataclass(frozen=True)
class ClaimQuery:
    """What a search backend needs to know about a claim."""

    example_id: int | str
    claim: str
    venue: str = ""

    @property
    def date(self) -> date | None:
        return claim_date(self.venue)


@dataclass
class SearchOutcome:
    """The pages kept for one claim, the count dropped by each filter, and a note (e.g. no date)."""

    pages: list[Page]
    dropped: Counter = field(default_factory=Counter)
    message: str | None = None


def as_query(claim) -> ClaimQuery:
    """A :class:`ClaimQuery` from a ClaimDecomp record (or anything with ``example_id``, ``claim``, ``venue``)."""
    if isinstance(claim, ClaimQuery):
        return claim
    return ClaimQuery(getattr(claim, "example_id", ""), claim.claim, getattr(claim, "venue", ""))


def no_date_message(query: ClaimQuery) -> str:
    """The :attr:`SearchOutcome.message` of a claim whose date cannot be read from its venue."""
    return (f"claim {query.example_id}: no date could be read from the venue {query.venue!r} "
            "(expected 'stated on <Month> <day>, <year> ...'): the time filter was not applied")


def _start_outcome(claim) -> tuple[date | None, SearchOutcome]:
    """The claim's date and an empty outcome for it (its message says so when the date cannot be read)."""
    query = as_query(claim)
    when = query.date
    return when, SearchOutcome([], message=None if when is not None else no_date_message(query))


class SearchBackend(Protocol):
    """The interface of a search backend: ``search(claim, questions)`` -> a :class:`SearchOutcome`."""
    def search(self, claim, questions: Sequence[str]) -> SearchOutcome: ...


def apply_filters(candidates: Iterable[Page], when: date | None, outcome: SearchOutcome,
                  seen: set[str] | None = None) -> list[Page]:
    """Drop fact-check sites, pages after ``when + 1 day`` and repeated URLs, counting each reason."""
    seen = set() if seen is None else seen
    kept = []
    for page in candidates:
        if is_fact_check_url(page.url):
            outcome.dropped["fact-check site"] += 1
        elif after_claim(page.date, when):
            outcome.dropped["after the claim date"] += 1
        elif page.url in seen:
            outcome.dropped["repeated url"] += 1
        else:
            seen.add(page.url)
            kept.append(page)
    return kept


class ReplaySearch:
    """Replays cached results (``example_id -> [SearchResult]``), filtered as the paper filters."""

    def __init__(self, cache: Mapping[int, Sequence[SearchResult]]):
        self.cache = cache

    def search(self, claim, questions: Sequence[str] = ()) -> SearchOutcome:
        """The claim's cached results, filtered (``questions`` is unused: the results belong to the cached
        questions); raises KeyError for a claim not in the cache."""
        query = as_query(claim)
        if query.example_id not in self.cache:
            raise KeyError(f"claim {query.example_id} has no cached search results "
                           f"({len(self.cache)} claims in the cache)")
        when, outcome = _start_outcome(query)
        pages = (Page(r.url, r.title, r.snippet, snippet_date(r.snippet), r.question) for r in self.cache[query.example_id])
        outcome.pages = apply_filters(pages, when, outcome)
        return outcome


class LocalSearch:
    """BM25 over dated local pages (title + text), top ``k`` per question after the filters."""

    def __init__(self, pages: Sequence[Page], k: int = PAGES_PER_QUESTION, k1: float = 1.5, b: float = 0.75):
        if not pages:
            raise ValueError("LocalSearch needs at least one page")
        self.pages, self.k = list(pages), k
        self.index = BM25([tokenize(f"{p.title} {p.text}") for p in self.pages], k1=k1, b=b)

    def search(self, claim, questions: Sequence[str]) -> SearchOutcome:
        """Each question's ``k`` best BM25 pages that pass the filters, URLs de-duplicated over questions."""
        when, outcome = _start_outcome(claim)
        seen: set[str] = set()
        for question in questions:
            scores = self.index.get_scores(tokenize(question))
            order = sorted((i for i in range(len(self.pages)) if scores[i] > 0), key=lambda i: (-scores[i], i))
            per_question = SearchOutcome([])
            candidates = (Page(p.url, p.title, p.text, p.date, question) for p in (self.pages[i] for i in order))
            kept = []
            for page in candidates:   # filter first, then take k, as a search engine with filters would
                kept += apply_filters([page], when, per_question, seen)
                if len(kept) == self.k:
                    break
            outcome.pages += kept
            outcome.dropped.update(per_question.dropped)
        return outcome


class SearchError(RuntimeError):
    """A live-search request failed (HTTP status, timeout, or a reply without results)."""


class LiveSearch:
    """A web-search API client in Bing Web Search's request/response shape (see the module docstring).

    ``endpoint``/``key`` default to ``PROOFBOOK_SEARCH_URL``/``PROOFBOOK_SEARCH_KEY``.  The key goes in
    the ``Ocp-Apim-Subscription-Key`` header; the time window in Bing's ``freshness`` parameter, and the
    filters are applied again to the reply (``datePublished``) as the paper's are.
    """

    def __init__(self, endpoint: str | None = None, key: str | None = None, k: int = PAGES_PER_QUESTION,
                 timeout: float = 20.0):
        self.endpoint = endpoint or os.environ.get("PROOFBOOK_SEARCH_URL")
        self.key = key or os.environ.get("PROOFBOOK_SEARCH_KEY")
        if not self.endpoint or not self.key:
            raise SearchError("no live-search API configured: set PROOFBOOK_SEARCH_URL and PROOFBOOK_SEARCH_KEY")
        self.k, self.timeout = k, timeout

    def _request(self, question: str, when: date | None) -> dict:
        params = {"q": question, "count": str(self.k)}
        if when is not None:
            params["freshness"] = f"1990-01-01..{(when + timedelta(days=1)).isoformat()}"
        url = self.endpoint + ("&" if "?" in self.endpoint else "?") + urllib.parse.urlencode(params)
        request = urllib.request.Request(url, headers={"Ocp-Apim-Subscription-Key": self.key})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                body = reply.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            raise SearchError(f"{self.endpoint}: HTTP {err.code} for question {question!r}: "
                              f"{err.read()[:200].decode('utf-8', 'replace')!r}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as err:
            raise SearchError(f"{self.endpoint}: no reply for question {question!r} ({err})") from None
        try:
            return json.loads(body)
        except ValueError:
            raise SearchError(f"{self.endpoint}: the reply is not JSON: {body[:200]!r}") from None

    def search(self, claim, questions: Sequence[str]) -> SearchOutcome:
        """For each question, the API's pages up to the claim date + 1 day, filtered again; raises
        :class:`SearchError` for a failed request or a malformed reply."""
        when, outcome = _start_outcome(claim)
        seen: set[str] = set()
        for question in questions:
            reply = self._request(question, when)
            values = reply.get("webPages", {}).get("value") if isinstance(reply, dict) else None
            if values is None:
                values = []
            if not isinstance(values, list):
                raise SearchError(f"{self.endpoint}: 'webPages.value' is not a list for question {question!r}")
            pages = []
            for i, hit in enumerate(values):
                if not isinstance(hit, dict) or not isinstance(hit.get("url"), str):
                    raise SearchError(f"{self.endpoint}: result {i} for question {question!r} has no 'url'")
                published = _iso_date(hit.get("datePublished"))
                pages.append(Page(hit["url"], str(hit.get("name", "")), str(hit.get("snippet", "")), published, question))
            outcome.pages += apply_filters(pages, when, outcome, seen)
        return outcome


def _iso_date(value) -> date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None
