"""Grounding: every sentence of a released answer is supported by the protected context or the question.

The enforcer class is :class:`enforcers.grounding.enforcer.GroundingEnforcer`; the check itself is
:func:`enforcers.grounding.support.ground`.
"""
