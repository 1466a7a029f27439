"""Copy pre-training examples for the title generators: mentions of titles in corpus sentences."""
import pytest

from proofbook.corpus import Corpus
from proofbook.retrieval.pretraining import copy_examples, own_title_examples, surface_form, title_mentions

PAGES = {
    "Life Goes On (Fergie song)": ["Life Goes On is a song by Fergie.", "It follows M.I.L.F. $ on Double Dutchess."],
    "Fergie (singer)": ["Fergie is an American singer.", "She released Life Goes On in 2016."],
    "Paris": ["Paris is the capital of France.", "It lies on the Seine."],
    "Seine": ["The Seine is a river in France."],
    "France": ["France is a country."],
    "Lyon": ["Lyon is a city in France.", "A parisian lives in Paris."],
}


@pytest.fixture(scope="module")
def corpus():
    toy = Corpus("toy")
    for title, sentences in PAGES.items():
        toy.add(title, sentences)
    return toy


@pytest.mark.unit
def test_surface_form_drops_a_trailing_parenthesis():
    assert surface_form("Life Goes On (Fergie song)") == "Life Goes On"
    assert surface_form("Paris") == "Paris"
    assert surface_form("M.I.L.F. $") == "M.I.L.F. $"


@pytest.mark.unit
def test_mentions_are_case_sensitive_whole_words_and_never_the_own_page(corpus):
    mentions = title_mentions(corpus)
    assert mentions[("Fergie (singer)", 1)] == ("Life Goes On (Fergie song)",)
    assert mentions[("Life Goes On (Fergie song)", 0)] == ("Fergie (singer)",)
    assert mentions[("Paris", 0)] == ("France",)
    assert mentions[("Paris", 1)] == ("Seine",)
    assert mentions[("Lyon", 1)] == ("Paris",)     # "parisian" is not a mention of Paris
    assert ("France", 0) not in mentions           # its own title only
    assert ("Seine", 0) in mentions and mentions[("Seine", 0)] == ("France",)


@pytest.mark.unit
def test_hop0_copy_examples_map_text_to_the_mentioned_or_own_title(corpus):
    examples = copy_examples(corpus, 0)
    pairs = {(e.claim, e.title) for e in examples}
    assert ("She released Life Goes On in 2016.", "Life Goes On (Fergie song)") in pairs
    assert ("Paris is the capital of France.", "Paris") in pairs      # own title
    assert all(e.sentences == () and e.pointers == () for e in examples)
    assert {e.title for e in own_title_examples(corpus)} == set(PAGES)


@pytest.mark.unit
def test_hop1_copy_examples_point_at_the_mentioning_sentence(corpus):
    examples = copy_examples(corpus, 1, max_sentences=3, seed=0)
    assert examples == copy_examples(corpus, 1, max_sentences=3, seed=0)   # deterministic
    for e in examples:
        (pointer,) = e.pointers
        mentioning = e.sentences[pointer]
        assert surface_form(e.title) in mentioning.text
        assert e.claim != mentioning.text and e.claim in PAGES[mentioning.title]   # pseudo-claim: same page
        assert all(s.title not in e.valid_titles for s in e.sentences)
        assert len(e.sentences) <= 3
    # the one-sentence page "Seine" has no other sentence to play the claim
    assert not any(e.sentences[e.pointers[0]].title == "Seine" for e in examples)
    with pytest.raises(ValueError, match="hop must be"):
        copy_examples(corpus, -1)
