"""proofbook.retrieval (filled by the paper issues)."""
