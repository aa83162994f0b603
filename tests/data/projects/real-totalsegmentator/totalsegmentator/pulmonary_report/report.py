from totalsegmentator.pulmonary_report.pipeline import create_pulmonary_report

__all__ = ["create_pulmonary_report"]
