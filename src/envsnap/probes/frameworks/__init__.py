"""The ``frameworks`` section: probe.py runs _framework_probe.py inside the target interpreter, cache.py
keeps its answers, results.py turns them into model sections."""
