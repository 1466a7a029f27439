"""The shared Seq2Seq wrapper: training on text pairs, greedy/beam/sampled/constrained generation, scoring."""
import pytest

from proofbook.core.training import TrainConfig
from proofbook.models.seq2seq import Seq2Seq, collate, mean_logprob
from proofbook.index.prefix_tree import PrefixTree
from proofbook.index.constraints import Segment, SequenceConstraint, encode_segment

PAIRS = [("is paris in france?", "yes paris is in france"),
         ("is lyon a river?", "no lyon is a city"),
         ("is the seine a river?", "yes the seine is a river")]


@pytest.fixture(scope="module")
def trained():
    model = Seq2Seq.from_scratch(d_model=32, layers=1, heads=2, ffn_dim=64, dropout=0.0, seed=0,
                                 max_input_length=32, max_target_length=16, device="cpu")
    model.fit(PAIRS * 8, TrainConfig(epochs=60, batch_size=8, lr=1e-2, warmup_ratio=0.0, progress=False, seed=1))
    return model


@pytest.mark.unit
def test_overfits_and_generates_greedy_and_beam(trained):
    greedy = trained.generate([s for s, _ in PAIRS])
    assert [outs[0].text for outs in greedy] == [t for _, t in PAIRS]
    beams = trained.generate([PAIRS[0][0]], beam=4, num_return=3)[0]
    assert len(beams) == 3 and beams[0].text == PAIRS[0][1]
    assert beams[0].score >= beams[1].score >= beams[2].score


@pytest.mark.unit
def test_greedy_score_matches_teacher_forced_score(trained):
    out = trained.generate([PAIRS[1][0]])[0][0]
    forced = trained.score([PAIRS[1][0]], [out.text])[0]
    assert out.score == pytest.approx(forced, abs=1e-4)
    assert forced > trained.score([PAIRS[1][0]], ["yes paris is in france"])[0]


@pytest.mark.unit
def test_constrained_decoding_only_writes_allowed_sequences(trained):
    tok = trained.tokenizer
    answers = ["no lyon is a city", "maybe"]
    tree = PrefixTree([encode_segment(tok, a) for a in answers], answers)
    constraint = SequenceConstraint([Segment(tree, name="answer")], trained.eos_token_id)
    outs = trained.generate([PAIRS[0][0], PAIRS[1][0]], beam=2, num_return=2, constraints=constraint)
    for per_input in outs:
        assert {g.text for g in per_input} <= set(answers)
    assert outs[1][0].text == "no lyon is a city"
    sampled = trained.generate([PAIRS[0][0]], sample=True, num_return=5, top_p=0.95, temperature=2.0,
                               constraints=[constraint], seed=3)[0]
    assert len(sampled) == 5 and {g.text for g in sampled} <= set(answers)


@pytest.mark.unit
def test_sampling_is_reproducible_for_a_seed(trained):
    first = trained.generate([PAIRS[2][0]], sample=True, num_return=4, temperature=2.0, top_p=0.95, seed=7)
    again = trained.generate([PAIRS[2][0]], sample=True, num_return=4, temperature=2.0, top_p=0.95, seed=7)
    assert [g.ids for g in first[0]] == [g.ids for g in again[0]]


@pytest.mark.unit
def test_save_and_load_round_trip(trained, tmp_path):
    trained.save(tmp_path / "m")
    loaded = Seq2Seq.load(tmp_path / "m", device="cpu")
    assert loaded.max_input_length == trained.max_input_length
    assert loaded.generate([PAIRS[0][0]])[0][0].text == PAIRS[0][1]
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="Seq2Seq.save"):
        Seq2Seq.load(tmp_path / "plain")


@pytest.mark.unit
def test_bad_inputs_are_clear_errors(trained):
    with pytest.raises(ValueError, match="input 1: empty model input"):
        trained.generate(["fine", "  "])
    with pytest.raises(ValueError, match="training pair 0: empty target"):
        trained.fit([("a question", "")])
    with pytest.raises(ValueError, match="num_return"):
        trained.generate(["x"], beam=2, num_return=3)
    with pytest.raises(ValueError, match="2 inputs but 1 targets"):
        trained.score(["a", "b"], ["c"])


@pytest.mark.unit
def test_truncation_keeps_special_tokens(trained):
    ids = trained.encode_input("word " * 100)
    assert len(ids) == trained.max_input_length
    assert ids[0] == trained.tokenizer.cls_token_id and ids[-1] == trained.tokenizer.sep_token_id
    assert trained.encode_target("a " * 40)[-1] == trained.eos_token_id
    assert len(trained.encode_target("a " * 40)) == trained.max_target_length


@pytest.mark.unit
def test_collate_and_mean_logprob_helpers():
    import torch

    batch = collate([([5, 6, 7], [1, 2]), ([5], [3])], pad_token_id=0)
    assert batch["input_ids"].tolist() == [[5, 6, 7], [5, 0, 0]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch["labels"].tolist() == [[1, 2], [3, -100]]
    logits = [torch.zeros(1, 4), torch.zeros(1, 4), torch.zeros(1, 4)]  # uniform over 4 tokens
    tokens = torch.tensor([[1, 3, 2]])  # EOS (3) at position 1: positions 0..1 count
    assert mean_logprob(logits, tokens, eos_token_id=3)[0] == pytest.approx(-1.3862944, abs=1e-6)


@pytest.mark.unit
def test_frozen_encoder_trains_only_the_decoder_and_learns_the_pairs(tmp_path):
    import torch

    model = Seq2Seq.frozen_encoder(d_model=32, layers=1, heads=2, dropout=0.0, seed=0, max_input_length=32,
                                   max_target_length=16, device="cpu")
    encoder_before = {n: p.detach().clone() for n, p in model.model.get_encoder().named_parameters()}
    decoder_before = next(model.model.decoder.parameters()).detach().clone()
    model.fit(PAIRS * 8, TrainConfig(epochs=60, batch_size=8, lr=1e-2, warmup_ratio=0.0, progress=False, seed=1))
    assert all(torch.equal(p, encoder_before[n]) for n, p in model.model.get_encoder().named_parameters())
    assert not torch.equal(next(model.model.decoder.parameters()), decoder_before)
    assert [model.generate([source])[0][0].text for source, _ in PAIRS] == [target for _, target in PAIRS]
    model.save(tmp_path / "m")
    loaded = Seq2Seq.load(tmp_path / "m", device="cpu")
    assert loaded.backend == "frozen-encoder" and loaded.generate([PAIRS[1][0]])[0][0].text == PAIRS[1][1]


@pytest.mark.unit
def test_copy_pointer_copies_words_it_never_wrote_in_training(tmp_path):
    """The pointer (See et al. 2017) copies by position: the third input word, even one never seen as a target."""
    import random

    seen = "apple river stone cloud music paper garden window silver doctor island summer".split()
    unseen = ["engine", "forest", "castle", "rabbit"]
    rng = random.Random(0)
    pairs = []
    for _ in range(96):
        words = rng.sample(seen, 4)
        pairs.append((" ".join(words), words[2]))
    settings = dict(d_model=32, layers=1, heads=2, ffn_dim=64, dropout=0.0, seed=0, max_input_length=16,
                    max_target_length=4, device="cpu")
    config = TrainConfig(epochs=12, batch_size=16, lr=1e-2, warmup_ratio=0.0, progress=False, seed=1)
    tests = [" ".join(unseen), " ".join(reversed(unseen))]
    copier = Seq2Seq.from_scratch(copy=True, **settings)
    copier.fit(pairs, config)
    assert type(copier.model).__name__ == "CopyBart"
    assert [outs[0].text for outs in copier.generate(tests, beam=2)] == ["castle", "forest"]
    greedy = copier.generate([tests[0]])[0][0]
    assert greedy.score == pytest.approx(copier.score([tests[0]], [greedy.text])[0], abs=1e-4)
    plain = Seq2Seq.from_scratch(**settings)
    plain.fit(pairs, config)
    assert [outs[0].text for outs in plain.generate(tests)] != ["castle", "forest"]
    copier.save(tmp_path / "m")
    loaded = Seq2Seq.load(tmp_path / "m", device="cpu")
    assert type(loaded.model).__name__ == "CopyBart" and loaded.generate([tests[1]])[0][0].text == "forest"
