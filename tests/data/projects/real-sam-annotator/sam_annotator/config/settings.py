"""Global settings for SAM Annotator"""

# Window settings
WINDOW_TITLE = "SAM Multi-Object Annotator"
CLASS_WINDOW_TITLE = "Class Selection"

# Display settings
BUTTON_HEIGHT = 30
MAX_CLASSES = 1000
MAX_VISIBLE_CLASSES = 20  # Maximum classes visible in scrollable window

# File settings
SUPPORTED_IMAGE_EXTENSIONS = ('.png', '.jpg', '.jpeg')