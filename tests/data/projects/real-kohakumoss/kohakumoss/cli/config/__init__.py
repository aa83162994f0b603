"""`kohakumoss-config`: compose starter configs from the layered presets under configs/
and validate any config through the knob checks of the script it drives."""
