"""What must hold (properties), the designs to check (presets), and the flaw catalog."""
