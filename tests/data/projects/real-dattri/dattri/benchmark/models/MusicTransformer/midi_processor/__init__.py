"""This module defines function to process MIDI files."""
