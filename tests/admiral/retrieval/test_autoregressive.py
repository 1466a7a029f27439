"""AdMIRaL's autoregressive retriever: formats, training examples, constrained generation, persistence."""
import itertools

import pytest
import torch

from proofbook.core.corpus import Corpus
from proofbook.core.cache import ArtifactCache
from proofbook.core.codecs import object_codec
from proofbook.core.training import TrainConfig
from proofbook.admiral.retrieval.autoregressive import (AutoregressiveRetriever, format_input, format_target,
                                                        make_examples)
from proofbook.admiral.retrieval.tasks import RetrievalClaim, load_task

PAGES = {
    "Life Goes On (Fergie song)": ["Life Goes On is a song by Fergie.", "It follows M.I.L.F. $."],
    "M.I.L.F. $": ["M.I.L.F. $ is a song recorded by Fergie.", "It was produced by Polow da Don."],
    "Polow da Don": ["Polow da Don is an American record producer."],
    "Fergie (singer)": ["Fergie is an American singer."],
    "Paris": ["Paris is the capital of France.", "It is on the Seine."],
    "Lyon": ["Lyon is a city in France."],
    "Seine": ["The Seine is a river in France."],
    "Eiffel Tower": ["The Eiffel Tower is in Paris."],
}


@pytest.fixture(scope="module")
def corpus():
    toy = Corpus("toy")
    for title, sentences in PAGES.items():
        toy.add(title, sentences)
    return toy


@pytest.fixture(scope="module")
def claims():
    return [
        RetrievalClaim("c1", "The song by Fergie produced by Polow da Don was followed by Life Goes On.",
                       ("Life Goes On (Fergie song)", "M.I.L.F. $", "Polow da Don"),
                       (("Life Goes On (Fergie song)", 1), ("M.I.L.F. $", 1), ("Polow da Don", 0)), 3, "SUPPORTED"),
        RetrievalClaim("c2", "The capital of France lies on the Seine.", ("Paris", "Seine"),
                       (("Paris", 0), ("Paris", 1), ("Seine", 0)), 2, "SUPPORTED"),
    ]


@pytest.fixture(scope="module")
def tiny(corpus):
    """A randomly initialised BART (d_model 32, 1 layer) with the MiniLM tokenizer, at hop 1."""
    return AutoregressiveRetriever.from_scratch(corpus.titles, hop=1, d_model=32, layers=1, heads=2, ffn_dim=64,
                                                dropout=0.0, seed=0, max_input_length=128, device="cpu")


def _sentences(corpus, *ids):
    return [corpus.sentence(i) for i in ids]


# ---------------------------------------------------------------- formats


@pytest.mark.unit
def test_input_and_target_formats_are_the_papers(corpus):
    sentences = _sentences(corpus, ("Paris", 0), ("Seine", 0))
    assert format_input("Paris is on the Seine.", sentences) == (
        "Paris is on the Seine. </s> < E0 > [ Paris ] Paris is the capital of France. "
        "< E1 > [ Seine ] The Seine is a river in France.")
    assert format_input("  Paris  is on the Seine. ") == "Paris is on the Seine."
    assert format_input("x", [("T", "s")], separator="[SEP]") == "x [SEP] < E0 > [ T ] s"
    assert format_target("Eiffel Tower", [1]) == "< E1 > [ Eiffel Tower ]"
    assert format_target("Eiffel Tower", [0, 2]) == "< E0 > < E2 > [ Eiffel Tower ]"
    assert format_target("Eiffel Tower") == "[ Eiffel Tower ]"


@pytest.mark.unit
def test_the_minilm_retriever_uses_sep_for_the_separator_and_encodes_exactly(tiny, corpus):
    sentences = _sentences(corpus, ("Paris", 0), ("Seine", 0))
    text = tiny.format_input("Paris is on the Seine.", sentences)
    assert text.startswith("Paris is on the Seine. [SEP] < E0 > [ Paris ]")
    ids, kept = tiny.encode_input("Paris is on the Seine.", sentences)
    assert kept == 2
    assert ids == tiny.tokenizer(text)["input_ids"]
    assert ids.count(tiny.tokenizer.sep_token_id) == 2  # the separator and the final [SEP]
    target = tiny.encode_target("Eiffel Tower", [1])
    assert tiny.tokenizer.convert_ids_to_tokens(target) == ["<", "e", "##1", ">", "[", "e", "##iff", "##el", "tower", "]", "[SEP]"]
    assert tiny.format_target("Eiffel Tower", [1]) == "< E1 > [ Eiffel Tower ]"


@pytest.mark.unit
def test_truncation_cuts_sentence_texts_never_the_claim(tiny):
    claim = "Fergie recorded a song produced by Polow da Don."
    long_text = " ".join(["word"] * 300)
    sentences = [("Short", "A short sentence."), ("Long One", long_text), ("Long Two", long_text)]
    ids, kept = tiny.encode_input(claim, sentences)
    assert len(ids) == tiny.max_input_length == 128 and kept == 3
    tokens = tiny.tokenizer.convert_ids_to_tokens(ids)
    claim_tokens = tiny.tokenizer.tokenize(claim)
    assert tokens[1:1 + len(claim_tokens)] == claim_tokens  # the claim is whole
    text = tiny.tokenizer.decode(ids)
    assert "a short sentence." in text  # short texts stay whole, long ones share the rest
    assert text.count("word") > 40 and abs(text.split("long two")[0].count("word") - text.split("long two")[1].count("word")) <= 1
    for pointer in ("< e0 > [ short ]", "< e1 > [ long one ]", "< e2 > [ long two ]"):
        assert pointer in text


@pytest.mark.unit
def test_a_claim_too_long_alone_is_cut_and_the_sentences_dropped(tiny):
    claim = " ".join(["claim"] * 400)
    ids, kept = tiny.encode_input(claim, [("Paris", "Paris is in France.")])
    assert len(ids) == 128 and kept == 0 and ids[-1] == tiny.tokenizer.sep_token_id
    many = [(f"Title number {i}", "text") for i in range(4)]
    ids, kept = tiny.encode_input(" ".join(["claim"] * 100), many)
    assert 0 < kept < 4 and len(ids) <= 128  # pointers and titles that do not fit are dropped from the end
    beams = tiny.generate(" ".join(["claim"] * 100), many, beam=3)
    assert all(set(b.pointers) <= set(range(kept)) for b in beams)


@pytest.mark.unit
def test_more_than_max_sentences_keeps_the_first_four(tiny):
    sentences = [(f"T{i}", "text") for i in range(6)]
    assert "< E4 >" not in tiny.format_input("claim", sentences)
    assert tiny.encode_input("claim", sentences)[1] == 4


@pytest.mark.unit
@pytest.mark.parametrize("claim", ["", "   ", None])
def test_an_empty_claim_is_a_value_error_everywhere(tiny, corpus, claim):
    with pytest.raises(ValueError, match="claim is empty"):
        format_input(claim, [])
    with pytest.raises(ValueError, match="query 1: the claim is empty"):
        tiny.generate_batch([("a claim", [("Paris", "x")]), (claim, [("Paris", "x")])])
    bad = RetrievalClaim("bad", claim, ("Paris",), (("Paris", 0),), 1, "SUPPORTED")
    with pytest.raises(ValueError, match="claim is empty"):
        make_examples([bad], corpus, hop=0)


@pytest.mark.unit
def test_bad_generation_arguments_are_value_errors(tiny):
    with pytest.raises(ValueError, match="needs at least one input sentence"):
        tiny.generate("a claim", [])
    with pytest.raises(ValueError, match="beam must be >= 1"):
        tiny.generate("a claim", [("Paris", "x")], beam=0)
    with pytest.raises(ValueError, match="num_return must be >= 1"):
        tiny.generate("a claim", [("Paris", "x")], num_return=0)


# ---------------------------------------------------------------- training examples


@pytest.mark.unit
def test_hop0_examples_are_the_claim_alone_once_per_gold_title(claims, corpus):
    examples = make_examples(claims, corpus, hop=0)
    assert [(e.claim, e.title) for e in examples] == [(claims[0].claim, t) for t in claims[0].gold_titles] + [
        (claims[1].claim, "Paris"), (claims[1].claim, "Seine")]
    assert all(e.sentences == () and e.pointers == () for e in examples)
    assert examples[0].valid_titles == claims[0].gold_titles


@pytest.mark.unit
def test_hop1_examples_cover_every_ordering(claims, corpus):
    examples = make_examples(claims, corpus, hop=1, max_orderings=None, seed=3)
    first = [e for e in examples if e.claim == claims[0].claim]
    gold = set(claims[0].gold_titles)
    assert len(first) == 6  # 3 gold pages, each can be the previous one for each of the other 2
    assert {(e.sentences[e.pointers[0]].title, e.title) for e in first} == set(itertools.permutations(gold, 2))
    for example in examples:
        assert len(example.sentences) == 4 and len(example.pointers) == 1
        conditioned = example.sentences[example.pointers[0]]
        assert conditioned.id in (claims[0].gold_sentences + claims[1].gold_sentences)
        negatives = [s for i, s in enumerate(example.sentences) if i != example.pointers[0]]
        claim = claims[0] if example.claim == claims[0].claim else claims[1]
        assert all(s.title not in claim.gold_titles for s in negatives)  # negatives come from other pages
        assert example.title not in {conditioned.title} and example.title in example.valid_titles
        assert conditioned.title not in example.valid_titles
    second = [e for e in examples if e.claim == claims[1].claim]
    assert {e.title for e in second} == {"Paris", "Seine"}


@pytest.mark.unit
def test_examples_are_seeded_and_capped(claims, corpus):
    a = make_examples(claims, corpus, hop=1, seed=1)
    assert a == make_examples(claims, corpus, hop=1, seed=1)
    assert a != make_examples(claims, corpus, hop=1, seed=2)
    assert a[:0] == [] and make_examples(claims[:1], corpus, hop=1, seed=1) == [e for e in a if e.claim == claims[0].claim]
    capped = make_examples(claims, corpus, hop=1, max_orderings=2, seed=1)
    assert len(capped) == 4
    positions = {e.pointers[0] for e in make_examples(claims * 5, corpus, hop=1, seed=1)}
    assert len(positions) > 1  # the gold sentence is shuffled among the negatives


@pytest.mark.unit
def test_given_order_hop2_and_pointer_rules(claims, corpus):
    given = make_examples(claims, corpus, hop=1, orderings="given")
    assert [(e.sentences[e.pointers[0]].title, e.title) for e in given] == [
        ("Life Goes On (Fergie song)", "M.I.L.F. $"), ("Paris", "Seine")]
    hop2 = make_examples(claims, corpus, hop=2, max_orderings=None)
    assert len(hop2) == 6 and all(e.claim == claims[0].claim for e in hop2)  # claim 2 has only 2 pages
    for e in hop2:
        assert len(e.pointers) == 1 and len(e.valid_titles) == 1 and e.title == e.valid_titles[0]
    both = make_examples(claims, corpus, hop=2, pointer_rule="all")
    assert all(len(e.pointers) == 2 for e in both)
    for e in both:
        assert e.title not in {e.sentences[p].title for p in e.pointers}


@pytest.mark.unit
def test_a_gold_title_missing_from_the_corpus_is_a_value_error(corpus):
    claim = RetrievalClaim("x", "A claim.", ("Paris", "Atlantis"), (("Paris", 0),), 2, "SUPPORTED")
    with pytest.raises(ValueError, match=r"claim x: gold title\(s\) \['Atlantis'\] are not in corpus 'toy'"):
        make_examples([claim], corpus, hop=1)
    with pytest.raises(ValueError, match="orderings"):
        make_examples([], corpus, hop=1, orderings="random")


# ---------------------------------------------------------------- generation end to end


def _check_beams(beams, corpus, n_sentences):
    titles = [b.title for b in beams]
    assert titles and len(titles) == len(set(titles))
    assert all(t in corpus for t in titles)
    assert all(b.pointers and set(b.pointers) <= set(range(n_sentences)) for b in beams)
    assert [b.score for b in beams] == sorted((b.score for b in beams), reverse=True)


@pytest.mark.unit
def test_a_tiny_random_model_only_generates_corpus_titles_and_present_pointers(tiny, claims, corpus):
    examples = make_examples(claims, corpus, hop=1, max_orderings=None)
    result = tiny.fit(examples, TrainConfig(epochs=1, batch_size=4, lr=1e-3, progress=False), dev_examples=examples[:4])
    assert result.steps == 2 and result.best_metric is not None
    for example in examples[:4]:
        for n in (1, 2, 4):
            beams = tiny.generate(example.claim, example.sentences[:n], beam=6)
            _check_beams(beams, corpus, n)
    queries = [(e.claim, e.sentences[:2]) for e in examples[:5]]
    batched = tiny.generate_batch(queries, beam=4, batch_size=2)
    single = [tiny.generate(c, s, beam=4) for c, s in queries]
    assert [[b.title for b in bs] for bs in batched] == [[b.title for b in bs] for bs in single]
    for (beams_b, beams_s) in zip(batched, single):
        assert [b.score for b in beams_b] == pytest.approx([b.score for b in beams_s], abs=1e-4)
    greedy = tiny.generate(*queries[0], beam=1)
    _check_beams(greedy, corpus, 2)
    assert len(greedy) == 1 and greedy[0].score < 0
    kept = tiny.generate(*queries[0], beam=6, exclude=[greedy[0].title])
    assert greedy[0].title not in {b.title for b in kept}
    narrowed = tiny.generate_batch(queries[:3], beam=6, candidates=[["Seine", "Lyon"], ["Paris"], ["Not a page"]])
    assert {b.title for b in narrowed[0]} <= {"Seine", "Lyon"} and narrowed[0]
    assert [b.title for b in narrowed[1]] == ["Paris"] and narrowed[2] == []
    with pytest.raises(ValueError, match="3 queries but 1 candidate lists"):
        tiny.generate_batch(queries[:3], beam=2, candidates=[["Paris"]])


@pytest.mark.unit
def test_a_tiny_model_learns_to_point_and_to_name_the_next_page(corpus):
    """Overfitting a handful of examples: greedy decoding then reproduces pointer and title."""
    claims = [RetrievalClaim(f"c{i}", f"Claim about {a} and {b}.", (a, b), ((a, 0), (b, 0)), 2, "SUPPORTED")
              for i, (a, b) in enumerate([("Paris", "Seine"), ("Lyon", "Eiffel Tower"), ("Polow da Don", "Fergie (singer)")])]
    examples = make_examples(claims, corpus, hop=1, orderings="given", negatives=1, max_sentences=2)
    model = AutoregressiveRetriever.from_scratch(corpus.titles, hop=1, d_model=64, layers=1, heads=2, dropout=0.0,
                                                 seed=0, max_input_length=64, max_sentences=2, device="cpu")
    model.fit(examples * 4, TrainConfig(epochs=40, batch_size=8, lr=5e-3, warmup_ratio=0.0, progress=False))
    for example in examples:
        best = model.generate(example.claim, example.sentences, beam=3)[0]
        assert (best.pointers, best.title) == (example.pointers, example.title)
    assert model.title_accuracy(examples) == 1.0


@pytest.mark.unit
def test_hop0_generates_titles_without_pointers(corpus, claims):
    model = AutoregressiveRetriever.from_scratch(corpus.titles, hop=0, d_model=32, layers=1, heads=2, seed=0,
                                                 max_input_length=64, device="cpu")
    beams = model.generate(claims[1].claim, beam=5)
    assert beams and all(b.pointers == () and b.title in corpus for b in beams)
    assert model.encode_target("Paris") == model.encode_target("Paris", [1])  # pointers are ignored at hop 0
    model.use_titles(["Lyon", "Seine"])  # another title set, the same model
    assert {b.title for b in model.generate(claims[1].claim, beam=5)} == {"Lyon", "Seine"}
    no_pointers = AutoregressiveRetriever(model.model, model.tokenizer, corpus.titles, hop=1, use_pointers=False)
    assert all(b.pointers == () for b in no_pointers.generate(claims[1].claim, [("Paris", "x")], beam=3))


@pytest.mark.unit
def test_save_load_round_trip_and_the_artifact_cache(tiny, corpus, tmp_path):
    query = ("Fergie recorded a song.", _sentences(corpus, ("M.I.L.F. $", 0), ("Paris", 0)))
    before = tiny.generate(*query, beam=5)
    tiny.save(tmp_path / "retriever")
    loaded = AutoregressiveRetriever.load(tmp_path / "retriever", device="cpu")
    assert (loaded.hop, loaded.max_input_length, loaded.backend) == (1, 128, "scratch")
    assert loaded.generate(*query, beam=5) == before
    cache = ArtifactCache(tmp_path / "cache")
    built = cache.get_or_build("ar-retriever", {"test": 1}, lambda: tiny, *object_codec(AutoregressiveRetriever))
    again = cache.get_or_build("ar-retriever", {"test": 1}, lambda: 1 / 0, *object_codec(AutoregressiveRetriever))
    assert built is tiny and cache.stats["hits"] == 1
    assert [b.title for b in again.generate(*query, beam=5)] == [b.title for b in before]
    with pytest.raises(FileNotFoundError, match="not a folder written by AutoregressiveRetriever.save"):
        AutoregressiveRetriever.load(_hf_only(tiny, tmp_path / "bare"))


def _hf_only(retriever, folder):
    retriever.model.save_pretrained(folder)
    retriever.tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.unit
def test_a_local_checkpoint_folder_is_accepted(tiny, corpus, tmp_path):
    folder = _hf_only(tiny, tmp_path / "bart")
    model = AutoregressiveRetriever.from_checkpoint(folder, corpus.titles, hop=1, max_input_length=128, device="cpu")
    assert model.backend == "checkpoint" and model.eos_token_id == tiny.tokenizer.sep_token_id
    query = ("Fergie recorded a song.", [("Paris", "Paris is in France.")])
    assert [b.title for b in model.generate(*query, beam=4)] == [b.title for b in tiny.generate(*query, beam=4)]


def _tiny_bpe_bart(folder):
    """A BART/GENRE-shaped checkpoint: byte-level BPE, decoding starts with </s>, no_repeat_ngram_size 3."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bpe.train_from_iterator([" ".join(PAGES) + " < E0 > [ Paris ] " + " ".join(map(" ".join, PAGES.values()))] * 3,
                            trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bpe.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                        cls_token="<s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>")
    torch.manual_seed(0)
    model = BartForConditionalGeneration(BartConfig(
        vocab_size=len(tokenizer), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=128, pad_token_id=1,
        bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2, no_repeat_ngram_size=3))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.unit
def test_a_byte_level_bpe_checkpoint_like_genre_works(corpus, claims, tmp_path):
    model = AutoregressiveRetriever.from_checkpoint(_tiny_bpe_bart(tmp_path / "genre"), corpus.titles, hop=1,
                                                    device="cpu")
    assert model.separator == "</s>" and model.model.generation_config.decoder_start_token_id == 2
    sentences = _sentences(corpus, ("Paris", 0), ("Seine", 0))
    ids, kept = model.encode_input(claims[1].claim, sentences)
    assert kept == 2 and ids == model.tokenizer(model.format_input(claims[1].claim, sentences))["input_ids"]
    assert model.tokenizer.convert_ids_to_tokens(model.encode_target("Paris", [1]))[:5] == ["Ġ<", "ĠE", "1", "Ġ>", "Ġ["]
    examples = make_examples(claims, corpus, hop=1)
    model.fit(examples, TrainConfig(epochs=1, batch_size=4, lr=1e-3, progress=False))
    for example in examples[:3]:
        _check_beams(model.generate(example.claim, example.sentences, beam=5), corpus, len(example.sentences))


# ---------------------------------------------------------------- real data


@pytest.mark.data
def test_examples_and_constrained_generation_on_real_hover(real_data_dir):
    task = load_task("hover", real_data_dir)
    examples = make_examples(task.train[:200], task.corpus, hop=1, seed=0)
    assert len(examples) > 400
    for example in examples:
        assert example.title in task.corpus and example.title in example.valid_titles
        assert all(s.title in task.corpus for s in example.sentences)
        assert all(0 <= p < len(example.sentences) for p in example.pointers)
    model = AutoregressiveRetriever.from_scratch(task.corpus.titles, hop=1, d_model=32, layers=1, heads=2, seed=0,
                                                 device="cpu")
    assert len(model.title_trie) + len(model.title_trie.collisions) == len(task.corpus)
    evaluation = make_examples(task.evaluation[:8], task.corpus, hop=1, orderings="given", seed=0)
    for example, beams in zip(evaluation, model.generate_batch([(e.claim, e.sentences) for e in evaluation], beam=5)):
        _check_beams(beams, task.corpus, len(example.sentences))


@pytest.mark.unit
def test_copy_shares_split_each_title_between_copying_and_generation(tiny, corpus, claims):
    """The share is read from the copy head's own gate: forced open (all generation) it is 0, forced shut (all
    copying) it is 1; a model without a copy head has none."""
    import torch

    model = AutoregressiveRetriever.from_scratch(corpus.titles, hop=1, d_model=32, layers=1, heads=2, ffn_dim=64,
                                                 dropout=0.0, seed=0, max_input_length=128, device="cpu", copy=True)
    assert model.copies and not tiny.copies
    queries = [(claims[1].claim, _sentences(corpus, ("Paris", 0), ("Seine", 0))),
               (claims[0].claim, _sentences(corpus, ("Lyon", 0)))]
    beams = model.generate_batch(queries, beam=4)
    shares = model.copy_shares(queries, beams)
    assert [len(s) for s in shares] == [len(b) for b in beams] and all(0 <= x <= 1 for s in shares for x in s)
    assert tiny.copy_shares(queries, [b[:2] for b in beams]) == [[None] * len(b[:2]) for b in beams]
    with torch.no_grad():
        model.model.copy_gate.weight.zero_()
        model.model.copy_gate.bias.fill_(50.0)          # p_gen = 1: every token generated
        assert all(x == pytest.approx(0.0, abs=1e-4) for s in model.copy_shares(queries, beams) for x in s)
        model.model.copy_gate.bias.fill_(-50.0)         # p_gen = 0: every token copied
        assert all(x == pytest.approx(1.0, abs=1e-4) for s in model.copy_shares(queries, beams) for x in s)
    with pytest.raises(ValueError, match="2 queries but 1 beam lists"):
        model.copy_shares(queries, beams[:1])
