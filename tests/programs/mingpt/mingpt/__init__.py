# Ported from karpathy/minGPT@37baab7:mingpt/__init__.py (MIT, see tests/programs/LICENSES.md).
# Changed: only the imports (typedtensor in place of torch); see tests/programs/README.md.
