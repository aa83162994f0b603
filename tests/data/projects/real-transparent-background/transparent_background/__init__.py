from transparent_background.Remover import Remover, console
from transparent_background.gui import gui