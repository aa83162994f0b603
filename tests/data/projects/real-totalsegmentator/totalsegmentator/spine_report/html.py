from totalsegmentator.reporting import generate_html, now, rm_underscores, to_date


__all__ = ["generate_html", "now", "rm_underscores", "to_date"]
