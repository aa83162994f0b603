# Copyright © 2023-2024 Apple Inc.

# Note: No models are imported here because then it would be required to import
# all Deep Learning frameworks supported by pfl when importing anything from
# the models module.
