"""The label vocabularies shared by the NLI readers and the MED 2-hop reader.

Every :class:`~proofbook.data.nli.NliPair` (SICK, SciTail, MED) carries one of three labels
(:data:`NLI_LABELS`); MED (Yanaka et al. 2019, the Monotonicity Entailment Dataset) writes them in
MNLI's lower case (:data:`MED_LABELS`), and its 2-hop variant (Feng et al., Neural Natural Logic) names
natural-logic relations that map to ProoFVer's operators (:data:`MED_2HOP_RELATIONS`), the operators of
AdMIRaL's natural-logic proofs (Aly & Vlachos 2022, §3.2).  The readers that use them are in
:mod:`proofbook.data.nli` and :mod:`proofbook.data.med_2hop`.
"""
from __future__ import annotations

ENTAILMENT, NEUTRAL, CONTRADICTION = "ENTAILMENT", "NEUTRAL", "CONTRADICTION"
#: the labels of every :class:`NliPair`
NLI_LABELS = (ENTAILMENT, NEUTRAL, CONTRADICTION)
#: MNLI-style labels of MED (MED itself uses entailment / neutral; neutral includes contradiction)
MED_LABELS = {"entailment": ENTAILMENT, "neutral": NEUTRAL, "contradiction": CONTRADICTION}
#: the natural-logic relations of med_2hop.tsv and the ProoFVer operator of each
#: (see :data:`proofbook.data.natlog.OPERATORS`)
MED_2HOP_RELATIONS = {"ent_f": "<", "ent_r": ">", "alt": "|", "ind": "#"}
