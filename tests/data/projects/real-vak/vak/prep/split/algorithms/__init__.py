from .bruteforce import brute_force

__all__ = ["brute_force"]
