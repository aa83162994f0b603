"""Trackers whose primary tracked representation is an instance mask.

This namespace intentionally exposes no implementation base or public tracker
classes. Add shared machinery only when multiple mask trackers enforce the same
meaningful invariants; import public trackers through :mod:`boxmot`.
"""
