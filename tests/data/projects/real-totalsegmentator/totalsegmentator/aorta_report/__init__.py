"""Support code for the TotalSegmentator aorta report."""

# VERSION = "0.1.1"  # base version
VERSION = "0.1.2"  # migrated to totalsegmentator repo and major refactoring
