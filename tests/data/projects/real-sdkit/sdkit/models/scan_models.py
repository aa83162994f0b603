import picklescan.scanner


def scan_model(file_path):
    """
    Uses `picklescan.scanner.scan_file_path()` to scan and return the results.
    """
    return picklescan.scanner.scan_file_path(file_path)
