"""How the window looks: light and dark palettes (appearance), contrast-checked colours
(colours), dates and counts as text (formatting)."""
