"""Local deployments of the server's parts, from Debian's packages."""
