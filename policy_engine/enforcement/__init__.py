"""Enforcement primitives: the context enforcers share, the fail-closed pipeline and the enforcer registry."""
