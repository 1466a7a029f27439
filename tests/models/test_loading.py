"""Tests of proofbook.models: local-only loading, the training loop, the cross-encoder (the cache: tests/core/test_cache.py)."""
import shutil

import numpy as np
import pytest
import torch

from proofbook.core.cache import ArtifactCache
from proofbook.core.codecs import object_codec
from proofbook.models.loading import (CheckpointError, hf_codec, load_classifier, load_encoder, load_seq2seq, load_tokenizer,
                                      minilm_path, resolve_checkpoint, small_seq2seq, special_token_ids,
                                      warm_start_seq2seq_from_encoder)
from proofbook.models.cross_encoder import CrossEncoder, macro_f1
from proofbook.core.training import TrainConfig, batch_order, set_seed, train

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def minilm_tokenizer():
    return load_tokenizer("minilm")


# ---------------------------------------------------------------- loading


def test_missing_folder_is_a_checkpoint_error(tmp_path):
    with pytest.raises(CheckpointError, match="no such folder") as info:
        resolve_checkpoint(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(info.value)


def test_folder_without_config_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match="missing config.json") as info:
        load_encoder(tmp_path)
    assert info.value.path == str(tmp_path)


def test_hub_id_is_refused_without_a_lookup(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointError, match="local folders") as info:
        load_classifier("allenai/entailer-large", num_labels=2)
    assert "allenai/entailer-large" in str(info.value)


def test_folder_without_weights_or_tokenizer_names_what_is_missing(tmp_path):
    shutil.copy(minilm_path() / "config.json", tmp_path)
    with pytest.raises(CheckpointError, match="missing model weights"):
        load_encoder(tmp_path)
    with pytest.raises(CheckpointError, match="missing tokenizer files"):
        load_tokenizer(tmp_path)


def test_corrupt_weights_are_a_checkpoint_error(tmp_path):
    shutil.copy(minilm_path() / "config.json", tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"\x00garbage" * 100)
    with pytest.raises(CheckpointError, match="weights failed to load") as info:
        load_encoder(tmp_path)
    assert str(tmp_path) in str(info.value)


def test_minilm_loads_offline_and_quietly(minilm_tokenizer, capfd):
    encoder = load_encoder("minilm")
    batch = minilm_tokenizer(["a claim", "a longer piece of evidence"], padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = encoder(**batch).last_hidden_state
    assert hidden.shape[0] == 2 and hidden.shape[-1] == 384
    classifier = load_classifier("minilm", num_labels=3)
    assert classifier.config.num_labels == 3
    assert "LOAD REPORT" not in capfd.readouterr().err  # the expected new-head report is only logged


def test_warm_started_seq2seq_generates(minilm_tokenizer, tmp_path):
    model = warm_start_seq2seq_from_encoder("minilm")
    for config in (model.config, model.generation_config):
        assert config.decoder_start_token_id == minilm_tokenizer.cls_token_id
        assert config.eos_token_id == minilm_tokenizer.sep_token_id
        assert config.pad_token_id == minilm_tokenizer.pad_token_id
    inputs = minilm_tokenizer(["the eiffel tower is in paris"], return_tensors="pt")
    output = model.generate(**inputs, max_new_tokens=3, num_beams=1, do_sample=False)
    assert output.shape[1] <= 4 and output[0, 0].item() == minilm_tokenizer.cls_token_id


def test_small_seq2seq_builds_generates_and_reloads(minilm_tokenizer, tmp_path):
    ids = special_token_ids(minilm_tokenizer)
    model = small_seq2seq(len(minilm_tokenizer), d_model=32, layers=1, heads=2, **ids)
    assert model.config.d_model == 32
    assert model.generation_config.decoder_start_token_id == ids["decoder_start_token_id"]
    model.save_pretrained(tmp_path)
    reloaded = load_seq2seq(tmp_path)
    source = torch.tensor([[ids["decoder_start_token_id"], 2023, ids["eos_token_id"]]])
    out = reloaded.eval().generate(source, max_new_tokens=3, do_sample=False)
    assert out.shape[1] <= 4


def test_t5_format_checkpoint_loads_like_a_user_provided_one(tmp_path):
    """A tiny T5 + SentencePiece-style tokenizer stands in for e.g. a local allenai/entailer-large."""
    from tokenizers import Tokenizer, models
    from transformers import T5Config, T5ForConditionalGeneration, T5TokenizerFast

    words = ["<pad>", "</s>", "<unk>", "premise", "hypothesis", "true", "false"]
    backend = Tokenizer(models.Unigram([(word, -1.0) for word in words], unk_id=2))
    tokenizer = T5TokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                extra_ids=0)
    config = T5Config(vocab_size=len(words), d_model=16, d_ff=32, num_layers=1, num_heads=2, d_kv=8,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model, reloaded = load_seq2seq(tmp_path), load_tokenizer(tmp_path)
    assert type(model).__name__ == "T5ForConditionalGeneration"
    output = model.generate(**reloaded(["premise"], return_tensors="pt"), max_new_tokens=2)
    assert output.shape[0] == 1


def test_load_seq2seq_refuses_an_encoder():
    with pytest.raises(CheckpointError, match="not a seq2seq checkpoint"):
        load_seq2seq("minilm")


# ---------------------------------------------------------------- training


def tiny_classifier(seed: int = 0):
    from transformers import BertConfig, BertForSequenceClassification

    set_seed(seed)
    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=16, num_labels=2)
    return BertForSequenceClassification(config)


def toy_examples(n: int = 40):
    """Token sequences whose label is whether token 7 occurs."""
    rng = np.random.default_rng(0)
    examples = []
    for i in range(n):
        tokens = rng.integers(10, 50, size=6).tolist()
        if i % 2:
            tokens[rng.integers(6)] = 7
        examples.append((tokens, i % 2))
    return examples


def collate(examples):
    return {"input_ids": torch.tensor([tokens for tokens, _ in examples]),
            "labels": torch.tensor([label for _, label in examples])}


def test_training_is_deterministic_for_a_seed():
    config = TrainConfig(epochs=2, batch_size=8, lr=1e-3, seed=3, progress=False)
    states = []
    for _ in range(2):
        model = tiny_classifier(seed=1)
        result = train(model, toy_examples(), collate, None, config)
        states.append(model.state_dict())
    assert result.steps == 10 and result.best_metric is None and len(result.history) == 2
    assert all(torch.equal(states[0][name], states[1][name]) for name in states[0])
    other = tiny_classifier(seed=1)
    train(other, toy_examples(), collate, None, TrainConfig(epochs=2, batch_size=8, lr=1e-3, seed=4, progress=False))
    assert not all(torch.equal(states[0][name], other.state_dict()[name]) for name in states[0])


def test_early_stopping_stops_and_restores_the_best_weights():
    metrics = iter([0.5, 0.7, 0.6, 0.6, 0.6, 0.9, 0.9])
    snapshots = []

    def evaluate(model):
        assert not model.training
        snapshots.append({k: v.clone() for k, v in model.state_dict().items()})
        return next(metrics)

    model = tiny_classifier()
    config = TrainConfig(epochs=5, batch_size=4, lr=1e-3, eval_every=1, patience=2, progress=False)
    result = train(model, toy_examples(), collate, evaluate, config)
    assert result.stopped_early and result.steps == 4
    assert result.best_metric == 0.7 and result.best_step == 2
    assert [point.metric for point in result.history] == [0.5, 0.7, 0.6, 0.6]
    assert all(torch.equal(model.state_dict()[k], snapshots[1][k]) for k in snapshots[1])


def test_lower_is_better_and_max_steps():
    metrics = iter([3.0, 2.0, 2.5])
    model = tiny_classifier()
    config = TrainConfig(epochs=10, batch_size=4, max_steps=6, eval_every=2, higher_is_better=False, progress=False)
    result = train(model, toy_examples(), collate, lambda m: next(metrics), config)
    assert result.steps == 6 and result.best_metric == 2.0 and result.best_step == 4 and not result.stopped_early


def test_training_a_seq2seq_model_lowers_its_loss(minilm_tokenizer):
    ids = special_token_ids(minilm_tokenizer)
    set_seed(0)
    model = small_seq2seq(len(minilm_tokenizer), d_model=32, layers=1, heads=2, dropout=0.0, **ids)
    pairs = [("who wrote hamlet", "william shakespeare"), ("capital of france", "paris")] * 4

    def seq2seq_collate(examples):
        sources = minilm_tokenizer([s for s, _ in examples], padding=True, return_tensors="pt")
        targets = minilm_tokenizer([t for _, t in examples], padding=True, return_tensors="pt").input_ids
        targets[targets == ids["pad_token_id"]] = -100
        return {**sources, "labels": targets}

    config = TrainConfig(epochs=15, batch_size=4, lr=3e-3, warmup_ratio=0.0, eval_every=10, progress=False)
    result = train(model, pairs, seq2seq_collate, None, config)
    assert result.history[-1].loss < result.history[0].loss


def test_train_config_rejects_bad_settings():
    with pytest.raises(ValueError, match="eval_every"):
        TrainConfig(eval_every=0)
    with pytest.raises(ValueError, match="length_pool"):
        TrainConfig(length_pool=-1)


def test_length_pooled_batches_hold_every_example_once_and_similar_lengths():
    lengths = [(7 * i) % 23 for i in range(40)]
    order = torch.randperm(40, generator=torch.Generator().manual_seed(0)).tolist()
    plain = batch_order(order, 8)
    assert plain == [order[i:i + 8] for i in range(0, 40, 8)]
    assert batch_order(order, 8, lengths, pool=0) == plain
    pooled = batch_order(order, 8, lengths, pool=5, generator=torch.Generator().manual_seed(1))
    assert sorted(i for batch in pooled for i in batch) == list(range(40)) and all(len(b) == 8 for b in pooled)
    spread = lambda batches: sum(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches)  # noqa: E731
    assert spread(pooled) < spread(plain)
    again = batch_order(order, 8, lengths, pool=5, generator=torch.Generator().manual_seed(1))
    assert again == pooled


def test_length_pooling_changes_batches_not_the_number_of_steps():
    examples = toy_examples()
    lengths = [i % 5 for i in range(len(examples))]
    states, steps = {}, {}
    for name, pool in (("pooled", 2), ("again", 2), ("plain", 0)):
        config = TrainConfig(epochs=2, batch_size=8, lr=1e-3, seed=3, progress=False, length_pool=pool)
        model = tiny_classifier(seed=1)
        steps[name] = train(model, examples, collate, None, config, lengths=lengths).steps
        states[name] = model.state_dict()
    assert steps == {"pooled": 10, "again": 10, "plain": 10}
    # the same config twice: the same weights; pooled batches (other examples together): other weights
    assert all(torch.equal(states["pooled"][k], states["again"][k]) for k in states["pooled"])
    assert not all(torch.allclose(states["pooled"][k], states["plain"][k]) for k in states["pooled"])


# ---------------------------------------------------------------- cache


def test_hf_model_with_tokenizer_round_trips_through_the_cache(tmp_path, minilm_tokenizer):
    cache = ArtifactCache(tmp_path)
    model = tiny_classifier()
    model.eval()
    built = cache.get_or_build("tiny", {"seed": 0}, lambda: (model, minilm_tokenizer), *hf_codec())
    loaded, tokenizer = cache.get_or_build("tiny", {"seed": 0}, lambda: pytest.fail("rebuilt"), *hf_codec())
    assert cache.stats["hits"] == 1 and built[0] is model
    assert all(torch.equal(loaded.state_dict()[k], model.state_dict()[k]) for k in model.state_dict())
    assert tokenizer("paris").input_ids == minilm_tokenizer("paris").input_ids


# ---------------------------------------------------------------- cross-encoder


def toy_pairs(n: int = 32):
    """Pairs whose label says whether the second text repeats the first's subject."""
    subjects = ["paris", "berlin", "tokyo", "rome", "madrid", "oslo", "lima", "cairo"]
    pairs, labels = [], []
    for i in range(n):
        subject = subjects[i % len(subjects)]
        other = subjects[(i + 3) % len(subjects)]
        pairs.append((f"{subject} is a capital city", f"{subject if i % 2 else other} has many museums"))
        labels.append("related" if i % 2 else "unrelated")
    return pairs, labels


def test_cross_encoder_fit_predict_save_load(tmp_path):
    pairs, labels = toy_pairs()
    encoder = CrossEncoder("minilm", labels=["unrelated", "related"], max_length=32)
    result = encoder.fit(pairs, labels, pairs[:8], labels[:8],
                         TrainConfig(epochs=1, batch_size=8, lr=5e-5, progress=False), metric="macro_f1")
    assert result.steps == 4 and result.best_metric is not None and 0.0 <= result.best_metric <= 1.0
    probabilities = encoder.predict_proba(pairs[:5], batch_size=2)
    assert probabilities.shape == (5, 2) and np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert set(encoder.predict(pairs[:5])) <= {"unrelated", "related"}

    cache = ArtifactCache(tmp_path / "cache")
    cache.get_or_build("cross_encoder", {"toy": 1}, lambda: encoder, *object_codec(CrossEncoder))
    reloaded = cache.get_or_build("cross_encoder", {"toy": 1}, lambda: pytest.fail("rebuilt"),
                                  *object_codec(CrossEncoder))
    assert reloaded.labels == ["unrelated", "related"] and reloaded.max_length == 32
    assert np.allclose(reloaded.predict_proba(pairs[:5]), probabilities, atol=1e-5)
    with pytest.raises(ValueError, match="'maybe' at position 1"):
        encoder.fit(pairs[:2], ["related", "maybe"])


def test_cross_encoder_fit_groups_learns_which_member_is_true():
    """Multiple-choice training: after a few steps the true member of each group scores highest."""
    import torch

    groups = [[(("the sun is a star", ""), True), (("the sun is a planet", ""), False),
               (("the sun is a moon", ""), False)],
              [(("a whale is a mammal", ""), True), (("a whale is a fish", ""), False)]] * 4
    encoder = CrossEncoder("minilm", labels=["false", "true"], max_length=16)
    torch.manual_seed(0)
    result = encoder.fit_groups(groups, TrainConfig(epochs=4, batch_size=2, lr=1e-4, progress=False))
    assert result.steps == 16
    p_true = encoder.predict_proba([pair for pair, _ in groups[0] + groups[1]])[:, 1]
    assert p_true[0] > max(p_true[1:3]) and p_true[3] > p_true[4]
    with pytest.raises(ValueError, match="group 1 needs .* exactly one true pair, has 2 pairs and 2 true"):
        encoder.fit_groups([groups[0], [(("a", ""), True), (("b", ""), True)]])
    with pytest.raises(ValueError, match="two labels"):
        CrossEncoder("minilm", labels=["a", "b", "c"], max_length=16).fit_groups(groups)


def test_macro_f1():
    assert macro_f1([0, 0, 1, 1], [0, 0, 1, 1]) == 1.0
    assert macro_f1([0, 0, 1, 1], [0, 0, 0, 0]) == pytest.approx((2 * 2 / 6 + 0) / 2)


def test_wordpiece_vocabulary_is_numbered_the_same_every_time():
    from proofbook.models.loading import train_wordpiece

    texts = [f"the {w} of a {v} is {u}" for w in ("cell", "leaf", "root", "stem") for v in ("plant", "tree", "moss")
             for u in ("green", "brown", "tall", "small")] * 3
    first, second = train_wordpiece(texts, 48), train_wordpiece(list(reversed(texts)), 48)
    assert first.get_vocab() == second.get_vocab() and len(first) == 48
    assert first("tallest greenest")["input_ids"].count(first.unk_token_id) == 0   # unseen words are spelled out
    assert [first.convert_ids_to_tokens(i) for i in range(5)] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    ids = first("the root of a moss is small")["input_ids"]
    assert first.decode(ids, skip_special_tokens=True) == "the root of a moss is small"
    assert ids[0] == first.cls_token_id and ids[-1] == first.sep_token_id


def test_a_new_cross_encoder_head_depends_on_its_seed_only():
    """The head is the same whatever used torch's global generator before, and that generator is untouched."""
    def head(model):
        return torch.cat([p.detach().flatten() for n, p in model.model.named_parameters() if "classifier" in n])

    torch.manual_seed(123)
    first = CrossEncoder("minilm", labels=["no", "yes"], max_length=16, seed=7)
    torch.rand(1000)  # a different history, as a cached model or a longer training run would leave
    state = torch.get_rng_state()
    second = CrossEncoder("minilm", labels=["no", "yes"], max_length=16, seed=7)
    assert torch.equal(torch.get_rng_state(), state)
    assert torch.equal(head(first), head(second))
    other = CrossEncoder("minilm", labels=["no", "yes"], max_length=16, seed=8)
    assert not torch.equal(head(first), head(other))


def test_prediction_sorted_by_length_returns_the_given_order():
    """Batches are formed from length-sorted pairs; every row must still be the pair's own score."""
    encoder = CrossEncoder("minilm", labels=["no", "yes"], max_length=64, seed=3)
    pairs = [("a claim", "short"), ("a claim about a long and winding road", "a sentence " * 12),
             ("x", "y"), ("a claim", "a medium sized sentence here"), ("a claim", "short")]
    alone = np.concatenate([encoder.predict_proba([pair], batch_size=1) for pair in pairs])
    together = encoder.predict_proba(pairs, batch_size=2)
    assert np.allclose(together, alone, atol=1e-5)
    assert np.abs(together[1] - together[2]).max() > 1e-4  # the rows differ, so a mix-up would show
    assert encoder.predict_proba([]).shape == (0, 2)
    assert encoder.token_lengths(pairs)[2] < encoder.token_lengths(pairs)[1] <= 64


def test_cross_encoder_training_gets_token_lengths_when_pooled(monkeypatch):
    """``length_pool`` (on by default) hands train() each example's token count; 0 hands none."""
    import proofbook.models.cross_encoder as module

    seen = []
    monkeypatch.setattr(module, "train", lambda *args, lengths=None, **kwargs: seen.append(lengths))
    pairs, labels = toy_pairs(6)
    encoder = CrossEncoder("minilm", labels=["unrelated", "related"], max_length=32)
    encoder.fit(pairs, labels, config=TrainConfig(progress=False))
    encoder.fit(pairs, labels, config=TrainConfig(progress=False, length_pool=0))
    groups = [[(pairs[0], True), (pairs[1], False)], [(pairs[2], True), (pairs[3], False), (pairs[4], False)]]
    encoder.fit_groups(groups, TrainConfig(progress=False))
    lengths = encoder.token_lengths(pairs)
    assert seen == [lengths, None, [max(lengths[:2]), max(lengths[2:5])]]
