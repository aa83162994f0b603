"""This module defines the Resnet-9 model for the benchmark."""
