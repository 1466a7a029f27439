"""The shared seq2seq model: train on text pairs, generate (greedy, beam, sampling, constrained), score.

Every generator in the book is one of these: the NatLog proof generator (AdMIRaL §3.2), the question
generator of claims in the wild (Chen et al. 2023, §3.1, the fine-tuned decomposition model), Entailer's
premise generator H -> P (Tafjord et al. 2022, §3) and its hypothesis writer.  AdMIRaL's title generator
(:class:`proofbook.admiral.retrieval.autoregressive.AutoregressiveRetriever`, §3) is a subclass: it keeps
the constructors, device and length handling, training loop, ``generate()`` call and persistence, and
brings its own input format, truncation rule and parsing of constrained outputs.  The helpers around
``generate()`` (constraints, scores, batching) live in :mod:`proofbook.models.decoding`.

Four backends (no pretrained seq2seq model is installable offline):

* :meth:`Seq2Seq.from_scratch` -- a small BART (d_model 256, 3+3 layers) initialised at random with
  MiniLM's WordPiece tokenizer (uncased: generated text comes back lower-cased with spaced
  punctuation), optionally with a pointer that copies input tokens (``copy=True``,
  :class:`proofbook.models.pointer.CopyBart`);
* :meth:`Seq2Seq.warm_start` -- MiniLM as encoder and decoder (``EncoderDecoderModel``, 49M parameters);
* :meth:`Seq2Seq.frozen_encoder` -- MiniLM as a frozen encoder and a small BERT decoder trained from scratch
  (11M trainable parameters); the encoder's states are computed once per training input;
* :meth:`Seq2Seq.from_checkpoint` -- any local seq2seq folder with its tokenizer (BART, GENRE, T5 such
  as ``allenai/entailer-large``).

Scores are length-normalised log-probabilities: the mean log-probability of the output tokens,
EOS included (beam search's ``sequences_scores`` with ``length_penalty=1``, which is the same thing).
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import torch

from proofbook.core.training import TrainConfig, TrainResult, set_seed, train
from proofbook.models.decoding import (FILLER_SCORE, batched, first_id, generation_ids, mean_logprob,
                                       prefix_allowed_tokens_fn)
from proofbook.models.loading import (freeze_encoder, frozen_encoder_seq2seq, load_model, load_seq2seq, load_tokenizer,
                                      quiet_transformers, read_settings, resolve_checkpoint, save_with_settings,
                                      set_special_token_ids, small_seq2seq, special_token_ids,
                                      warm_start_seq2seq_from_encoder)
from proofbook.models.pointer import CopyBart

CONFIG_FILE = "proofbook_seq2seq.json"


@dataclass(frozen=True)
class Generated:
    """One output: decoded ``text`` (special tokens removed), its token ``ids`` (EOS excluded), its ``score``."""

    text: str
    ids: tuple[int, ...]
    score: float


def special_frame(tokenizer) -> tuple[list[int], list[int]]:
    """The special tokens a tokenizer puts before and after one sequence, found with a probe word."""
    bare = list(tokenizer("retrieval", add_special_tokens=False)["input_ids"])
    full = list(tokenizer("retrieval")["input_ids"])
    for start in range(len(full) - len(bare) + 1):
        if full[start:start + len(bare)] == bare:
            return full[:start], full[start + len(bare):]
    raise ValueError(f"{type(tokenizer).__name__}: cannot locate the text between its special tokens")


def collate(batch: Sequence[tuple[Sequence[int], Sequence[int]]], pad_token_id: int) -> dict[str, torch.Tensor]:
    """Pad ``(input ids, label ids)`` pairs: ``input_ids``/``attention_mask`` with pad, ``labels`` with -100."""
    width = max(len(ids) for ids, _ in batch)
    depth = max(len(labels) for _, labels in batch)
    input_ids = torch.full((len(batch), width), pad_token_id, dtype=torch.long)
    attention = torch.zeros((len(batch), width), dtype=torch.long)
    labels = torch.full((len(batch), depth), -100, dtype=torch.long)
    for row, (ids, target) in enumerate(batch):
        input_ids[row, :len(ids)] = torch.tensor(list(ids), dtype=torch.long)
        attention[row, :len(ids)] = 1
        labels[row, :len(target)] = torch.tensor(list(target), dtype=torch.long)
    return {"input_ids": input_ids, "attention_mask": attention, "labels": labels}


def collate_states(batch: Sequence[tuple[Sequence[int], Sequence[int]]], states: dict, pad_token_id: int
                   ) -> dict[str, object]:
    """:func:`collate` for a frozen encoder: the inputs' precomputed encoder states (``states[tuple(ids)]``,
    padded with zeros) stand in for the input ids."""
    plain = collate(batch, pad_token_id)
    width = plain["input_ids"].shape[1]
    first = states[tuple(batch[0][0])]
    hidden = torch.zeros((len(batch), width, first.shape[-1]), dtype=first.dtype)
    for row, (ids, _) in enumerate(batch):
        hidden[row, :len(ids)] = states[tuple(ids)]
    return {"encoder_outputs": (hidden,), "attention_mask": plain["attention_mask"], "labels": plain["labels"]}


class Seq2Seq:
    """A transformers encoder-decoder with its tokenizer: fit on text pairs, generate, score.

    Subclasses with their own input format (AdMIRaL's title generator) reuse the constructors, the device and
    length handling, :meth:`collate`, :meth:`_train`, :meth:`_run_generate` and the persistence (they name their
    own :attr:`SETTINGS_FILE` and :meth:`_settings`).
    """

    #: the settings file :meth:`save` writes next to the weights, and the writer a folder without it lacks
    SETTINGS_FILE, SAVED_BY = CONFIG_FILE, "Seq2Seq.save (use Seq2Seq.from_checkpoint for a plain checkpoint folder)"

    def __init__(self, model, tokenizer, *, max_input_length: int = 256, max_target_length: int = 64,
                 backend: str = "checkpoint", device: str | None = None):
        self.model, self.tokenizer, self.backend = model, tokenizer, backend
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model.to(self.device).eval()
        config = getattr(model.config, "encoder", model.config)
        positions = getattr(config, "max_position_embeddings", None)
        self.max_input_length = min(max_input_length, positions) if positions else max_input_length
        self.max_target_length = max_target_length
        self.eos_token_id, self.pad_token_id = generation_ids(model)
        self._prefix_ids, self._suffix_ids = special_frame(tokenizer)

    def __repr__(self) -> str:
        n = sum(p.numel() for p in self.model.parameters()) / 1e6
        return f"Seq2Seq({self.backend}, {type(self.model).__name__}, {n:.1f}M parameters)"

    # -- constructors
    @classmethod
    def warm_start(cls, checkpoint: os.PathLike | str = "minilm", *, seed: int = 0, **kwargs) -> "Seq2Seq":
        """Encoder and decoder warm-started from a local encoder checkpoint (MiniLM: 49M parameters)."""
        set_seed(seed)
        return cls(warm_start_seq2seq_from_encoder(checkpoint), load_tokenizer(checkpoint), backend="warm-start",
                   **kwargs)

    @classmethod
    def frozen_encoder(cls, checkpoint: os.PathLike | str = "minilm", *, d_model: int = 256, layers: int = 3,
                       heads: int = 4, dropout: float = 0.1, seed: int = 0, **kwargs) -> "Seq2Seq":
        """A local encoder (MiniLM) kept frozen and a small decoder trained from scratch (seeded); see
        :func:`proofbook.models.loading.frozen_encoder_seq2seq`."""
        set_seed(seed)
        positions = max(kwargs.get("max_target_length", 64) + 8, 128)
        model = frozen_encoder_seq2seq(checkpoint, d_model=d_model, layers=layers, heads=heads,
                                       max_positions=positions, dropout=dropout)
        return cls(model, load_tokenizer(checkpoint), backend="frozen-encoder", **kwargs)

    @classmethod
    def from_scratch(cls, tokenizer="minilm", *, d_model: int = 256, layers: int = 3,
                     heads: int = 4, ffn_dim: int | None = None, dropout: float = 0.1, seed: int = 0,
                     copy: bool = False, **kwargs) -> "Seq2Seq":
        """A small BART initialised at random (seeded) for a tokenizer: a local checkpoint's (MiniLM's by
        default) or a tokenizer object, e.g. one from :func:`proofbook.models.loading.train_wordpiece`; ``copy``
        adds a pointer that copies input tokens (:class:`proofbook.models.pointer.CopyBart`)."""
        tok = load_tokenizer(tokenizer) if isinstance(tokenizer, (str, os.PathLike)) else tokenizer
        set_seed(seed)
        positions = max(kwargs.get("max_input_length", 256), kwargs.get("max_target_length", 64), 128)
        model = small_seq2seq(len(tok), d_model=d_model, layers=layers, heads=heads, ffn_dim=ffn_dim,
                              max_positions=positions, dropout=dropout, copy=copy, **special_token_ids(tok))
        return cls(model, tok, backend="scratch", **kwargs)

    @classmethod
    def from_checkpoint(cls, folder: os.PathLike | str, **kwargs) -> "Seq2Seq":
        """Any local seq2seq checkpoint folder with its tokenizer; missing special ids come from the tokenizer."""
        tokenizer = load_tokenizer(folder)
        model = load_seq2seq(folder)
        generation = model.generation_config
        kept = {name: first_id(getattr(generation, name))
                for name in ("pad_token_id", "eos_token_id", "decoder_start_token_id")}
        if any(v is None for v in kept.values()):  # T5 tokenizers have no CLS/BOS: ask only when needed
            ids = special_token_ids(tokenizer)
            kept = {k: ids[k] if v is None else v for k, v in kept.items()}
        set_special_token_ids(model, **kept)
        return cls(model, tokenizer, backend="checkpoint", **kwargs)

    # -- encoding
    def encode_input(self, text: str) -> list[int]:
        """Encoder ids of ``text``: cut at the end to ``max_input_length`` tokens, special tokens kept."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"empty model input {text!r}")
        budget = self.max_input_length - len(self._prefix_ids) - len(self._suffix_ids)
        return self._framed(list(self.tokenizer(text, add_special_tokens=False)["input_ids"])[:budget])

    def _framed(self, ids: Sequence[int]) -> list[int]:
        """``ids`` between the tokenizer's special tokens (``[CLS] ... [SEP]``, ``<s> ... </s>``, ``... </s>``)."""
        return self._prefix_ids + list(ids) + self._suffix_ids

    def encode_target(self, text: str) -> list[int]:
        """Decoder label ids of ``text`` (cut to ``max_target_length`` - 1), then EOS."""
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return ids[:self.max_target_length - 1] + [self.eos_token_id]

    def decode(self, ids: Sequence[int]) -> str:
        """The text of token ids, special tokens dropped."""
        return self.tokenizer.decode(list(ids), skip_special_tokens=True).strip()

    def collate(self, batch: Sequence[tuple[Sequence[int], Sequence[int]]]) -> dict[str, torch.Tensor]:
        """A padded training batch of ``(input ids, label ids)`` pairs (:func:`collate` with this pad id)."""
        return collate(batch, self.pad_token_id)

    # -- training
    def fit(self, pairs: Sequence[tuple[str, str]], config: TrainConfig | None = None,
            dev_pairs: Sequence[tuple[str, str]] | None = None,
            evaluate: Callable[[torch.nn.Module], float] | None = None) -> TrainResult:
        """Maximum-likelihood training on ``(input, target)`` text pairs.

        Model selection (early stopping) uses ``evaluate(model)`` (higher is better) if given, else
        the mean target log-probability of ``dev_pairs`` if given, else none.
        """
        if not pairs:
            raise ValueError("fit: no training pairs")
        encoded = [self._encode_pair(i, (source, target)) for i, (source, target) in enumerate(pairs)]
        collate_fn = self.collate
        if self.backend == "frozen-encoder":   # the encoder does not change: its states once per input
            freeze_encoder(self.model)
            states = self.encoder_states([ids for ids, _ in encoded])
            collate_fn = lambda batch: collate_states(batch, states, self.pad_token_id)  # noqa: E731
        if evaluate is None and dev_pairs:
            dev = list(dev_pairs)
            evaluate = lambda model: float(sum(self.score([s for s, _ in dev], [t for _, t in dev])) / len(dev))  # noqa: E731
        return self._train(encoded, collate_fn, evaluate, config,
                           lengths=[len(ids) + len(labels) for ids, labels in encoded])

    def _train(self, encoded: Sequence[tuple[list[int], list[int]]], collate_fn: Callable, evaluate: Callable | None,
               config: TrainConfig | None, lengths: Sequence[int] | None = None) -> TrainResult:
        """:func:`proofbook.core.training.train` on encoded ``(input ids, label ids)`` pairs; the model is left
        in eval mode."""
        with warnings.catch_warnings():  # EncoderDecoderModel warns on every step that it computes the loss
            warnings.filterwarnings("ignore", message="Version v4.12.0 introduces", category=FutureWarning)
            result = train(self.model, encoded, collate_fn, evaluate, config or TrainConfig(), lengths=lengths)
        self.model.eval()
        return result

    def encoder_states(self, inputs: Sequence[Sequence[int]], batch_size: int = 32) -> dict[tuple, torch.Tensor]:
        """The encoder's last hidden states of each distinct input (ids -> ``[length, hidden]``, on the CPU)."""
        distinct = sorted({tuple(ids) for ids in inputs}, key=len)
        encoder, states = self.model.get_encoder(), {}
        encoder.eval()
        with torch.no_grad():
            for first in range(0, len(distinct), batch_size):
                chunk = distinct[first:first + batch_size]
                batch = collate([(ids, [0]) for ids in chunk], self.pad_token_id)
                hidden = encoder(input_ids=batch["input_ids"].to(self.device),
                                 attention_mask=batch["attention_mask"].to(self.device)).last_hidden_state.cpu()
                for row, ids in enumerate(chunk):
                    states[ids] = hidden[row, :len(ids)].clone()
        return states

    def _encode_pair(self, position: int, pair: tuple[str, str]) -> tuple[list[int], list[int]]:
        source, target = pair
        if not isinstance(target, str) or not target.strip():
            raise ValueError(f"training pair {position}: empty target {target!r} (input {source!r:.80})")
        try:
            return self.encode_input(source), self.encode_target(target)
        except ValueError as err:
            raise ValueError(f"training pair {position}: {err}") from None

    # -- scoring
    def score(self, inputs: Sequence[str], targets: Sequence[str], batch_size: int = 16) -> list[float]:
        """Mean log-probability per target token (EOS included) of each target given its input."""
        if len(inputs) != len(targets):
            raise ValueError(f"score: {len(inputs)} inputs but {len(targets)} targets")
        scores: list[float] = []
        self.model.eval()
        for first in range(0, len(inputs), batch_size):
            chunk = [self._encode_pair(first + i, pair)
                     for i, pair in enumerate(zip(inputs[first:first + batch_size], targets[first:first + batch_size]))]
            batch = {k: v.to(self.device) for k, v in self.collate(chunk).items()}
            with torch.no_grad():
                logits = self.model(**batch).logits.float()
            labels = batch["labels"]
            mask = labels != -100
            logprobs = torch.log_softmax(logits, dim=-1).gather(-1, labels.clamp(min=0)[:, :, None]).squeeze(-1)
            scores += ((logprobs * mask).sum(dim=1) / mask.sum(dim=1)).tolist()
        return scores

    # -- generation
    def generate(self, inputs: Sequence[str], *, beam: int = 1, num_return: int = 1, sample: bool = False,
                 top_p: float | None = None, temperature: float = 1.0, max_new_tokens: int | None = None,
                 constraints=None, batch_size: int = 8, seed: int | None = None) -> list[list[Generated]]:
        """Outputs per input, best first (sampling: in sampled order, duplicates kept).

        ``constraints``: ``None``, one :class:`~proofbook.index.constraints.SequenceConstraint` for
        every input, a list with one per input, or a callable ``input index -> constraint``.
        ``seed`` (sampling) makes the samples reproducible.
        """
        if beam < 1 or num_return < 1:
            raise ValueError(f"beam and num_return must be >= 1, got {beam} and {num_return}")
        if not sample and num_return > beam:
            raise ValueError(f"num_return ({num_return}) cannot exceed beam ({beam}) without sampling")
        if sample and beam != 1:
            raise ValueError("sampling here is plain (beam=1) nucleus sampling")
        encoded = []
        for position, text in enumerate(inputs):
            try:
                encoded.append(self.encode_input(text))
            except ValueError as err:
                raise ValueError(f"input {position}: {err}") from None
        if seed is not None:
            set_seed(seed, deterministic=False)
        return batched(encoded, batch_size, lambda chunk, first: self._generate_chunk(
            chunk, self._constraints_for(constraints, first, len(chunk)), beam=beam, num_return=num_return,
            sample=sample, top_p=top_p, temperature=temperature, max_new_tokens=max_new_tokens))

    @staticmethod
    def _constraints_for(constraints, first: int, count: int):
        if constraints is None:
            return None
        if callable(constraints) and not hasattr(constraints, "allowed"):
            return [constraints(first + i) for i in range(count)]
        if hasattr(constraints, "allowed"):
            return [constraints] * count
        return list(constraints[first:first + count])

    def _generate_chunk(self, chunk: list[list[int]], constraints, *, beam: int, num_return: int, sample: bool,
                        top_p: float | None, temperature: float, max_new_tokens: int | None) -> list[list[Generated]]:
        limit = max_new_tokens or self.max_target_length
        if constraints is not None:
            lengths = [c.max_length() for c in constraints]
            if all(n is not None for n in lengths):
                limit = min(limit, max(lengths) + 1)
        settings = dict(num_return_sequences=num_return, max_new_tokens=limit, forced_eos_token_id=None)
        if sample:
            settings.update(do_sample=True, num_beams=1, temperature=temperature, top_p=top_p or 1.0, top_k=0,
                            output_logits=True)
            if constraints is not None:  # generate() expands each input num_return times before sampling
                constraints = [c for c in constraints for _ in range(num_return)]
        elif beam > 1:
            settings.update(do_sample=False, num_beams=beam, length_penalty=1.0, early_stopping=False,
                            output_scores=True)
        else:
            settings.update(do_sample=False, num_beams=1, output_logits=True)
        tokens, scores = self._run_generate(chunk, constraints, **settings)
        results = []
        for item in range(len(chunk)):
            outputs = []
            for row in range(item * num_return, (item + 1) * num_return):
                if not scores[row] > FILLER_SCORE:
                    continue
                ids = tokens[row].tolist()
                if self.eos_token_id in ids:
                    ids = ids[:ids.index(self.eos_token_id)]
                ids = [t for t in ids if t != self.pad_token_id]
                outputs.append(Generated(self.decode(ids), tuple(ids), float(scores[row])))
            if not sample:
                outputs.sort(key=lambda g: -g.score)
            results.append(outputs)
        return results

    def _run_generate(self, chunk: Sequence[Sequence[int]], constraints,
                      **settings) -> tuple[torch.Tensor, list[float]]:
        """One ``generate()`` call on encoder ids, with ``settings`` and no repetition rules or forced BOS: the
        output tokens (decoder start dropped) and their scores -- beam search's length-normalised
        ``sequences_scores`` when ``output_scores`` is set, else :func:`mean_logprob` under the returned logits."""
        batch = self.collate([(ids, [self.eos_token_id]) for ids in chunk])
        settings.update(no_repeat_ngram_size=0, repetition_penalty=1.0, min_length=0, return_dict_in_generate=True,
                        forced_bos_token_id=None)
        if constraints is not None:
            settings["prefix_allowed_tokens_fn"] = prefix_allowed_tokens_fn(constraints)
        with torch.no_grad(), quiet_transformers():
            out = self.model.generate(input_ids=batch["input_ids"].to(self.device),
                                      attention_mask=batch["attention_mask"].to(self.device), **settings)
        tokens = out.sequences[:, 1:]  # drop the decoder start token
        if settings.get("output_scores"):
            return tokens, out.sequences_scores.tolist()
        return tokens, mean_logprob(out.logits, tokens, self.eos_token_id)

    # -- persistence
    def _settings(self) -> dict:
        """What :meth:`save` writes into :attr:`SETTINGS_FILE`: the keyword arguments :meth:`load` passes back."""
        return {"max_input_length": self.max_input_length, "max_target_length": self.max_target_length,
                "backend": self.backend, "model_class": type(self.model).__name__}

    def save(self, folder: os.PathLike | str) -> Path:
        """Write model, tokenizer and settings into ``folder`` (usable with ``object_codec``)."""
        return save_with_settings(folder, self.model, self.tokenizer, self.SETTINGS_FILE, self._settings())

    @classmethod
    def load(cls, folder: os.PathLike | str, device: str | None = None) -> "Seq2Seq":
        """A model written by :meth:`save`."""
        folder, model, settings = cls._read_saved(folder)
        return cls(model, load_tokenizer(folder), device=device, **settings)

    @classmethod
    def _read_saved(cls, folder: os.PathLike | str) -> tuple[Path, torch.nn.Module, dict]:
        """The checked folder, the model and the other settings :meth:`save` wrote there."""
        import transformers

        folder = resolve_checkpoint(folder)
        settings = read_settings(folder, cls.SETTINGS_FILE, cls.SAVED_BY)
        model_class = settings.pop("model_class")
        model = load_model(CopyBart if model_class == "CopyBart" else getattr(transformers, model_class), folder)
        return folder, model, settings

