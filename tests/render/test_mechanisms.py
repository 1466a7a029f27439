"""The mechanism pictures draw what the library computes: the automaton's real transitions and a proof's path,
the titles' real token tree, a trace's real pages, a tree's real scores."""
from types import SimpleNamespace as NS

import matplotlib
import pytest

matplotlib.use("Agg")

from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402

from proofbook.admiral.prover import natlog  # noqa: E402
from proofbook.entailer.trees import ProofNode  # noqa: E402
from proofbook.render import mechanisms as m  # noqa: E402

pytestmark = pytest.mark.unit


def texts(fig, colour=None):
    found = [t for ax in fig.axes for t in ax.texts]
    if colour is not None:
        found = [t for t in found if to_hex(t.get_color()) == colour]
    return [t.get_text() for t in found]


def test_a_path_that_does_not_match_the_operators_is_refused():
    with pytest.raises(ValueError, match="a path of 2 operators visits 3 states, got 2"):
        m.automaton_figure(natlog.TRANSITIONS, ["=", "!"], ["SUPPORTS", "SUPPORTS"])


def test_the_automaton_draws_every_transition_once_and_colours_exactly_the_proofs_path():
    operators = ["=", "!", ">"]
    path = natlog.automaton_path(operators)
    fig = m.automaton_figure(natlog.TRANSITIONS, operators, path, words=natlog.OPERATOR_WORDS)
    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    pairs = {(src, dst) for src, row in natlog.TRANSITIONS.items() for dst in row.values()}
    assert len(arrows) == len(pairs)
    followed = {(a, b) for a, b in zip(path, path[1:])}
    assert sum(to_hex(a.get_edgecolor()) == m.GOLD for a in arrows) == len(followed) == 3
    gold_labels = texts(fig, m.GOLD)
    assert {"1:=", "2:!", "3:>"} <= {part.strip("[],") for label in gold_labels for part in label.split()}
    assert "REFUTES" in fig.axes[0].get_title()
    matplotlib.pyplot.close(fig)


def tokens(title):
    return title.lower().split()


def test_the_token_tree_merges_single_child_runs_and_keeps_every_title_once():
    titles = ["New York City", "New York Times", "New Zealand", "Paris", "New York"]
    tree = m.token_tree(titles, tokens)
    assert sorted(child["label"] for child in tree["children"]) == ["new", "paris"]
    new = next(c for c in tree["children"] if c["label"] == "new")
    york = next(c for c in new["children"] if c["label"] == "york")
    assert york["title"] == "New York"                      # a title that is a prefix of others ends inside
    assert sorted(c["label"] for c in york["children"]) == ["city", "times"]
    assert next(c for c in new["children"] if c["label"] == "zealand")["title"] == "New Zealand"

    def ends(node):
        return ([node["title"]] if node["title"] else []) + [t for c in node["children"] for t in ends(c)]
    assert sorted(ends(tree)) == sorted(titles)
    single = m.token_tree(["United States Army"], tokens)     # one title: one merged box
    assert single["label"] == "united states army" and single["title"] == "United States Army"


def test_the_prefix_tree_picture_highlights_only_the_chosen_titles_path():
    titles = ["New York City", "New York Times", "New Zealand", "Paris"]
    fig = m.prefix_tree_figure(titles, tokens, highlight="New York Times", allowed_first=1234)
    assert sorted(texts(fig, m.GOLD)) == sorted(["start\n(1234 first tokens allowed)", "new", "york", "times"])
    assert {"city", "zealand", "paris"} <= set(texts(fig))
    matplotlib.pyplot.close(fig)


def test_the_loop_picture_shows_the_traces_pages_and_marks_exactly_the_gold_ones():
    sentence = NS(title="Alaska", index=0, text="Alaska is a state.")
    trace = NS(claim="The governor of Alaska was born in Idaho.", genre=[NS(title="Sarah Palin"), NS(title="Idaho")],
               bm25=[("Alaska", 2.0), ("Juneau", 1.0)], initial_selected=[(sentence, 0.9)],
               hops=[NS(iteration=2, new_documents=["Sandpoint, Idaho", "Sarah Palin"])],
               ranking=lambda: ["Alaska", "Sarah Palin", "Juneau"])
    fig = m.loop_figure(trace, ["Sarah Palin", "Sandpoint, Idaho"])
    gold = texts(fig, m.GOLD)
    assert gold and all("Sarah Palin" in t or "Sandpoint, Idaho" in t for t in gold)
    assert "2. ✓ Sarah Palin" in gold and "3. Juneau" in texts(fig)
    assert any("iteration 2" in t for t in texts(fig))
    matplotlib.pyplot.close(fig)


def _wild_trace(probabilities):
    from collections import Counter
    claim = NS(person="Jane Doe", venue="in a speech", claim="Taxes doubled last year.")
    retrieval = NS(windows=[1, 2, 3, 4], kept=[1, 2], merged=[1], documents=[1, 0])
    return NS(claim=claim, questions=["Did taxes double?", "Was it last year?", "Is it true?"],
              search=NS(pages=[1, 2], dropped=Counter({"fact-check site": 2, "after the claim date": 1})),
              retrieval=retrieval, documents=[NS(title="Budget 2020"), NS(title="Tax news")],
              summaries=["Taxes rose 3%.", "IRRELEVANT"], probabilities=probabilities)


@pytest.mark.parametrize("predicted, gold", [(1, True), (4, False)])
def test_the_pipeline_picture_counts_each_stage_and_marks_a_right_label(predicted, gold):
    labels = ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")
    probabilities = [0.05] * 6
    probabilities[predicted] = 0.75
    fig = m.pipeline_figure(_wild_trace({"web-summaries": probabilities}), labels, "false", "IRRELEVANT")
    shown = texts(fig)
    assert "3 yes/no questions, e.g." in shown and "Did taxes double?" in shown and "Is it true?" not in shown
    assert "dropped: after the claim date 1, fact-check site 2" in shown
    assert "4 windows -> 2 kept -> 1 spans -> 2 documents:" in shown and "Tax news" in shown
    assert "1 of 2 documents relevant" in shown and "IRRELEVANT" not in shown
    right = f"✓ predicted false (probability 0.75)"
    assert (right in texts(fig, m.GOLD)) is gold
    assert gold or f"predicted {labels[predicted]} (probability 0.75)" in shown
    assert "PolitiFact's label: false" in shown
    matplotlib.pyplot.close(fig)


def test_the_pipeline_picture_says_when_no_classifier_ran():
    fig = m.pipeline_figure(_wild_trace({}), ("false", "true"), None, "IRRELEVANT")
    assert "(no classifier)" in texts(fig) and not any("PolitiFact" in t for t in texts(fig))
    matplotlib.pyplot.close(fig)


def test_the_tree_picture_has_a_box_per_node_and_an_entailment_score_per_proof():
    leaf = ProofNode("photosynthesis requires sunlight", 0.92)
    inner = ProofNode("plants make food", 0.9, premises=[ProofNode("a", 0.5), ProofNode("b", 0.6)], entailment=0.8)
    root = ProofNode("a plant needs sunlight", 0.4, premises=[inner, leaf], entailment=0.88)
    fig = m.tree_figure(root)
    drawn = texts(fig)
    assert sum("s_d" in t for t in drawn) == 5
    assert sorted(t for t in drawn if t.startswith("s_e")) == ["s_e 0.80", "s_e 0.88"]
    assert any(t.endswith(f"s_d 0.40   s_r {root.proof_score:.2f}") for t in drawn)
    matplotlib.pyplot.close(fig)
