"""A stand-in for Pillow (not installed here): the few ``PIL.Image`` calls the ported programs make,
on 8-bit grayscale and RGB images held as numpy arrays, read from and written to PNG files."""
