"""Electrode survey definitions and analytic geometric factors."""

from adtlert.survey.core import REMOTE_ELECTRODE, Survey, with_remote_slot

__all__ = ["REMOTE_ELECTRODE", "Survey", "with_remote_slot"]
