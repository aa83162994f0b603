""" Tools for importing modules and packages"""
from .import_module_utils import import_module_from_path
from .importer import DynamicModuleLoader, LazyMocker
