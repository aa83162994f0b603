# Model modules are imported at the top-level __init__.py to trigger registration.
