"""What faces the network: the HTTP API, the sockets, remote bots, the relay to a room's owner."""
