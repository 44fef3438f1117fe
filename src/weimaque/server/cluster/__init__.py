"""Who holds which room: leases in Redis (docs/scale.md) and the rooms this process holds."""
