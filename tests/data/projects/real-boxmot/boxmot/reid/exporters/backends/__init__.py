"""Format-specific ReID model export backends."""
