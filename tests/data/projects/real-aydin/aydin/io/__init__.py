# flake8: noqa
from aydin.io.io import imread
