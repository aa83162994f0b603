from helpers.random import *
from helpers.map import *
