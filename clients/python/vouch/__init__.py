"""The Python client of vouch, a verification gate for AI agent outputs.

::

    from vouch import Client, VouchError
    from vouch.types import Criterion, Check, Output, Request, Task

    client = Client()  # VOUCH_SERVER (default http://127.0.0.1:8080), VOUCH_API_KEY
    report = client.verify(Request(
        task=Task(goal="Say when the release is done", criteria=[
            Criterion(text="says DONE", must=True,
                      check=Check(type="contains", extra={"value": "DONE"})),
        ]),
        output=Output(summary="Release 1.4 is DONE."),
    ))
    print(report.verdict, report.feedback)

:class:`Client` makes the calls of ``vouch serve``'s HTTP API; the types of
its requests and answers are the dataclasses of :mod:`vouch.types`,
generated from the server's OpenAPI document.
"""

from . import types
from .client import DEFAULT_SERVER, BatchItem, Client, Event, EventStream, VouchError, __version__

__all__ = [
    "DEFAULT_SERVER",
    "BatchItem",
    "Client",
    "Event",
    "EventStream",
    "VouchError",
    "__version__",
    "types",
]
