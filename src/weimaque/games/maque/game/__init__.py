"""One hand of 偎麻雀: the state and its claim windows, actions, frozen events, views, records."""
