"""Getting back to a snapshot: the plan (requirements, conda, script) and applying it with pip."""
