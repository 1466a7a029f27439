"""Models: loading local checkpoints, one training loop, the artifact cache, the cross-encoder.

Shared by all three papers: AdMIRaL's reranker, operator model
and seq2seq retriever/prover; the veracity classifier of claims in the wild; Entailer's scorers and
premise generator.  Weights load only from local folders (``"minilm"`` is the packaged
all-MiniLM-L6-v2).
"""
from proofbook.models.cache import (ArtifactCache, CacheCorruptionWarning, Codec, file_fingerprint, fingerprint,
                                    hf_codec, json_codec, object_codec, pickle_codec, verify_entry)
from proofbook.models.cross_encoder import CrossEncoder, accuracy, macro_f1
from proofbook.models.loading import (CheckpointError, load_classifier, load_encoder, load_model, load_seq2seq,
                                      load_tokenizer, minilm_path, quiet_transformers, resolve_checkpoint,
                                      set_special_token_ids, small_seq2seq, special_token_ids, train_wordpiece,
                                      warm_start_seq2seq_from_encoder)
from proofbook.models.seq2seq import Generated, Seq2Seq
from proofbook.models.training import Evaluation, TrainConfig, TrainResult, batch_order, default_loss, set_seed, train

__all__ = [
    "ArtifactCache", "CacheCorruptionWarning", "CheckpointError", "Codec", "CrossEncoder", "Evaluation",
    "TrainConfig", "TrainResult", "accuracy", "batch_order", "default_loss", "file_fingerprint", "fingerprint", "hf_codec",
    "Generated", "Seq2Seq", "json_codec", "load_classifier", "load_encoder", "load_model", "load_seq2seq", "load_tokenizer", "macro_f1",
    "minilm_path", "object_codec", "pickle_codec", "quiet_transformers", "resolve_checkpoint",
    "set_seed", "set_special_token_ids", "small_seq2seq", "special_token_ids", "train", "train_wordpiece", "verify_entry",
    "warm_start_seq2seq_from_encoder",
]
