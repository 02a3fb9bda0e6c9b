"""Need-to-Know query rewriting: forward what the task needs, remove or generalize the rest (contextual integrity).

The enforcer class is :class:`enforcers.query_rewrite.enforcer.QueryRewriteEnforcer`; the rewriter itself is
:class:`enforcers.query_rewrite.rewriter.QueryRewriter` (:func:`~enforcers.query_rewrite.rewriter.rewrite_query` for one query).
"""
