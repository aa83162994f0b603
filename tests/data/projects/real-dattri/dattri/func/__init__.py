"""dattri.func for some low-level core function of data attribution."""
