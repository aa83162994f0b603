from .server import app
