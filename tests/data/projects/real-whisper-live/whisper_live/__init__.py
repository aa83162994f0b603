from whisper_live.__version__ import __version__

__all__ = ['__version__']
