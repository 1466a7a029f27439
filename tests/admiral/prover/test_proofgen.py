"""The proof generator: input format, constrained decoding, training proofs (proofbook.admiral.prover.proof_format, proofgen, training_proofs)."""
import pytest

from proofbook.core.corpus import Corpus
from proofbook.models.loading import load_tokenizer
from proofbook.admiral.prover.alignment import Alignment
from proofbook.admiral.prover.natlog import Proof
from proofbook.data.proofver import OPERATORS
from proofbook.admiral.prover.proof_format import clean, ngrams, proof_constraint, proof_input
from proofbook.admiral.prover.proofgen import ProofGenerator
from proofbook.admiral.prover.proofgen_settings import ProofgenSettings
from proofbook.admiral.prover.training_proofs import EvidenceSet, TrainingProof, build_proofs, evidence_sets
from proofbook.index.constraints import encode_segment
from proofbook.admiral.retrieval.tasks import RetrievalClaim, RetrievalTask

pytestmark = pytest.mark.unit
EOS = 102
CLAIM = "Anne Rice was born in New Jersey."
EVIDENCE = [("Anne Rice", "Anne Rice is an American novelist."), ("Anne Rice", "Rice was born in New Orleans.")]


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer("minilm")


def test_input_format_and_ngrams():
    assert proof_input(CLAIM, EVIDENCE) == ("Anne Rice was born in New Jersey. </s> Anne Rice ; Anne Rice is an American "
                                            "novelist. </s> Anne Rice ; Rice was born in New Orleans.")
    grams = ngrams("The 49ers' big season")
    assert grams[:4] == ["The", "The 49ers", "The 49ers' big", "The 49ers' big season"] and len(grams) == 10
    assert len(ngrams("a b c d e f g h")) == 8 + 7 + 6 + 5 + 4 + 3  # n-grams of 1..6 words


def test_constraint_accepts_a_proof_and_allows_only_operators_after_bracket(tokenizer):
    constraint = proof_constraint(tokenizer, CLAIM, EVIDENCE, EOS, claim_spans="ngrams")
    target = "{ anne rice } [ anne rice ] = { was born in new jersey } [ was born in new orleans ] |"
    ids = tokenizer(target, add_special_tokens=False)["input_ids"]
    parsed = constraint.parse(ids + [EOS])
    assert [name for name, _ in parsed] == ["claim", "evidence", "operator"] * 2
    after_bracket = ids[:ids.index(tokenizer.convert_tokens_to_ids("]")) + 1]
    allowed = set(constraint.allowed(after_bracket))
    assert allowed == {encode_segment(tokenizer, op)[0] for op in OPERATORS}
    assert constraint.parse(tokenizer("{ anne rice } [ new jersey ] =", add_special_tokens=False)["input_ids"] + [EOS]) is None
    assert constraint.allowed(ids)[-1] == EOS or EOS in constraint.allowed(ids)


def corpus_task():
    corpus = Corpus("tiny")
    corpus.add("Anne Rice", ["Anne Rice is an American novelist.", "She wrote vampire novels."])
    corpus.add("New Orleans", ["New Orleans is a city in Louisiana.", "It is known for jazz."])
    for i in range(6):
        corpus.add(f"Other {i}", [f"Other page {i} has a sentence.", "And another one."])
    claims = [RetrievalClaim("c1", "Anne Rice, an American novelist, lived in a city in Louisiana.", ("Anne Rice", "New Orleans"),
                             (("Anne Rice", 0), ("New Orleans", 0)), 2, "SUPPORTED")]
    return RetrievalTask("hover", corpus, claims, [])


def test_evidence_sets_make_a_sufficient_and_an_insufficient_selection():
    sets = evidence_sets([corpus_task()], max_claims=5, distractors=2, max_evidence=5, seed=0)
    full, partial = sets
    assert full.sufficient and not partial.sufficient and partial.missing in full.gold
    assert set(full.gold) <= set(full.sentences) and partial.missing not in partial.sentences
    assert len(full.sentences) == 4 and len(partial.sentences) == 4
    assert sets == evidence_sets([corpus_task()], max_claims=5, distractors=2, max_evidence=5, seed=0)


class FakeAligner:
    """Aligns chunk i to gold sentence i % n (first word), so the dropped sentence's chunks are known."""

    def align_many(self, claims, evidence, chunks=None):
        from proofbook.admiral.prover.alignment import chunk_claim

        if chunks is not None:  # re-alignment of the chunks that lost their sentence: to the first sentence
            return [[Alignment(ch, ev[0].split()[0], 0, 0, 1, 0.5) for ch in cs] for cs, ev in zip(chunks, evidence)]
        return [[Alignment(ch, ev[i % len(ev)].split()[0], i % len(ev), 0, 1, 1.0) for i, ch in enumerate(chunk_claim(c))]
                for c, ev in zip(claims, evidence)]


class FakeOperators:
    """Probabilities in OPERATORS order: "=" likely, "|" next."""

    def predict_proba(self, pairs):
        import numpy as np

        return np.array([[0.6, 0.05, 0.05, 0.05, 0.2, 0.05]] * len(pairs))


def test_build_proofs_marks_missing_evidence_independent():
    sets = evidence_sets([corpus_task()], max_claims=5, distractors=2, max_evidence=5, seed=0)
    proofs = build_proofs(sets, FakeAligner(), FakeOperators(), progress=False)
    full, partial = proofs
    assert set(Proof.parse(full.target, claim=full.claim).operators) == {"="} and full.sufficient
    ops = Proof.parse(partial.target, claim=partial.claim).operators
    assert "#" in ops and "=" in ops and not partial.sufficient
    assert Proof.parse(partial.target, claim=partial.claim).verdict == "NOT ENOUGH INFO"
    refuted = [EvidenceSet(**{**s.__dict__, "label": "NOT_SUPPORTED"}) for s in sets]
    full = build_proofs(refuted, FakeAligner(), FakeOperators(), progress=False)[0]
    ops = Proof.parse(full.target, claim=full.claim).operators
    assert ops.count("|") == 1 and Proof.parse(full.target).verdict == "REFUTES"   # the label's verdict, cheapest way
    free = build_proofs(refuted, FakeAligner(), FakeOperators(), progress=False, verdict_constrained=False)[0]
    assert set(Proof.parse(free.target).operators) == {"="}


def test_tiny_generator_writes_constrained_proofs(tmp_path):
    settings = ProofgenSettings.smoke()
    target = "{ Anne Rice } [ Anne Rice ] = { was born in New Jersey } [ was born in New Orleans ] |"
    with pytest.raises(ValueError, match="needs the training texts"):
        ProofGenerator.new(settings)
    generator = ProofGenerator.new(settings, [proof_input(CLAIM, EVIDENCE), target])
    assert len(generator.seq2seq.tokenizer) < 1000          # its own small vocabulary, not MiniLM's 30,522
    assert type(generator.seq2seq.model).__name__ == "CopyBart"   # the default backend copies input tokens
    generator.fit([TrainingProof(CLAIM, tuple(EVIDENCE), target, True, "test", "1")] * 16, settings)
    proofs = generator.generate([CLAIM], [EVIDENCE], beam=2)[0]
    assert len(proofs) + generator.dropped == 2
    check_constrained_proofs(generator, proofs, settings)
    loaded = ProofGenerator.load(generator.save(tmp_path / "gen"))
    assert [str(p) for p in loaded.generate([CLAIM], [EVIDENCE], beam=2)[0]] == [str(p) for p in proofs]


def test_generator_backends_are_named_in_the_error():
    import dataclasses

    frozen = ProofGenerator.new(dataclasses.replace(ProofgenSettings.smoke(), backend="frozen-encoder", d_model=32,
                                                    layers=1))
    assert frozen.seq2seq.backend == "frozen-encoder" and len(frozen.seq2seq.tokenizer) > 30000   # MiniLM's
    plain = ProofGenerator.new(dataclasses.replace(ProofgenSettings.smoke(), backend="scratch"), ["a b c"])
    assert type(plain.seq2seq.model).__name__ == "BartForConditionalGeneration"
    with pytest.raises(ValueError, match="unknown backend 'bart'; expected one of .*frozen-encoder"):
        ProofGenerator.new(dataclasses.replace(ProofgenSettings.smoke(), backend="bart"))
    with pytest.raises(ValueError, match="needs ProofgenSettings.checkpoint"):
        ProofGenerator.new(dataclasses.replace(ProofgenSettings.smoke(), backend="checkpoint"))


def test_a_local_pretrained_checkpoint_is_fine_tuned_as_the_paper_does(tmp_path):
    """The paper's path (fine-tune BART-large) on a tiny BART saved as a plain local checkpoint folder."""
    import dataclasses

    from proofbook.models.loading import load_tokenizer, small_seq2seq, special_token_ids

    tokenizer = load_tokenizer("minilm")
    small_seq2seq(len(tokenizer), d_model=32, layers=1, heads=2, **special_token_ids(tokenizer)).save_pretrained(tmp_path / "bart")
    tokenizer.save_pretrained(tmp_path / "bart")
    settings = dataclasses.replace(ProofgenSettings.smoke(), backend="checkpoint", checkpoint=str(tmp_path / "bart"))
    generator = ProofGenerator.new(settings)
    assert generator.seq2seq.backend == "checkpoint" and len(generator.seq2seq.tokenizer) == len(tokenizer)
    target = "{ Anne Rice } [ Anne Rice ] = { was born in New Jersey } [ was born in New Orleans ] |"
    generator.fit([TrainingProof(CLAIM, tuple(EVIDENCE), target, True, "test", "1")] * 8, settings)
    proofs = generator.generate([CLAIM], [EVIDENCE], beam=2)[0]
    assert len(proofs) + generator.dropped == 2 and all(p.claim == CLAIM for p in proofs)
    check_constrained_proofs(generator, proofs, settings)


def check_constrained_proofs(generator, proofs, settings):
    """Under the chunk constraint every beam is a proof: the claim's chunks in order, evidence n-grams, operators."""
    # the longest proof the constraint allows fits the decoding budget, so no beam is cut off and dropped
    assert generator.constraint(CLAIM, EVIDENCE).max_length() <= settings.max_target_length
    assert len(proofs) == 2 and generator.dropped == 0
    assert proofs[0].score >= proofs[1].score                                   # best first
    for p in proofs:
        assert p.claim == CLAIM and p.score is not None and p.verdict in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
        assert [s.claim_span for s in p.steps] == ["anne rice", "was born", "in new jersey"]    # chunk_claim, lower-cased
        assert all(any(s.evidence_span in sentence.lower() for _, sentence in EVIDENCE) for s in p.steps), str(p)
        assert all(s.operator in OPERATORS for s in p.steps)


def test_newlines_never_reach_a_proof_string():

    assert proof_input("from NY. \nHe was", [("T", "a\n b")]) == "from NY. He was </s> T ; a b"
    assert ngrams("NY. \nHe")[1] == "NY. He" and clean(" a \n\t b ") == "a b"


def test_chunk_constraint_forces_claim_order_and_coverage(tokenizer):
    constraint = proof_constraint(tokenizer, CLAIM, EVIDENCE, EOS)          # chunks: Anne Rice | was born | in New Jersey
    ok = "{ anne rice } [ anne rice ] = { was born } [ was born ] = { in new jersey } [ in new orleans ] |"
    assert constraint.parse(tokenizer(ok, add_special_tokens=False)["input_ids"] + [EOS]) is not None
    for bad in ("{ anne rice } [ anne rice ] =",                                        # stops before covering the claim
                "{ was born } [ was born ] = { anne rice } [ anne rice ] = { in new jersey } [ rice ] ="):  # out of order
        assert constraint.parse(tokenizer(bad, add_special_tokens=False)["input_ids"] + [EOS]) is None
    first = constraint.allowed([])
    assert first == [tokenizer.convert_tokens_to_ids("{")]
    with pytest.raises(ValueError, match="claim_spans must be"):
        proof_constraint(tokenizer, CLAIM, EVIDENCE, EOS, claim_spans="words")
