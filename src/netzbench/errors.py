"""Error types shared across the package (no imports: every layer may raise them)."""


class InputError(ValueError):
    """Bad input from the user or a file (a path, a value, a name, a torn or hostile file): the message says
    what and where in one line. The command line ends with it and exit code 2, never a traceback."""


class ParamsError(InputError):
    """A ``params.yaml`` value is malformed; the message names the key and the valid choices."""


class RecordError(InputError):
    """A run record cannot be read: missing, not JSON, or not of the run-record schema.

    The message always names the file.
    """
