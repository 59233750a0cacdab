"""Telegram front end of «Пики»: handlers, services, storage and the durable outbox."""
