from .core import Chat
