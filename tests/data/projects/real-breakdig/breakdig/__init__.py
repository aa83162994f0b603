"""Find bar-exact drum breaks, acapellas and other sections in your own music library."""

__version__ = "0.2.0"
