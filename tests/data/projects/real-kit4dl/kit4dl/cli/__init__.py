"""Kit4DL CLI sub-package."""
