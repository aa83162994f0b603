"""Modules used for building the models."""
