"""gswarp internal package."""
