"""Models: loading local checkpoints, the cross-encoder, the seq2seq wrapper, the chat client.

Its modules, in reading order:

- :mod:`~proofbook.models.loading` -- loading models from local folders only: MiniLM, classifiers, seq2seq models;
- :mod:`~proofbook.models.cross_encoder` -- the cross-encoder: a MiniLM (or any local encoder) scoring a text pair
  into k classes;
- :mod:`~proofbook.models.seq2seq` -- the shared seq2seq model: train on text pairs, generate, score;
- :mod:`~proofbook.models.decoding` -- the helpers around transformers' ``generate()``: constraints, scores,
  batching;
- :mod:`~proofbook.models.pointer` -- a copy (pointer) mechanism for a small BART trained from scratch;
- :mod:`~proofbook.models.llm` -- one OpenAI-compatible chat client for every LLM prompt in the book.

Shared by all three papers: AdMIRaL's reranker, operator model and seq2seq retriever/prover; the veracity
classifier of claims in the wild; Entailer's scorers and premise generator.  Weights load only from local
folders (``"minilm"`` is the packaged all-MiniLM-L6-v2).  The training loop and the artifact cache these
models are trained and stored with live one layer down, in :mod:`proofbook.core.training` and
:mod:`proofbook.core.cache`.
"""
from proofbook.models.cross_encoder import CrossEncoder, accuracy, macro_f1
from proofbook.models.loading import (CheckpointError, hf_codec, load_classifier, load_encoder, load_model,
                                      load_seq2seq, load_tokenizer, minilm_path, quiet_transformers,
                                      resolve_checkpoint, set_special_token_ids, small_seq2seq, special_token_ids,
                                      train_wordpiece, warm_start_seq2seq_from_encoder)
from proofbook.models.seq2seq import Generated, Seq2Seq

__all__ = [
    "CheckpointError", "CrossEncoder", "Generated", "Seq2Seq", "accuracy", "hf_codec", "load_classifier",
    "load_encoder", "load_model", "load_seq2seq", "load_tokenizer", "macro_f1", "minilm_path",
    "quiet_transformers", "resolve_checkpoint", "set_special_token_ids", "small_seq2seq",
    "special_token_ids", "train_wordpiece", "warm_start_seq2seq_from_encoder",
]
