from .validator import Validator
