# VERSION = "0.2.0"  # base version
VERSION = "0.2.1"  # migrated to totalsegmentator repo and major refactoring

__all__ = ["VERSION"]
