# _skills
# Contact: Jacob Schreiber <jmschreiber91@gmail.com>

"""Bundled Claude Code Agent Skill and its installer.

This subpackage keeps the tangermeme Agent Skill (the ``data/`` directory) and the
command that installs it (``install.py``) together and out of the main module
namespace. See ``install.py`` for usage.
"""
