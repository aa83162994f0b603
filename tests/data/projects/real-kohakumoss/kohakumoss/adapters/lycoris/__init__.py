"""The installed LyCORIS: version check, kernel backend choice and tile tuning switch."""
