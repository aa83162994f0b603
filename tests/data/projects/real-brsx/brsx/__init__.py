"""brsx — AutoForge

Usage:
    from brsx import automodel
    automodel.run()
"""

__version__ = "0.1.0"
