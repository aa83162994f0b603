"""Hardware description: arch table, measured device rates, toolchain discovery."""
