"""Manual GPU validation tooling for the torch / warp-lang / nvalchemiops coupling."""
