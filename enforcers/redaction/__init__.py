"""Redaction: extractive and periphrastic replacement of what a policy protects (SD-RAG Section III-C2).

The enforcer class is :class:`enforcers.redaction.enforcer.RedactionEnforcer`; the redaction itself is
:class:`enforcers.redaction.redactor.Redactor`.
"""
