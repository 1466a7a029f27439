"""Provers: AdMIRaL's natural-logic proofs and sufficiency check, and Entailer's entailment trees (``entailer``)."""
