"""Claims in the wild on the real data: training-set cleaning, the replayed search, one claim end to end."""
import pytest

from proofbook.data.politifact_text import statement_key
from proofbook.wild import wild_experiments
from proofbook.wild.datasets import load_data
from proofbook.wild.pipeline import replay_pipeline
from proofbook.wild.search import ReplaySearch, is_fact_check_url

pytestmark = pytest.mark.data


@pytest.fixture(scope="module")
def data(real_data_dir):
    return load_data(real_data_dir)


def test_training_sets_hold_no_evaluation_claim(data):
    sets = wild_experiments.training_sets(data)
    evaluation = {statement_key(c.claim) for c in data.claimdecomp["test"] + data.claimdecomp["dev"]}
    evaluation |= {statement_key(s.statement) for s in data.liar["valid"]}
    assert sets["claim-only"].removed > 0
    assert not evaluation & {statement_key(e.statement) for e in sets["claim-only"].examples}
    test_keys = {statement_key(c.claim) for c in data.claimdecomp["test"]}
    assert not test_keys & {statement_key(e.statement) for e in sets["evidence"].examples}
    assert all(e.evidence for e in sets["evidence"].examples)
    # the matched claim-only set: the evidence set's very examples, with the evidence removed
    matched = sets["claim-only-matched"].examples
    assert [(e.claim_id, e.text, e.label) for e in matched] == [(e.claim_id, e.text, e.label) for e in sets["evidence"].examples]
    assert not any(e.evidence for e in matched)


def test_replay_drops_fact_check_sites_the_cache_holds(data):
    cached = [r for results in data.search_cache.values() for r in results]
    assert any(is_fact_check_url(r.url) for r in cached)   # the cache was never filtered
    search = ReplaySearch(data.search_cache)
    outcomes = [search.search(c) for c in data.claimdecomp["test"]]
    assert sum(o.dropped["fact-check site"] for o in outcomes) == sum(is_fact_check_url(r.url) for r in cached)
    assert not any(is_fact_check_url(p.url) for o in outcomes for p in o.pages)
    assert all(o.message is None for o in outcomes)   # every test claim has a readable date


def test_one_claim_through_the_pipeline_without_a_classifier(data):
    from proofbook.wild.summaries import ExtractiveSummariser

    class Words:   # a stand-in embedder: the pipeline's plumbing, not MiniLM, is under test here
        def encode(self, texts, progress=None):
            import numpy as np
            vectors = np.array([[len(t) % 7 + 1, len(t.split()) % 5 + 1] for t in texts], dtype=float)
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    pipeline = replay_pipeline(data, summariser=ExtractiveSummariser(Words(), threshold=0.0))
    trace = pipeline.run(data.claimdecomp["test"][0])
    assert trace.questions and 1 <= len(trace.documents) <= 5 and len(trace.summaries) == len(trace.documents)
    assert len(trace.retrieval.kept) <= 10 and trace.web_snippets
