"""AdMIRaL's natural logic: proofs, their operators and verdicts, and the sufficiency check (§3.3-3.4)."""
