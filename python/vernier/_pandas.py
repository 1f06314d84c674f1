"""pandas, imported only when a DataFrame is asked for."""

from __future__ import annotations

from typing import Any


def import_pandas(what: str, instead: str) -> Any:
    """The pandas module, or ImportError saying that ``what`` needs it and
    what works without it (``instead``)."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError(f"{what} needs pandas (Debian: apt-get install python3-pandas); "
                          f"{instead}") from error
    return pandas
