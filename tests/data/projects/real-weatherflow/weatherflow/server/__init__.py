"""FastAPI integration for the WeatherFlow experimentation service."""

from .app import create_app

__all__ = ["create_app"]
