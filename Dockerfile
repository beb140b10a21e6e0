# Crisp server image. See docs/deploy.md.
#
#   docker build -t crisp .
#   docker run --init --rm -p 8000:8000 crisp                  # in-memory store, one process
#   docker compose up                                         # with Redis (docker-compose.yml)
#
# Needs BuildKit (the default builder of Docker 23+ and of `docker compose`), or
# Buildah/podman: the pip cache below is a cache mount, so it speeds up rebuilds
# without ending up in the image. No `# syntax=` line on purpose: the builder's
# own Dockerfile frontend reads this file, so a build needs no frontend image
# from a registry (docs/deploy.md, "Package mirrors and proxies").
#
# tests/ops/test_dockerfile.py replays the builder stage (its ENV, WORKDIR,
# COPY and RUN lines, as written) in a plain venv on the host, so keep the
# builder's RUN lines plain POSIX sh that refers to the venv only through
# "$VIRTUAL_ENV" / PATH. .ci/container-check builds it for real.

# Override to pin a digest: --build-arg PYTHON_IMAGE=python:3.11-slim@sha256:...
# or to build on a base that trusts a TLS-intercepting proxy (docs/deploy.md).
ARG PYTHON_IMAGE=python:3.11-slim

# --- builder: a self-contained venv at /opt/venv with crisp and its dependencies ---
FROM ${PYTHON_IMAGE} AS builder

ENV VIRTUAL_ENV=/opt/venv \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# A package mirror: --build-arg PIP_INDEX_URL=https://mirror.example/simple
# (empty: PyPI). Build arguments of this stage stay out of the final image.
ARG PIP_INDEX_URL=
WORKDIR /build
# A venv without pip/setuptools of its own (~15 MB less in the image): the
# base image's pip installs into it with --python.
RUN python -m venv --without-pip "$VIRTUAL_ENV"
ENV PATH="$VIRTUAL_ENV/bin:$PATH"

# Dependencies first: the server's locked versions, every file checked against its
# hash (requirements-runtime.lock, made by `bash .ci/lock`; docs/testing.md). This
# layer is rebuilt only when the lock changes, not on every code change.
COPY requirements-runtime.lock ./
RUN --mount=type=cache,target=/root/.cache/pip \
    pip --python "$VIRTUAL_ENV/bin/python" install --require-hashes -r requirements-runtime.lock

# Then the package itself (a regular, non-editable install into the venv; its
# dependencies are all there already, which `pip check` confirms).
COPY pyproject.toml ./
COPY crisp ./crisp
RUN --mount=type=cache,target=/root/.cache/pip \
    pip --python "$VIRTUAL_ENV/bin/python" install --no-deps . \
 && pip --python "$VIRTUAL_ENV/bin/python" check

# --- runtime: the venv and the static client, nothing else ---
FROM ${PYTHON_IMAGE} AS runtime

LABEL org.opencontainers.image.title="crisp" \
      org.opencontainers.image.description="Self-hostable server and phone web client for the card game Crisp" \
      org.opencontainers.image.licenses="MIT"

# The server reads only CRISP_* variables (see the README's settings table).
# CRISP_HOST must be 0.0.0.0 in a container, or the published port reaches nothing.
# CRISP_WEB_DIR is explicit: the installed package lives in site-packages, so the
# default (next to the package) would not find web/.
ENV VIRTUAL_ENV=/opt/venv
ENV PATH="$VIRTUAL_ENV/bin:$PATH" \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CRISP_HOST=0.0.0.0 \
    CRISP_PORT=8000 \
    CRISP_LOG_FORMAT=json \
    CRISP_WEB_DIR=/app/web

RUN groupadd --system --gid 10001 crisp \
 && useradd --system --uid 10001 --gid crisp --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin crisp

COPY --from=builder /opt/venv /opt/venv
WORKDIR /app
COPY web/ /app/web/

# Numeric, so that runtimes enforcing "run as non-root" can check it.
USER 10001:10001

EXPOSE 8000

# uvicorn shuts down gracefully on SIGTERM (closing websockets with 1012 so
# clients reconnect). CMD is exec form, so `crisp` is PID 1 and gets the signal
# itself; for zombie reaping with CRISP_WORKERS > 1, run with `--init` (compose:
# `init: true`).
STOPSIGNAL SIGTERM

# Liveness without curl: the image's own Python. Any error or non-2xx -> exit 1.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('CRISP_PORT', '8000'), timeout=4)"]

CMD ["crisp", "serve"]
