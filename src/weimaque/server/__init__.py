"""The browser game server: rooms, the WebSocket protocol (docs/protocol.md), persistence."""
