"""The ``python`` and ``packages`` sections: probe.py runs _target_env.py (standard library only)
inside the target interpreter and reads its answer."""
