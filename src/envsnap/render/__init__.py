"""Renderers for the command line: Rich text for people, JSON/YAML for programs."""
