"""Persistence on SQLite or PostgreSQL: rooms, matches, hands, players, and the migrations."""
