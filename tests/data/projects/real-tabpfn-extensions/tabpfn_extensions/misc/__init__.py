# Import utility modules for sklearn compatibility
