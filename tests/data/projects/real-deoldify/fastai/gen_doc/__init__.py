from . import gen_notebooks, nbdoc, core, doctest, nbtest
