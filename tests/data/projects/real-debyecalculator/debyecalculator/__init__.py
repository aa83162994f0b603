from .debye_calculator import DebyeCalculator
