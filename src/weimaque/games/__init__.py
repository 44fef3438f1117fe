"""The games the platform hosts, one package each."""
