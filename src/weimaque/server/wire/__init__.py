"""A player's WebSocket messages (docs/protocol.md §2), both ways: typed and strictly parsed."""
