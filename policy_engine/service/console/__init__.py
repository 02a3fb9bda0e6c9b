"""The review console: server-rendered pages over the output guard's review queue, the audit log and the budget ledger.

:mod:`.sessions` holds the browser sessions (an API key logs in once; the
cookie carries a random token, never the key), :mod:`.views` reads what the
pages show (sanitized: no raw value reaches a page), :mod:`.routes` adds the
``/console`` pages to the service app.  Plain HTML and one CSS file shipped
in the package: no script, no external resource.
"""
