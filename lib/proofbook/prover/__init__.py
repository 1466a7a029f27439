"""proofbook.prover (filled by the paper issues)."""
