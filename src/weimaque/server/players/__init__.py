"""The HTTP API of players, their devices, passkeys and 亲友圈 (docs/protocol.md §7)."""
