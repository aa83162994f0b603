"""Metal shader sources distributed with mps_pointops."""
