"""The ``wmq`` command line."""

from weimaque.cli.app import app, main

__all__ = ["app", "main"]
