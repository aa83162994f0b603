"""Many hosts at once: the N-way view of snapshots grouped against a reference."""
