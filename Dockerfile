# «Пики» Telegram bot. Build: docker build -t piki .
# Run:   docker run -d --env-file .env -v piki-data:/data --restart unless-stopped piki
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first, in their own layer: it is rebuilt only when pyproject.toml changes.
COPY pyproject.toml ./
RUN mkdir -p bot engine \
    && touch bot/__init__.py engine/__init__.py \
    && pip install . \
    && pip uninstall -y piki \
    && rm -rf bot engine build *.egg-info

COPY engine ./engine
COPY bot ./bot
COPY locales ./locales
# The code runs from /app (PYTHONPATH), the bot from /data: a relative
# DATABASE_PATH (say, spades.db from a copied .env) lands on the volume too.
ENV PYTHONPATH=/app

# A non-root user; /data is its only writable place. The database runs in WAL
# mode, so the volume must be a local filesystem (not NFS/SMB).
RUN groupadd --system --gid 10001 piki \
    && useradd --system --uid 10001 --gid piki --home-dir /app --shell /usr/sbin/nologin piki \
    && mkdir -p /data \
    && chown piki:piki /data
USER piki

ENV DATABASE_PATH=/data/spades.db
VOLUME ["/data"]
WORKDIR /data

# Healthy while the deadline loop beats (every second, into the database).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.health"]

# `python -m bot` handles SIGTERM and shuts down cleanly (the outbox gets a grace period).
STOPSIGNAL SIGTERM
# Webhook mode only (WEBHOOK_URL set); long polling needs no port.
EXPOSE 8080
CMD ["python", "-m", "bot"]
