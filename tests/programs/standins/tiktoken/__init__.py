"""tiktoken, as far as nanoGPT's sample.py reaches it: the script imports it at the top but only
encodes with it when the dataset has no meta.pkl (a character-level dataset brings its own)."""

from __future__ import annotations

from typing import Any


def get_encoding(name: str) -> Any:
    raise NotImplementedError(f"tiktoken stand-in: no {name!r} encoding here; give the dataset a meta.pkl")
