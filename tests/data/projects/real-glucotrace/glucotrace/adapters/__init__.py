"""Adapters from approved source datasets to canonical CGM days.

Import adapters from their source modules, for example
``glucotrace.adapters.big_ideas``. Keeping this package initializer empty also
allows each adapter to run cleanly as ``python -m``.
"""
