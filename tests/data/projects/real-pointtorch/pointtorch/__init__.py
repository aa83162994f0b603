"""Classes and methods that are available in the top-level namespace."""

from pointtorch.core import *
