"""This folder contains all plugin-related code."""
