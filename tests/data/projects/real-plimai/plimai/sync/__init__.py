"""
plimai.sync

This package contains synchronization utilities and classes.
"""

"""Sync module for distributed synchronization and checkpoints."""
 
def sync_checkpoint():
    """Synchronize checkpoints across nodes."""
    pass 

# Example placeholder for a sync utility
def sync_data(source, destination):
    # Placeholder for data synchronization logic
    pass 