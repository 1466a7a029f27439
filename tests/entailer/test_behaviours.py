"""The behaviours: a local T5 Entailer folder in the official formats (tiny random T5 + offline tokenizer),
wrong checkpoint folders, and the scorers' training data."""
import math
import string
from types import SimpleNamespace

import pytest

from proofbook.models.loading import CheckpointError, minilm_path
from proofbook.entailer.training_data import (StatementGroups, drop_near_duplicates, entailment_examples,
                                              negate, perturb, premise_pairs, premise_pairs_with_context,
                                              truth_groups)
from proofbook.entailer.behaviours import EntailerCheckpoint, FactRetriever
from proofbook.entailer.search import SearchConfig, answer_question

pytestmark = pytest.mark.unit

WORDS = "$proof$ $valid$ $implied$ $hypothesis$ = ; [PREMISE] true false a leaf is green the sun star".split()


@pytest.fixture(scope="module")
def t5_folder(tmp_path_factory):
    """A tiny randomly initialised T5 with a Unigram tokenizer built offline, saved like a real checkpoint."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import T5Config, T5ForConditionalGeneration, T5TokenizerFast

    folder = tmp_path_factory.mktemp("entailer-tiny-t5")
    pieces = ["<pad>", "</s>", "<unk>", "\u2581"] + ["\u2581" + w for w in WORDS] + list(string.ascii_letters + "$;=[]")
    vocab = [(p, 0.0 if i < 3 else -i / 10) for i, p in enumerate(dict.fromkeys(pieces))]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=2))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    fast = T5TokenizerFast(tokenizer_object=tokenizer, eos_token="</s>", unk_token="<unk>", pad_token="<pad>",
                           extra_ids=0)
    torch.manual_seed(0)
    config = T5Config(vocab_size=len(vocab), d_model=16, d_ff=32, d_kv=8, num_layers=1, num_heads=2,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def test_checkpoint_scores_with_the_official_targets(t5_folder):
    model = EntailerCheckpoint(t5_folder)
    seen = []
    score = model.model.score

    def recording(inputs, targets, batch_size=16):
        seen.extend(zip(inputs, targets))
        return score(inputs, targets, batch_size)

    model.model.score = recording
    truth = model.truth_scores(["a leaf is green", "the sun is a star"])
    assert len(truth) == 2 and all(0 < s < 1 for s in truth)
    assert ("$valid$ ; $hypothesis$ = a leaf is green", "$valid$ = true") in seen
    assert ("$valid$ ; $hypothesis$ = a leaf is green", "$valid$ = false") in seen

    def p_true(source, slot):
        """P(true) from the two teacher-forced targets: mean log-probability x target length (EOS included)."""
        yes, no = f"${slot}$ = true", f"${slot}$ = false"
        a = score([source], [yes])[0] * len(model.model.encode_target(yes))
        b = score([source], [no])[0] * len(model.model.encode_target(no))
        return 1 / (1 + math.exp(b - a))

    assert truth == pytest.approx([p_true("$valid$ ; $hypothesis$ = a leaf is green", "valid"),
                                   p_true("$valid$ ; $hypothesis$ = the sun is a star", "valid")], abs=1e-5)
    [entail] = model.entailment_scores([(["a leaf is green"], "a leaf is a colour")])
    assert 0 < entail < 1
    assert ("$implied$ ; $hypothesis$ = a leaf is a colour ; $proof$ = [PREMISE] a leaf is green",
            "$implied$ = true") in seen
    assert entail == pytest.approx(p_true("$implied$ ; $hypothesis$ = a leaf is a colour ; $proof$ = [PREMISE] a leaf "
                                          "is green", "implied"), abs=1e-5)
    assert model.truth_scores([]) == [] and model.entailment_scores([]) == []


def test_checkpoint_generates_and_runs_the_search(t5_folder):
    model = EntailerCheckpoint(t5_folder, max_new_tokens=12)
    sets = model.generate_premises(["a leaf is green"], k=3, sample=True, seed=1)
    assert len(sets) == 1 and len(sets[0]) + model.malformed == 3  # a random model writes mostly junk
    result = answer_question("q", [("A", "green"), ("B", "red")], ["a leaf is green", "a leaf is red"], model,
                             SearchConfig.sampled(k=2))
    scores = {o.label: o.proof_score for o in result.options}
    assert result.entailer.label == max(scores, key=scores.get)     # ties: the first option, as max() does
    # the roots are scored by the checkpoint itself (s_d of each hypothesis)
    assert [o.direct for o in result.options] == pytest.approx(model.truth_scores(["a leaf is green", "a leaf is red"]),
                                                               abs=1e-5)
    for o in result.options:
        tree = o.tree
        if tree.proof_score is not None:
            assert o.proof_score == pytest.approx(math.prod(p.score for p in tree.premises) * tree.entailment)
        else:   # no well-formed candidate: the hypothesis is a leaf scored by s_d
            assert o.fallback and o.proof_score == o.direct


def test_wrong_checkpoint_folders(tmp_path):
    with pytest.raises(CheckpointError, match="must be a seq2seq model"):
        EntailerCheckpoint(minilm_path())
    with pytest.raises(CheckpointError, match="missing config.json"):
        EntailerCheckpoint(tmp_path)
    with pytest.raises(CheckpointError, match="model-hub id"):
        EntailerCheckpoint("allenai/entailer-large")


def _tree(context, steps):
    from proofbook.data.entailment_text import ProofStep
    return SimpleNamespace(context=context, steps=[ProofStep(tuple(p), c, t) for p, c, t in steps])


def test_truth_groups_have_one_true_member_and_named_sources():
    tree = _tree({"sent1": "a leaf is a kind of plant part", "sent2": "a magnet attracts iron objects",
                  "sent3": "green is a kind of colour"},
                 [(("sent1", "sent3"), "int1", "a leaf is a green plant part"),
                  (("int1", "sent2"), "hypothesis", "a magnet attracts a leaf")])
    questions = [("the sun is a star", ["the moon is a star", "the sun is a planet", "the sun is a star"]),
                 ("water is wet", [])]
    data = truth_groups([tree], questions, seed=0)
    assert all(sum(flag for _, flag in group) == 1 and len(group) >= 2 for group in data.groups)
    question = data.groups[data.sources.index("obqa question options")]
    assert sorted(question) == [("the moon is a star", False), ("the sun is a planet", False), ("the sun is a star", True)]
    counts = data.counts()
    assert counts["true: obqa question options"] == 1 and counts["false: obqa question options"] == 2
    assert sum(v for k, v in counts.items() if k.startswith("true: entailmentbank")) == len(data) - 1
    assert truth_groups([tree], questions, seed=0).groups == data.groups
    assert len(truth_groups([tree], questions, seed=0, max_questions=0, max_statements=1)) == 1
    held, kept = data.split(1)
    assert len(held) == 1 and len(kept) == len(data) - 1


def test_negate_and_perturb():
    import random
    assert negate("a leaf is green") == "a leaf is not green"
    assert negate("metals cannot melt") == "metals can melt"
    assert negate("dogs bark") is None
    changed = perturb("a leaf is a kind of plant part", ["magnets attract iron"], random.Random(0))
    assert changed != "a leaf is a kind of plant part" and len(changed.split()) == 8


def test_entailment_examples_mix_sources():
    from proofbook.data.entailmentbank import Entailment
    from proofbook.data.nli import NliPair
    steps = [Entailment(("p%d a" % i, "p%d b" % i), "c%d" % i) for i in range(20)]
    nli = [NliPair(str(i), "x", "y", label, "sick") for i, label in enumerate(["ENTAILMENT", "NEUTRAL"] * 5)]
    data = entailment_examples(steps, nli, seed=1)
    assert data.labels.count("true") == data.labels.count("false")
    assert {"entailmentbank step", "shuffled premises", "incomplete premises", "sick entailment"} <= set(data.sources)
    assert ("p3 a . p3 b", "c3") in data.pairs
    capped = entailment_examples(steps, nli, seed=1, max_examples=10)
    assert len(capped) <= 10


def test_near_duplicates():
    cleaned = drop_near_duplicates(["The sun is a star.", "a moon"], lambda s: [s], ["star a is the sun"])
    assert cleaned.examples == ["a moon"] and cleaned.removed == 1


def test_premise_pairs_use_the_official_format():
    from proofbook.data.entailmentbank import Entailment
    [(source, target)] = premise_pairs([Entailment(("p1", "p2"), "h")])
    assert source == "$proof$ ; $hypothesis$ = h" and target == "$proof$ = [PREMISE] p1 [PREMISE] p2"


def test_fact_retriever_and_context_pairs():
    from proofbook.data.entailmentbank import Entailment
    retriever = FactRetriever(["a leaf is a kind of plant part", "the sun is a kind of star", "a magnet attracts iron",
                                  "a star is a source of light", "the sun is a kind of star"])
    assert len(retriever.facts) == 4
    assert retriever.retrieve("the sun is a star", 1) == ["the sun is a kind of star"]
    assert "the sun is a kind of star" not in retriever.retrieve("the sun is a star", 2, exclude=["The sun is a kind of star"])
    assert retriever.retrieve("???", 3) == []
    [(source, target)] = premise_pairs_with_context([Entailment(("the sun is a kind of star", "a star is a source of light"),
                                                                   "the sun is a source of light")], retriever, 3)
    assert source.startswith("$proof$ ; $hypothesis$ = the sun is a source of light ; $context$ = sent1: ")
    assert source.count("sent") == 3 and "a star is a source of light" in source
    assert target == "$proof$ = [PREMISE] the sun is a kind of star [PREMISE] a star is a source of light"
    with pytest.raises(ValueError, match="no facts"):
        FactRetriever([" "])


def test_true_ranked_first_reads_the_scores_group_by_group():
    groups = StatementGroups([[("a", False), ("b", True)], [("c", True), ("d", False), ("e", False)]], ["x", "y"])
    assert groups.statements() == ["a", "b", "c", "d", "e"]
    assert groups.true_ranked_first([0.1, 0.9, 0.2, 0.5, 0.5]) == [True, False]
    assert groups.true_ranked_first([0.5, 0.5, 0.7, 0.1, 0.7]) == [False, True]   # of equal scores the first counts
    with pytest.raises(ValueError, match="4 scores for 5 statements"):
        groups.true_ranked_first([0.1] * 4)
