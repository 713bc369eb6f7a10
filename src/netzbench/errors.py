"""Error types shared across the package (no imports: every layer may raise them)."""


class ParamsError(ValueError):
    """A ``params.yaml`` value is malformed; the message names the key and the valid choices."""


class RecordError(ValueError):
    """A run record cannot be read: missing, not JSON, or not of the run-record schema.

    The message always names the file.
    """
