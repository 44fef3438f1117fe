"""The conformance kit: every registered game, every variant, through the protocol alone."""
