"""Classes and a wrapper to handle the whole problem of a pde, including
the pde, variables and their domains and boudary conditions"""
