from .interface import MolScribe
