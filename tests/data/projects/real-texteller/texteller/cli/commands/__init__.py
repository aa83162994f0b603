"""
CLI commands for TexTeller
"""
