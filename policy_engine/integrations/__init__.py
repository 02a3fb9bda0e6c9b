"""Protect what a RAG framework retrieved: LangChain and LlamaIndex adapters over the engine, in process or via the service.

:mod:`policy_engine.integrations.protector` holds the framework-free part: a
:class:`~policy_engine.integrations.protector.Protector` sanitizes a batch of
retrieved ``(id, text)`` chunks under the policy (one decision record per
batch) either in process (:class:`EngineProtector`) or through
``policy-engine serve`` (:class:`ServiceProtector`, ``POST /v1/protect-passages``).
:mod:`~policy_engine.integrations.langchain` (extra ``[langchain]``) and
:mod:`~policy_engine.integrations.llamaindex` (extra ``[llamaindex]``) adapt it;
neither framework is imported unless its module is.
"""
