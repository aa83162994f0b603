"""Code for managing CLIP version information"""
