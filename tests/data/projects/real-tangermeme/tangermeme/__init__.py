# tangermeme: biological sequence analysis for the modern age
# Author: Jacob Schreiber

__version__ = '1.6.0'
