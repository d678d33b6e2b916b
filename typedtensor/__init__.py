"""typedtensor (placeholder until the lead commits the package front)."""
