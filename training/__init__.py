"""Training-data generators and model fitting: a source checkout's tools, never installed with the package.

The runtime (``policy_engine``, ``enforcers``, ``audit``) loads and serves what
these modules produce and never imports them; ``policy-engine guard train``
loads them from the checkout (:mod:`policy_engine.cli.guard`).
"""
