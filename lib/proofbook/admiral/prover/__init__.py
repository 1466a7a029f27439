"""AdMIRaL's natural logic: proofs, their operators and verdicts, and the sufficiency check (§3.3-3.4).

Its modules, in reading order:

- :mod:`~proofbook.admiral.prover.natlog` -- the ProoFVer proof object, the verdict automaton, and its renderings;
- :mod:`~proofbook.admiral.prover.alignment` -- chunking a claim and aligning its chunks to evidence spans;
- :mod:`~proofbook.admiral.prover.operators` -- the operator model: a MiniLM cross-encoder over (claim span,
  evidence span) -> natural-logic operator;
- :mod:`~proofbook.admiral.prover.aligned_proofs` -- aligned proofs (the default builder): chunk the claim, align
  each chunk to an evidence span, predict its operator;
- :mod:`~proofbook.admiral.prover.wordnet` -- WordNet offline, for the lexical baseline;
- :mod:`~proofbook.admiral.prover.lexical` -- the lexical-resource baseline: operators from WordNet relations and
  negation cues;
- :mod:`~proofbook.admiral.prover.proof_format` -- the proof generator's input and output, and its constrained
  decoding;
- :mod:`~proofbook.admiral.prover.proofgen_settings` -- the proof generator's settings;
- :mod:`~proofbook.admiral.prover.training_proofs` -- the proof generator's training proofs (ProoFVer's heuristic
  proofs);
- :mod:`~proofbook.admiral.prover.proofgen` -- the proof generator: a seq2seq model writing proofs, decoded under
  claim/evidence constraints;
- :mod:`~proofbook.admiral.prover.sufficiency` -- the sufficiency rules: does the selected evidence suffice to
  verify the claim?
- :mod:`~proofbook.admiral.prover.trained_prover` -- the trained prover and the settings it is trained with;
- :mod:`~proofbook.admiral.prover.calibration` -- the rules' thresholds, chosen on training-claim selections (a
  stated departure);
- :mod:`~proofbook.admiral.prover.stopping` -- when to stop retrieving: the truth at each decision point and the
  stopping simulation;
- :mod:`~proofbook.admiral.prover.sufficiency_experiments` -- what the natural-logic and sufficiency chapters call:
  training, the multi-hop traces, the result rows;
- :mod:`~proofbook.admiral.prover.proof_showcase` -- the natural-logic chapter's showcase: a few-shot proof with an
  independence step.
"""
