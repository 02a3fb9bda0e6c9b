"""``policy-engine serve``: the engine as a long-running ASGI service (FastAPI + uvicorn).

Each bundle is opened once (:meth:`policy_engine.engine.runtime.Engine.open`)
and serves many requests; the principal comes from the API key the request
authenticates with (:mod:`policy_engine.service.config`), never from its body.
:func:`policy_engine.service.app.create_app` builds the application,
:mod:`policy_engine.service.command` is the ``serve`` command, and
:mod:`policy_engine.service.openapi` keeps ``schemas/service.openapi.json``
in step with the routes.  Nothing below the service layer imports it.
"""
