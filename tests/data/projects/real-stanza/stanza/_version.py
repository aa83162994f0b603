""" Single source of truth for version number """

__version__ = "1.15.0"
__resources_version__ = '1.15.0'
