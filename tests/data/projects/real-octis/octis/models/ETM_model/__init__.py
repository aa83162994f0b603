"""Init package"""
