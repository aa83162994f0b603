from .selective_scan_fwd import selective_scan_fn, SelectiveScanFn
