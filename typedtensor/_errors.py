"""The exception every run-time shape problem raises, with the registry's message text."""


class ShapeError(ValueError):
    """A tensor's shape does not fit an op or an annotation; the message names the op (or the
    argument), the dims that disagree and both shapes."""
