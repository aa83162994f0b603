"""This package options includes option modules: training options, test options, and basic options (used in both training and test)."""
