"""Module for force-fields."""
