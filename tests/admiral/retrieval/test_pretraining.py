"""Copy pre-training examples for the title generators: mentions of titles in corpus sentences."""
import pytest

from proofbook.core.corpus import Corpus
from proofbook.admiral.retrieval.pretraining import copy_examples, own_title_examples, surface_form, title_mentions

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
    # one example per mention, in corpus order; the claim is the page's first other sentence; "Seine" has one
    # sentence only, so its mention of France gives none
    assert [(e.sentences[e.pointers[0]].id, e.title, e.valid_titles, e.claim) for e in examples] == [
        (("Life Goes On (Fergie song)", 0), "Fergie (singer)", ("Fergie (singer)",),
         "It follows M.I.L.F. $ on Double Dutchess."),
        (("Fergie (singer)", 1), "Life Goes On (Fergie song)", ("Life Goes On (Fergie song)",),
         "Fergie is an American singer."),
        (("Paris", 0), "France", ("France",), "It lies on the Seine."),
        (("Paris", 1), "Seine", ("Seine",), "Paris is the capital of France."),
        (("Lyon", 0), "France", ("France",), "A parisian lives in Paris."),
        (("Lyon", 1), "Paris", ("Paris",), "Lyon is a city in France."),
    ]
    assert all(len(e.sentences) == 3 and len(set(s.id for s in e.sentences)) == 3 for e in examples)  # 2 negatives
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


def regex_mentions(corpus):
    """The reference matcher: one regular expression with an alternative per surface form, longest first."""
    import re
    from collections import defaultdict

    from proofbook.admiral.retrieval.pretraining import MIN_SURFACE_CHARS

    by_surface = defaultdict(list)
    for title in corpus.titles:
        if len(surface_form(title)) >= MIN_SURFACE_CHARS:
            by_surface[surface_form(title)].append(title)
    longest_first = sorted(by_surface, key=lambda s: (-len(s), s))
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(s) for s in longest_first) + r")(?!\w)")
    mentions = {}
    for sentence in corpus.sentences():
        found = dict.fromkeys(t for m in pattern.finditer(sentence.text) for t in by_surface[m.group(0)]
                              if t != sentence.title)
        if found:
            mentions[sentence.id] = tuple(found)
    return mentions


@pytest.mark.unit
def test_the_automaton_finds_what_the_regular_expression_finds_on_tricky_text():
    from proofbook.admiral.retrieval.pretraining import find_surfaces, surface_automaton

    automaton = surface_automaton(["New York", "New York City", "York", "City of York", "Ab_c", "Élan"])
    text = "New York City of York, New Yorker, NewYork, Ab_cd, Ab_c. Élan_ Élan! New York"
    assert find_surfaces(automaton, text) == ["New York City", "York", "Ab_c", "Élan", "New York"]
    toy = Corpus("toy")
    toy.add("New York City", ["The New York City of York is a New Yorker's joke about York."])
    toy.add("City of York", ["New York, York and the City of York."])
    toy.add("York", ["Ab_c and Élan"])
    toy.add("New York", ["Élan New York City"])
    assert title_mentions(toy) == regex_mentions(toy)


@pytest.mark.data
@pytest.mark.parametrize("dataset", ["hover", "feverous_s", "feverous_s+distractors"])
def test_the_automaton_finds_what_the_regular_expression_finds_on_the_real_corpora(dataset, real_data_dir):
    from proofbook.admiral.retrieval.tasks import load_task

    corpus = load_task(dataset, real_data_dir).corpus
    assert title_mentions(corpus) == regex_mentions(corpus)
