"""

TextAttack commands Package
===========================

"""

from abc import ABC, abstractmethod
from .textattack_command import TextAttackCommand
from . import textattack_cli
