"""Real-style numeric Python (algorithm-collection style) for measuring what partition accepts."""
