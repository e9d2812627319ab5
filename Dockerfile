# Feedwatch container: a virtualenv built in one stage, copied alone into a slim, non-root runtime.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
RUN python -m venv /opt/venv
# Dependencies first, in their own layer: a code change does not download them again.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
    && /opt/venv/bin/pip install -c constraints.txt -r requirements.txt
COPY README.md alembic.ini ./
COPY bot ./bot
COPY alembic ./alembic
# The runtime needs neither pip nor setuptools, nor Babel's data for languages it never speaks.
RUN /opt/venv/bin/pip install --no-deps . \
    && /opt/venv/bin/pip uninstall --yes pip setuptools \
    && find /opt/venv/lib/python3.11/site-packages/babel/locale-data -name '*.dat' \
       ! -name 'root.dat' ! -name 'en*' ! -name 'es*' ! -name 'zh*' -delete

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    DATABASE_URL=sqlite:////data/feedwatch.db
RUN groupadd --system --gid 10001 feedwatch \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home feedwatch \
    && mkdir -p /data \
    && chown feedwatch:feedwatch /data
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=60s --timeout=15s --start-period=120s --retries=3 \
    CMD ["python", "-m", "bot", "health"]
ENTRYPOINT ["python", "-m", "bot"]
CMD ["run"]
