"""Inference strategies for different model types"""
