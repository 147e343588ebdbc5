"""The library raises these; the CLI turns each into a one-line message and an exit code."""


class GpuDoctorError(Exception):
    """Base of every error gpudoctor raises on purpose."""


class SnapshotError(GpuDoctorError):
    """A facts snapshot that is not JSON or has a value of the wrong type (exit 2)."""


class MatrixError(GpuDoctorError):
    """A compatibility matrix file that does not load or validate (exit 3: the package itself is broken)."""


class OutputExistsError(GpuDoctorError):
    """A file gpudoctor would write already exists and --force was not given (exit 2)."""


class ProbeFailed(GpuDoctorError):
    """A probe could not tell (recorded in Facts.probe_errors, the rest still runs). Not for "probed, absent"."""


class UnknownRelease(GpuDoctorError):
    """A matrix query about a release the matrix holds no row for (exit 2); ``known`` says which it holds."""

    def __init__(self, what: str, query: str, known: str):
        super().__init__(f"{what} {query} is not in the matrix (it knows {known})")
        self.what, self.query, self.known = what, query, known


# The one error line every command prints (``gpudoctor: error: ...``), built here so it is the same everywhere.
ERROR_PREFIX = "gpudoctor: error: "
MAX_ERROR_CHARS = 300


def error_line(message: object) -> str:
    """``gpudoctor: error: <message>``, one line of at most MAX_ERROR_CHARS characters.

    The message often quotes untrusted text (a path, a key, a value from a snapshot), so control characters and
    newlines are shown escaped, never written raw: an error cannot move the cursor or forge a second line."""
    from .escape import text

    try:
        body = text(message)
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still gets a line
        body = type(message).__name__
    line = ERROR_PREFIX + (body or "unknown error")
    if len(line) > MAX_ERROR_CHARS:
        line = line[: MAX_ERROR_CHARS - 1] + "…"
    return line
