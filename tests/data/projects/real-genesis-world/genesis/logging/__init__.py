from .logger import Logger
