"""Layers for use in models"""
