"""Record bundles, torch-free: what a manifest holds (model.py), reading one distrustfully (check.py),
writing one atomically (write.py)."""
