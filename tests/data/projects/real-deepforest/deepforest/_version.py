__version__ = "2.1.0"
# Version updated using bump-my-version
