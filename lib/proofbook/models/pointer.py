"""A copy (pointer) mechanism for a small BART trained from scratch.

ProoFVer's proofs (Krishna et al. 2022; AdMIRaL §3.2) are mostly spans copied from the claim and the
evidence.  BART-large learns to copy in pretraining; a small BART trained from scratch on a thousand proofs
does not (the proof generator's docstring records what it writes instead).  The pointer-generator of See
et al. (2017, "Get To The Point", §2.2) adds the missing ability explicitly: at every decoder step an
attention over the encoder states gives a *copy distribution* over the input tokens, and a learned gate
``p_gen`` mixes it with the usual vocabulary distribution:

    P(w) = p_gen * P_vocab(w) + (1 - p_gen) * sum_{i: x_i = w} a_i

:class:`CopyBart` returns ``log P`` as its logits, so beam search, constrained decoding
(``prefix_allowed_tokens_fn``) and the mean log-probability scores work unchanged: a log-softmax of
log-probabilities that already sum to one leaves them as they are.
"""
from __future__ import annotations

import math

import torch
from torch import nn
from transformers import BartForConditionalGeneration
from transformers.modeling_outputs import Seq2SeqLMOutput
from transformers.models.bart.modeling_bart import shift_tokens_right

#: the smallest probability a token can get, so that its log stays finite
FLOOR = 1e-10


class CopyBart(BartForConditionalGeneration):
    """BART whose output distribution mixes generation with copying from the input (See et al. 2017)."""

    def __init__(self, config):
        super().__init__(config)
        self.copy_query = nn.Linear(config.d_model, config.d_model, bias=False)
        self.copy_gate = nn.Linear(2 * config.d_model, 1)
        self.post_init()

    def generate(self, input_ids=None, **kwargs):
        """``generate`` that hands the input ids on to every decoder step (``source_ids``) for copying."""
        return super().generate(input_ids=input_ids, source_ids=input_ids, **kwargs)

    def copy_distribution(self, decoder_states, encoder_states, attention_mask, source_ids, vocab_logits):
        """``log P(w)`` at every decoder position: the gate's mix of ``softmax(vocab_logits)`` and the copy
        attention's weights summed per input token id."""
        scores = self.copy_query(decoder_states) @ encoder_states.transpose(1, 2) / math.sqrt(decoder_states.shape[-1])
        if attention_mask is not None:
            scores = scores.masked_fill(attention_mask[:, None, :] == 0, torch.finfo(scores.dtype).min)
        attention = torch.softmax(scores, dim=-1)
        context = attention @ encoder_states
        gate = torch.sigmoid(self.copy_gate(torch.cat([decoder_states, context], dim=-1)))
        probs = gate * torch.softmax(vocab_logits.float(), dim=-1)
        index = source_ids[:, None, :].expand(-1, decoder_states.shape[1], -1)
        probs = probs.scatter_add(-1, index, ((1 - gate) * attention).to(probs.dtype))
        return torch.log(probs.clamp_min(FLOOR))

    def forward(self, input_ids=None, attention_mask=None, decoder_input_ids=None, decoder_attention_mask=None,
                encoder_outputs=None, cache=None, labels=None, use_cache=None, source_ids=None, **kwargs):
        """BART's forward pass with ``log P(w)`` (:meth:`copy_distribution`) as the logits and an NLL loss on
        ``labels``; a ValueError without ``source_ids`` or ``input_ids`` to copy from."""
        if labels is not None and decoder_input_ids is None:
            decoder_input_ids = shift_tokens_right(labels, self.config.pad_token_id, self.config.decoder_start_token_id)
        source_ids = input_ids if source_ids is None else source_ids
        if source_ids is None:
            raise ValueError("CopyBart needs the input ids (input_ids or source_ids) to copy from")
        outputs = self.model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=decoder_input_ids,
                             decoder_attention_mask=decoder_attention_mask, encoder_outputs=encoder_outputs,
                             cache=cache, use_cache=use_cache, **kwargs)
        vocab_logits = self.lm_head(outputs.last_hidden_state) + self.final_logits_bias.to(self.lm_head.weight.device)
        logits = self.copy_distribution(outputs.last_hidden_state, outputs.encoder_last_hidden_state, attention_mask,
                                        source_ids, vocab_logits)
        loss = None
        if labels is not None:
            loss = nn.functional.nll_loss(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100)
        return Seq2SeqLMOutput(loss=loss, logits=logits, cache=outputs.cache,
                               decoder_hidden_states=outputs.decoder_hidden_states,
                               decoder_attentions=outputs.decoder_attentions, cross_attentions=outputs.cross_attentions,
                               encoder_last_hidden_state=outputs.encoder_last_hidden_state,
                               encoder_hidden_states=outputs.encoder_hidden_states,
                               encoder_attentions=outputs.encoder_attentions)
