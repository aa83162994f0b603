# __init__.py
# Author: Apurva Dani <apurvadani@gmail.com>


__version__ = '0.1'