"""proofbook.classifier (filled by the paper issues)."""
