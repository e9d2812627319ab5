# Feedwatch container: build wheels in one stage, run them in a slim, non-root runtime.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml constraints.txt README.md alembic.ini ./
COPY bot ./bot
COPY alembic ./alembic
RUN pip wheel --no-cache-dir --wheel-dir /wheels -c constraints.txt .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DATABASE_URL=sqlite:////data/feedwatch.db
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home feedwatch \
    && mkdir -p /data \
    && chown feedwatch:feedwatch /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index /wheels/*.whl && rm -rf /wheels
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=60s --timeout=15s --start-period=120s --retries=3 \
    CMD ["python", "-m", "bot", "health"]
ENTRYPOINT ["python", "-m", "bot"]
CMD ["run"]
