# Configuration file for the Sphinx documentation builder.
#
# This file only contains a selection of the most common options. For a full
# list see the documentation:
# https://www.sphinx-doc.org/en/master/usage/configuration.html

# -- Path setup --------------------------------------------------------------

# If extensions (or modules to document with autodoc) are in another directory,
# add these directories to sys.path here. If the directory is relative to the
# documentation root, use os.path.abspath to make it absolute, like shown here.
#
# import os
# import sys
# sys.path.insert(0, os.path.abspath('.'))

import datetime
import os
import shutil
import subprocess
import sys

import sphinx_rtd_theme

sys.path.insert(0, os.path.abspath(".."))

subprocess.run(
    [
        "sphinx-apidoc",
        "--ext-autodoc",
        "--ext-doctest",
        "--ext-mathjax",
        "--ext-viewcode",
        "-e",
        "-T",
        "-M",
        "-F",
        "-P",
        "-f",
        "-o",
        "generated",
        "../catenets/",
    ]
)
# -- Project information -----------------------------------------------------
now = datetime.datetime.now()

project = "CATENets"
author = "Alicia Curth"
copyright = f"{now.year}, {author}"


# -- General configuration ---------------------------------------------------

# Add any Sphinx extension module names here, as strings. They can be
# extensions coming with Sphinx (named 'sphinx.ext.*') or your custom
# ones.
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "m2r2",
]
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    "inherit_docstrings": False,
}


add_module_names = False
autosummary_generate = True

# Add any paths that contain templates here, relative to this directory.
templates_path = ["_templates"]

# List of patterns, relative to source directory, that match files and
# directories to ignore when looking for source files.
# This pattern also affects html_static_path and html_extra_path.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]


# -- Options for HTML output -------------------------------------------------

# The theme to use for HTML and HTML Help pages.  See the documentation for
# a list of builtin themes.
#
html_theme = "sphinx_rtd_theme"

# Add any paths that contain custom static files (such as style sheets) here,
# relative to this directory. They are copied after the builtin static files,
# so a file named "default.css" will overwrite the builtin "default.css".
html_static_path = ["_static"]
