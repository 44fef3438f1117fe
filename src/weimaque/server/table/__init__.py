"""A room and its parts: seats, the hand driver, clocks, bots, votes, what each viewer is sent."""
